import type { Command } from 'commander';
import { OperatorError } from './operator-error.js';
import { sqliteFileOf } from '../db/database.js';
import { readMigrationStatus, type MigrationStatus } from '../db/migration-status.js';
import { backupSqlite, pgDumpAdvice } from './backup.js';
import { loadCliConfig } from './cli-io.js';
import { print, requireDatabaseFile, requiredOption, withDatabase } from './command-support.js';
import { formatTable } from './text-table.js';

/** `migrate:status` and `backup` (issue 14): they look at the database and change nothing in it. */
export function addDatabaseCommands(program: Command): void {
  program
    .command('migrate:status')
    .description('show which migrations are applied or pending, and whether the back-fill has work left')
    .option('--json', 'print the result as JSON')
    .action((opts: { json?: boolean }) =>
      withDatabase(
        async (db) => {
          const status = await readMigrationStatus(db);
          print(opts.json, status, statusText(status));
        },
        { mayCreate: false },
      ),
    );

  program
    .command('backup')
    .description('copy the SQLite database to a new file, consistently, while the server may be running')
    .addOption(requiredOption('--to <file>', 'the new file (never overwritten)'))
    .option('--json', 'print the result as JSON')
    .action(async (opts: { to: string; json?: boolean }) => {
      const { databaseUrl } = loadCliConfig();
      if (/^postgres(ql)?:\/\//.test(databaseUrl)) throw new OperatorError(pgDumpAdvice(databaseUrl));
      const file = sqliteFileOf(databaseUrl);
      if (file === null) throw new OperatorError('DATABASE_URL is sqlite::memory:, which keeps nothing to back up.');
      requireDatabaseFile(databaseUrl);
      const copy = await backupSqlite(file, opts.to);
      print(opts.json, copy, `Backed up ${file} to ${copy.path} (${copy.bytes} bytes).`);
    });
}

function statusText(status: MigrationStatus): string {
  const table = formatTable(
    ['MIGRATION', 'STATUS', 'APPLIED AT'],
    status.migrations.map((m) => [m.name, m.status, m.applied_at]),
  );
  const pending = status.backfill.pending_reports;
  const backfill =
    pending === null
      ? 'Back-fill: runs after the pending migrations (`scoreboard migrate`).'
      : pending === 0
        ? 'Back-fill: nothing left.'
        : `Back-fill: ${pending} report(s) without fingerprints; \`scoreboard migrate\` (or \`serve\`) computes them.`;
  return `${table}\n${backfill}`;
}
