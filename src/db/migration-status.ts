import { createMigrator, type Db } from './database.js';

export interface MigrationState {
  name: string;
  status: 'applied' | 'pending';
  /** When Kysely's bookkeeping table says it ran; null while pending. */
  applied_at: string | null;
}

export interface MigrationStatus {
  migrations: MigrationState[];
  /**
   * The back-fill data step (src/migrate.ts, reports/changes/changes-backfill.ts): reports still without fingerprints.
   * Null while migrations are pending, because the step runs only after all of them (and the
   * column it reads may not exist yet).
   */
  backfill: { pending_reports: number | null };
}

/** What `migrate` would do, read without changing anything. */
export async function readMigrationStatus(db: Db): Promise<MigrationStatus> {
  const migrations = await migrationStates(db);
  const pendingReports = migrations.some((m) => m.status === 'pending') ? null : await countUnfingerprinted(db);
  return { migrations, backfill: { pending_reports: pendingReports } };
}

/** The names of the migrations this build has and the database has not run yet. */
export async function pendingMigrations(db: Db): Promise<string[]> {
  return (await migrationStates(db)).filter((m) => m.status === 'pending').map((m) => m.name);
}

async function migrationStates(db: Db): Promise<MigrationState[]> {
  const known = await (await createMigrator(db)).getMigrations();
  return known.map((m) => ({
    name: m.name,
    status: m.executedAt ? 'applied' : 'pending',
    applied_at: m.executedAt ? m.executedAt.toISOString() : null,
  }));
}

async function countUnfingerprinted(db: Db): Promise<number> {
  const row = await db
    .selectFrom('reports')
    .select((eb) => eb.fn.countAll().as('n'))
    .where('fingerprinted_at', 'is', null)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
