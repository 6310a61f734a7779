import type { Kysely } from 'kysely';
import { isPostgres } from '../dialect.js';

/**
 * A report's results stored Brotli-compressed (reports/results/results-encoding.ts): a 4 MB run of 4,000
 * issues becomes about 250 KB, which SQLite writes (and checkpoints) in a tenth of the time and
 * which every read of the row no longer walks through. Reports stored before keep their plain
 * `results` and stay readable as they are; new ones leave `results` empty.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('reports')
    .addColumn('results_br', isPostgres(db) ? 'bytea' : 'blob')
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('reports').dropColumn('results_br').execute();
}
