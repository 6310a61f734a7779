import type { Command } from 'commander';
import { OperatorError } from './operator-error.js';
import { print, withMigratedDatabase } from './command-support.js';
import { resealColumn, SEALED_COLUMNS, type UnopenedSecret } from '../secrets/sealed-columns.js';
import { loadSecretKeys } from '../secrets/secret-keys.js';

/** Rows a failure names at most, so that one line stays readable; the count says how many there are. */
const NAMED_AT_MOST = 20;

/**
 * `secrets:reencrypt` (E9.2): the last step of a key rotation. Every stored secret (connection
 * credentials, webhook secrets) is rewritten under the current key, opened with it or with
 * SECRET_KEY_PREVIOUS; webhook secrets still in plain text are sealed too. Safe beside a running
 * service and to run again (secrets/sealed-columns.ts). A value that opens under neither key is
 * left as it is, and the command fails naming its table and id (never a secret).
 */
export function addSecretsCommands(program: Command): void {
  program
    .command('secrets:reencrypt')
    .description(
      'rewrite every stored secret (connection credentials, webhook secrets) under SECRET_KEY, opening each with SECRET_KEY or SECRET_KEY_PREVIOUS',
    )
    .option('--json', 'print the result as JSON')
    .action((opts: { json?: boolean }) =>
      withMigratedDatabase(async (db, config) => {
        const keys = loadSecretKeys(config);
        if (!keys.box.canSeal) {
          throw new OperatorError(
            'No SECRET_KEY is set, so no secret can be sealed: set SECRET_KEY (openssl rand -base64 32), and SECRET_KEY_PREVIOUS to the key the secrets were sealed with.',
          );
        }
        const columns: Array<{ table: string; column: string; rewritten: number; unchanged: number }> = [];
        const failures: UnopenedSecret[] = [];
        for (const column of SEALED_COLUMNS) {
          const outcome = await resealColumn(db, keys.box, column, 'stale');
          columns.push({ table: column.table, column: column.column, rewritten: outcome.rewritten, unchanged: outcome.unchanged });
          failures.push(...outcome.failures);
        }
        const key = keys.source === 'SECRET_KEY' ? 'SECRET_KEY' : `the key in ${keys.file ?? 'memory'}`;
        const rewritten = columns.reduce((sum, column) => sum + column.rewritten, 0);
        const unchanged = columns.reduce((sum, column) => sum + column.unchanged, 0);
        print(
          opts.json,
          { key: keys.source, rewritten, unchanged, columns, failed: failures.map(({ table, column, id }) => ({ table, column, id })) },
          [
            `Rewritten under ${key}: ${rewritten} (${columns.map((column) => `${column.table}.${column.column} ${column.rewritten}`).join(', ')}); already under it: ${unchanged}.`,
            ...(failures.length > 0 ? [`Not opened: ${failures.length}.`] : []),
          ].join('\n'),
        );
        if (failures.length > 0) throw new OperatorError(unopenedMessage(failures));
      }),
    );
}

function unopenedMessage(failures: readonly UnopenedSecret[]): string {
  const named = failures.slice(0, NAMED_AT_MOST).map((failure) => `${failure.table} ${failure.id} (${failure.column})`);
  const more = failures.length > NAMED_AT_MOST ? `, and ${failures.length - NAMED_AT_MOST} more` : '';
  return (
    `${failures.length} stored secret(s) open under neither SECRET_KEY nor SECRET_KEY_PREVIOUS and were left as they are: ` +
    `${named.join(', ')}${more}. Set SECRET_KEY_PREVIOUS to the key that sealed them and run again; ` +
    'a secret whose key is lost must be entered again (a webhook: rotate its secret; a connection: update its credentials).'
  );
}
