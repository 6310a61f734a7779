import { Command, CommanderError } from 'commander';
import { isKnownFailure } from './operator-error.js';
import { ConfigError } from '../config.js';
import { migrateToLatest } from '../migrate.js';
import { type CliIo, loadCliConfig, processIo, runWithIo } from './cli-io.js';
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
  const code = await runCli(argv.slice(2), processIo());
  if (code !== 0) process.exitCode = code;
}

/**
 * One run of the command: `args` are what follows `scoreboard` on the command line; resolves with
 * the exit status. Output goes to `io` only (cli-io.ts). `serve` resolves once it listens.
 */
export function runCli(args: string[], io: CliIo): Promise<number> {
  return runWithIo(io, async () => {
    const program = buildProgram(io);
    try {
      await program.parseAsync(args, { from: 'user' });
      return 0;
    } catch (error) {
      if (error instanceof CommanderError) return error.exitCode;
      const known = isKnownFailure(error) || error instanceof ConfigError;
      io.stderr.write(`scoreboard: ${known ? (error as Error).message : `unexpected error: ${String(error)}`}\n`);
      return 1;
    }
  });
}

function buildProgram(io: CliIo): Command {
  const program = new Command('scoreboard')
    .description('Scoreboard operator command: serve the API, run migrations, manage accounts.')
    .version(packageVersion(), '--version', 'print the version')
    .exitOverride()
    .configureOutput({
      writeOut: (text) => io.stdout.write(text),
      writeErr: (text) => io.stderr.write(text),
      // Commander's own defaults (a terminal's width, else 80), on the run's streams, not the process's.
      getOutHelpWidth: () => helpWidth(io.stdout),
      getErrHelpWidth: () => helpWidth(io.stderr),
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
      await serve(loadCliConfig());
    });

  program
    .command('migrate')
    .description('run pending database migrations')
    .action(() =>
      withDatabase(
        async (db, config) => {
          // E9.2: the data step seals the webhook secrets stored before it, with serve's key.
          const applied = await migrateToLatest(db, { secrets: loadSecretKeys(config).box });
          io.stdout.write(applied.length ? `Applied: ${applied.join(', ')}\n` : 'Nothing to migrate.\n');
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

function helpWidth(output: CliIo['stdout']): number {
  return (output.isTTY ? output.columns : undefined) ?? 80;
}

/** Commander's "unknown option '--emial'\n(Did you mean --email?)" on one line, like every failure. */
function oneLine(text: string): string {
  return text.trim().replace(/\s*\n\s*/g, ' ');
}
