import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { createAccountsService, OperatorError, PLANS, ROLES } from '../accounts/accounts.service.js';
import { ABILITIES, type Ability } from '../auth/abilities.js';
import { systemClock } from '../clock.js';
import { ConfigError, loadConfig } from '../config.js';
import { migrateToLatest } from '../db/database.js';
import type { Plan, TeamRole } from '../db/schema.js';
import { repositoriesOn } from '../repositories.js';
import { parseExpiry } from '../tokens/token-expiry.js';
import { addAccountReadCommands } from './account-reads.js';
import { parseId, print, withDatabase } from './command-support.js';
import { addDatabaseCommands } from './database-commands.js';
import { packageVersion } from './version.js';

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
    const known = error instanceof OperatorError || error instanceof ConfigError;
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
      outputError: (text, write) => write(`scoreboard: ${text.replace(/^error: /, '')}`),
    })
    .showHelpAfterError(false);

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
        async (db) => {
          const applied = await migrateToLatest(db);
          process.stdout.write(applied.length ? `Applied: ${applied.join(', ')}\n` : 'Nothing to migrate.\n');
        },
        { mayCreate: true },
      ),
    );

  addDatabaseCommands(program);

  program
    .command('users:create')
    .description('create a user with a personal team, a subscription and a first token')
    .requiredOption('--email <email>', 'email address')
    .option('--name <name>', 'display name')
    .addOption(new Option('--plan <plan>', 'subscription plan').choices([...PLANS, 'none']).default('solo'))
    .option('--no-team', 'do not create a personal team')
    .option('--abilities <list>', 'comma-separated abilities of the first token', parseAbilities, [...ABILITIES])
    .option('--json', 'print the result as JSON')
    .action((opts: { email: string; name?: string; plan: string; team: boolean; abilities: Ability[]; json?: boolean }) =>
      withAccounts(async (accounts) => {
        const result = await accounts.createUser({
          email: opts.email,
          name: opts.name ?? null,
          plan: toPlan(opts.plan),
          withTeam: opts.team,
          abilities: opts.abilities,
        });
        print(opts.json, result, `User ${result.user.email} created (id ${result.user.id}). Token: ${result.token}`);
      }),
    );

  program
    .command('tokens:create')
    .description('create a personal access token for a user (any expiry, even a past one)')
    .requiredOption('--email <email>', 'email address of the user')
    .option('--name <name>', 'token name', 'CLI token')
    .option('--abilities <list>', 'comma-separated abilities', parseAbilities, [...ABILITIES])
    .option('--expires-at <date>', 'ISO 8601 date-time with offset, or YYYY-MM-DD', parseDate)
    .option('--json', 'print the result as JSON')
    .action((opts: { email: string; name: string; abilities: Ability[]; expiresAt?: Date; json?: boolean }) =>
      withAccounts(async (accounts) => {
        const result = await accounts.createToken({
          email: opts.email,
          name: opts.name,
          abilities: opts.abilities,
          expiresAt: opts.expiresAt ?? null,
        });
        print(opts.json, result, `Token ${result.id} created: ${result.token}`);
      }),
    );

  program
    .command('users:plan')
    .description("set a user's subscription plan (none ends it)")
    .requiredOption('--email <email>', 'email address')
    .addOption(new Option('--plan <plan>', 'subscription plan').choices([...PLANS, 'none']).makeOptionMandatory())
    .action((opts: { email: string; plan: string }) =>
      withAccounts(async (accounts) => {
        await accounts.setPlan(opts.email, toPlan(opts.plan));
        process.stdout.write(`Plan of ${opts.email} set to ${opts.plan}.\n`);
      }),
    );

  program
    .command('teams:create')
    .description("create a team owned by a user; it becomes the owner's current team")
    .requiredOption('--owner <email>', 'email address of the owner')
    .requiredOption('--name <name>', 'team name')
    .option('--json', 'print the result as JSON')
    .action((opts: { owner: string; name: string; json?: boolean }) =>
      withAccounts(async (accounts) => {
        const team = await accounts.createTeam(opts.owner, opts.name);
        print(opts.json, { team }, `Team ${team.id} created.`);
      }),
    );

  program
    .command('teams:add-member')
    .description('add a user to a team with a role (or change their role)')
    .requiredOption('--team <id>', 'team id', parseId)
    .requiredOption('--email <email>', 'email address of the user')
    .addOption(new Option('--role <role>', 'role in the team').choices(ROLES).makeOptionMandatory())
    .action((opts: { team: number; email: string; role: TeamRole }) =>
      withAccounts(async (accounts) => {
        await accounts.addMember(opts.team, opts.email, opts.role);
        process.stdout.write(`${opts.email} is now ${opts.role} of team ${opts.team}.\n`);
      }),
    );

  program
    .command('users:switch-team')
    .description("change a user's current team")
    .requiredOption('--email <email>', 'email address of the user')
    .requiredOption('--team <id>', 'team id', parseId)
    .action((opts: { email: string; team: number }) =>
      withAccounts(async (accounts) => {
        await accounts.switchTeam(opts.email, opts.team);
        process.stdout.write(`Current team of ${opts.email} is now ${opts.team}.\n`);
      }),
    );

  addAccountReadCommands(program);
  return program;
}

/**
 * Account commands run pending migrations first, so a database an older build made works with
 * this one; but they never create one (only `serve` and `migrate` do, see command-support.ts).
 */
function withAccounts(work: (accounts: ReturnType<typeof createAccountsService>) => Promise<void>): Promise<void> {
  return withDatabase(
    async (db) => {
      await migrateToLatest(db);
      await work(createAccountsService({ db, clock: systemClock, repositories: repositoriesOn }));
    },
    { mayCreate: false },
  );
}

function toPlan(plan: string): Plan | null {
  return plan === 'none' ? null : (plan as Plan);
}

function parseAbilities(value: string): Ability[] {
  const abilities = value.split(',').map((a) => a.trim()).filter(Boolean);
  const unknown = abilities.filter((a) => !(ABILITIES as readonly string[]).includes(a));
  if (abilities.length === 0 || unknown.length > 0) {
    throw new InvalidArgumentError(`expected a comma-separated list of ${ABILITIES.join(', ')}.`);
  }
  return abilities as Ability[];
}

function parseDate(value: string): Date {
  const date = parseExpiry(value);
  if (date === null) throw new InvalidArgumentError('expected an ISO 8601 date-time with offset or YYYY-MM-DD.');
  return date;
}
