import { existsSync } from 'node:fs';
import { Help, InvalidArgumentError, Option, type Command } from 'commander';
import { OperatorError } from './operator-error.js';
import type { Config } from '../config.js';
import { cliIo, loadCliConfig } from './cli-io.js';
import { describeDatabaseFailure } from '../db/connect-errors.js';
import { openDatabase, sqliteFileOf, type Db } from '../db/database.js';
import { isRowId, MAX_ROW_ID } from '../db/dialect.js';
import { pendingMigrations } from '../db/migration-status.js';

/**
 * What the commands share: opening the configured database, and refusing to work on one that is
 * not there or not migrated. Only `serve` and `migrate` may create a database (issue 14): any other
 * command run from another folder (a relative DATABASE_URL) would otherwise create and use an empty
 * file there.
 */
export async function withDatabase(work: (db: Db, config: Config) => Promise<void>, options: { mayCreate: boolean }): Promise<void> {
  const config = loadCliConfig();
  if (!options.mayCreate) requireDatabaseFile(config.databaseUrl);
  let db: Db | undefined;
  try {
    db = openDatabase(config);
    await work(db, config);
  } catch (error) {
    const described = describeDatabaseFailure(error, config.databaseUrl);
    throw described === null ? error : new OperatorError(described);
  } finally {
    await db?.destroy();
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
  cliIo().stdout.write(json ? `${JSON.stringify(value)}\n` : `${text}\n`);
}

export function parseId(value: string): number {
  if (!/^[1-9][0-9]*$/.test(value) || !isRowId(Number(value))) throw new InvalidArgumentError(`expected an id from 1 to ${MAX_ROW_ID}.`);
  return Number(value);
}

/**
 * Options a command cannot do without. Commander's own mandatory options are checked before unknown
 * options are, so `users:show --emial a@b.c` said "required option '--email' not specified" instead
 * of naming the typo. These are ordinary options to Commander, marked here: `--help` says
 * "(required)" beside them (`describeRequired`), and `checkRequired` refuses their absence in a
 * preAction hook, which runs after the unknown options were refused.
 */
const REQUIRED = new WeakSet<Option>();

export function required(option: Option): Option {
  REQUIRED.add(option);
  return option;
}

export function requiredOption(flags: string, description: string, parse?: (value: string) => unknown): Option {
  const option = new Option(flags, description);
  if (parse) option.argParser(parse);
  return required(option);
}

/** `--help`: "(required)" after the description of each required option. */
export function describeRequired(option: Option): string {
  const description = Help.prototype.optionDescription.call(new Help(), option);
  return REQUIRED.has(option) ? `${description} (required)` : description;
}

/** The preAction hook: Commander's message and exit code for a missing required option. */
export function checkRequired(command: Command): void {
  for (const option of command.options) {
    if (REQUIRED.has(option) && command.getOptionValue(option.attributeName()) === undefined) {
      command.error(`error: required option '${option.flags}' not specified`, {
        code: 'commander.missingMandatoryOptionValue',
        exitCode: 1,
      });
    }
  }
}
