import { afterAll } from 'vitest';
import { dropIdleSchemas } from './test-backend.js';

// A setup file (vitest.config.ts): after each test file, the PostgreSQL schemas its apps left empty
// for reuse are dropped, so that a run leaves nothing behind in the database.
afterAll(dropIdleSchemas);
