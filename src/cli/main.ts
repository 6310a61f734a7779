import { Command, CommanderError } from 'commander';
import { isKnownFailure } from './operator-error.js';
import { ConfigError, loadConfig } from '../config.js';
import { migrateToLatest } from '../migrate.js';
import { addAccountChangeCommands } from './account-changes.js';
import { addAccountReadCommands } from './account-reads.js';
import { checkRequired, describeRequired, withDatabase } from './command-support.js';
import { addDatabaseCommands } from './database-commands.js';
import { addSecretsCommands } from './secrets-commands.js';
import { loadSecretKeys } from '../secrets/secret-keys.js';
import { packageVersion } from '../version.js';

/**
 * `scoreboard`: the operator command (D20). Thin commands over the same services the HTTP layer
 * uses; every failure prints one line to stderr and exits non-zero, so scripts can tell.
 */
export async function main(argv: string[]): Promise<void> {
  const program = buildProgram();
  try {
    await program.parseAsync(argv);
  } catch (error) {
    if (error instanceof CommanderError) {
      process.exitCode = error.exitCode;
      return;
    }
    const known = isKnownFailure(error) || error instanceof ConfigError;
    process.stderr.write(`scoreboard: ${known ? (error as Error).message : `unexpected error: ${String(error)}`}\n`);
    process.exitCode = 1;
  }
}

function buildProgram(): Command {
  const program = new Command('scoreboard')
    .description('Scoreboard operator command: serve the API, run migrations, manage accounts.')
    .version(packageVersion(), '--version', 'print the version')
    .exitOverride()
    .configureOutput({
      writeErr: (text) => process.stderr.write(text),
      // A usage error reads like every other failure: one line, `scoreboard: ...`.
      outputError: (text, write) => write(`scoreboard: ${oneLine(text.replace(/^error: /, ''))}\n`),
    })
    .showHelpAfterError(false)
    // Inherited by every command added below: required options say so in --help, and are checked
    // after Commander has refused unknown options (command-support.ts).
    .configureHelp({ optionDescription: describeRequired })
    .hook('preAction', (_program, command) => checkRequired(command));

  program
    .command('serve')
    .description('run pending migrations, then listen on HOST:PORT')
    .action(async () => {
      // Loaded on demand: the account commands start faster without the HTTP stack.
      const { serve } = await import('../main.js');
      await serve(loadConfig(process.env, { dotenv: true }));
    });

  program
    .command('migrate')
    .description('run pending database migrations')
    .action(() =>
      withDatabase(
        async (db, config) => {
          // E9.2: the data step seals the webhook secrets stored before it, with serve's key.
          const applied = await migrateToLatest(db, { secrets: loadSecretKeys(config).box });
          process.stdout.write(applied.length ? `Applied: ${applied.join(', ')}\n` : 'Nothing to migrate.\n');
        },
        { mayCreate: true },
      ),
    );

  addDatabaseCommands(program);
  addSecretsCommands(program);

  addAccountChangeCommands(program);
  addAccountReadCommands(program);
  return program;
}

/** Commander's "unknown option '--emial'\n(Did you mean --email?)" on one line, like every failure. */
function oneLine(text: string): string {
  return text.trim().replace(/\s*\n\s*/g, ' ');
}
