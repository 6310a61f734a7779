import { existsSync } from 'node:fs';
import { InvalidArgumentError } from 'commander';
import { OperatorError } from '../accounts/accounts.service.js';
import { loadConfig, type Config } from '../config.js';
import { openDatabase, sqliteFileOf, type Db } from '../db/database.js';
import { isRowId, MAX_ROW_ID } from '../db/dialect.js';
import { pendingMigrations } from '../db/migration-status.js';

/**
 * What the commands share: opening the configured database, and refusing to work on one that is
 * not there or not migrated. Only `serve` and `migrate` may create a database (issue 14): any other
 * command run from another folder (a relative DATABASE_URL) would otherwise create and use an empty
 * file there.
 */
export async function withDatabase(
  work: (db: Db, config: Config) => Promise<void>,
  options: { mayCreate: boolean },
): Promise<void> {
  const config = loadConfig(process.env, { dotenv: true });
  if (!options.mayCreate) requireDatabaseFile(config.databaseUrl);
  const db = openDatabase(config);
  try {
    await work(db, config);
  } finally {
    await db.destroy();
  }
}

/** The read commands: the database must exist and be migrated, or their queries fail obscurely. */
export function withMigratedDatabase(work: (db: Db, config: Config) => Promise<void>): Promise<void> {
  return withDatabase(
    async (db, config) => {
      const pending = await pendingMigrations(db);
      if (pending.length > 0) {
        throw new OperatorError(`The database has pending migrations (${pending.join(', ')}): run \`scoreboard migrate\` first.`);
      }
      await work(db, config);
    },
    { mayCreate: false },
  );
}

/** `sqlite::memory:` and PostgreSQL have no file to look for. */
export function requireDatabaseFile(databaseUrl: string): void {
  const file = sqliteFileOf(databaseUrl);
  if (file !== null && !existsSync(file)) {
    throw new OperatorError(
      `No SQLite database at ${file}: run \`scoreboard migrate\` (or \`serve\`) first to create it, or check DATABASE_URL (a relative path is resolved from the current folder).`,
    );
  }
}

/** `--json`: one JSON document; otherwise the readable text. */
export function print(json: boolean | undefined, value: unknown, text: string): void {
  process.stdout.write(json ? `${JSON.stringify(value)}\n` : `${text}\n`);
}

export function parseId(value: string): number {
  if (!/^[1-9][0-9]*$/.test(value) || !isRowId(Number(value))) throw new InvalidArgumentError(`expected an id from 1 to ${MAX_ROW_ID}.`);
  return Number(value);
}
