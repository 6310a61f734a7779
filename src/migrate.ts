import { type Db, runMigrations } from './db/database.js';
import type { DataStep } from './db/migrations/index.js';
import { backfillChanges } from './reports/changes/changes-backfill.js';

/** The data steps each migration run ends with (db/migrations/index.ts `DataStep`), in order. */
const DATA_STEPS: readonly DataStep[] = [(db) => backfillChanges(db)];

/** Runs pending migrations and the data steps; what `migrate`, `serve` and the tests run. */
export function migrateToLatest(db: Db): Promise<string[]> {
  return runMigrations(db, DATA_STEPS);
}
