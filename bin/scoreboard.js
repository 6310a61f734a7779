#!/usr/bin/env node
// The operator command. The TypeScript sources are compiled to dist/ by `npm install` (prepare).
import { main } from '../dist/cli/main.js';

await main(process.argv);
