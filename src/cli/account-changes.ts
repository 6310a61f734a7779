import { InvalidArgumentError, Option, type Command } from 'commander';
import { type createAccountsService, PLANS, ROLES } from '../accounts/accounts.service.js';
import { OperatorError } from './operator-error.js';
import { ABILITIES, type Ability } from '../auth/abilities.js';
import { systemClock } from '../clock.js';
import type { Config } from '../config.js';
import { migrateToLatest } from '../migrate.js';
import type { Plan, TeamRole } from '../db/schema.js';
import { operatorFeatures } from '../operator-features.js';
import { parseExpiry } from '../tokens/token-expiry.js';
import { hashPassword, passwordProblem } from '../sessions/password-hash.js';
import { parseId, print, required, requiredOption, withDatabase } from './command-support.js';
import { readPassword } from './password-input.js';

/**
 * The operator's commands that change accounts (D20, issue 14). Each is one transaction with its
 * audit event (actor `operator`, E5), prints what it did (or `--json`; a user's creation and a new
 * password also say how to sign in) and fails with one line.
 */
export function addAccountChangeCommands(program: Command): void {
  program
    .command('users:create')
    .description('create a user with a personal team, a subscription and a first token')
    .addOption(requiredOption('--email <email>', 'email address'))
    .option('--name <name>', 'display name')
    .addOption(new Option('--plan <plan>', 'subscription plan').choices([...PLANS, 'none']).default('solo'))
    .option('--no-team', 'do not create a personal team')
    .addOption(abilitiesOption('comma-separated abilities of the first token'))
    .option('--password-stdin', 'read a dashboard password from standard input (at least 12 characters)')
    .option('--json', 'print the result as JSON')
    .action(
      (opts: {
        email: string;
        name?: string;
        plan: string;
        team: boolean;
        abilities: Ability[];
        passwordStdin?: boolean;
        json?: boolean;
      }) =>
        withAccounts(async (accounts, config) => {
          // Read and checked before anything is written: a refused password creates no user.
          const passwordHash = opts.passwordStdin ? await hashNewPassword(await readNewPassword()) : null;
          const result = await accounts.createUser({
            email: opts.email,
            name: opts.name ?? null,
            plan: toPlan(opts.plan),
            withTeam: opts.team,
            abilities: opts.abilities,
            passwordHash,
          });
          const next = passwordHash
            ? signInHint(config, result.user.email)
            : `No dashboard password yet: set one with \`scoreboard users:password --email ${result.user.email}\` to sign in.`;
          print(opts.json, result, `User ${result.user.email} created (id ${result.user.id}). Token: ${result.token}\n${next}`);
        }),
    );

  program
    .command('users:password')
    .description("set a user's dashboard password, read from standard input or typed at a prompt; ends their sessions")
    .addOption(requiredOption('--email <email>', 'email address of the user'))
    .option('--json', 'print the result as JSON')
    .action((opts: { email: string; json?: boolean }) =>
      withDatabase(
        async (db, config) => {
          await migrateToLatest(db);
          const { overview, sessions } = operatorFeatures(db, systemClock);
          // Before the password is asked for: typing one twice for a user who is not there helps nobody.
          await overview.showUser(opts.email).catch(() => {
            throw new OperatorError(
              `No user with email ${opts.email}: create one with \`scoreboard users:create --email ${opts.email} --password-stdin\`.`,
            );
          });
          const result = await sessions.setPassword(opts.email, await readNewPassword());
          print(
            opts.json,
            result,
            `Password set for ${result.email}; ${result.sessions_ended} session(s) signed out.\n${signInHint(config, result.email)}`,
          );
        },
        { mayCreate: false },
      ),
    );

  program
    .command('users:update')
    .description("change a user's name and/or email")
    .addOption(requiredOption('--email <email>', 'current email address of the user'))
    .option('--name <name>', 'new display name')
    .option('--new-email <email>', 'new email address')
    .option('--json', 'print the result as JSON')
    .action((opts: { email: string; name?: string; newEmail?: string; json?: boolean }) =>
      withAccounts(async (accounts) => {
        const user = await accounts.updateUser(opts.email, { name: opts.name, newEmail: opts.newEmail });
        print(opts.json, { user }, `User ${user.id} updated: ${user.email}${user.name === null ? '' : ` (${user.name})`}.`);
      }),
    );

  program
    .command('users:delete')
    .description("delete a user, their tokens, memberships and personal team's projects and reports")
    .addOption(requiredOption('--email <email>', 'email address of the user'))
    .option('--yes', 'confirm: this cannot be undone')
    .option('--json', 'print the result as JSON')
    .action((opts: { email: string; yes?: boolean; json?: boolean }) =>
      withAccounts(async (accounts) => {
        if (!opts.yes) {
          throw new OperatorError(
            `Deleting ${opts.email} also deletes their tokens, memberships and their personal team's projects and reports: run again with --yes to confirm.`,
          );
        }
        const deleted = await accounts.deleteUser(opts.email);
        const team =
          deleted.personal_team_id === null
            ? 'no personal team'
            : `personal team ${deleted.personal_team_id} with ${deleted.projects_deleted} project(s)`;
        print(
          opts.json,
          deleted,
          `User ${deleted.user.email} deleted, with ${deleted.tokens_deleted} token(s), ${team}, and their membership of ${deleted.memberships_removed.length} other team(s).`,
        );
      }),
    );

  program
    .command('users:plan')
    .description("set a user's subscription plan (none ends it)")
    .addOption(requiredOption('--email <email>', 'email address'))
    .addOption(required(new Option('--plan <plan>', 'subscription plan').choices([...PLANS, 'none'])))
    .option('--json', 'print the result as JSON')
    .action((opts: { email: string; plan: string; json?: boolean }) =>
      withAccounts(async (accounts) => {
        await accounts.setPlan(opts.email, toPlan(opts.plan));
        print(opts.json, { email: opts.email, plan: toPlan(opts.plan) }, `Plan of ${opts.email} set to ${opts.plan}.`);
      }),
    );

  program
    .command('users:switch-team')
    .description("change a user's current team")
    .addOption(requiredOption('--email <email>', 'email address of the user'))
    .addOption(requiredOption('--team <id>', 'team id', parseId))
    .option('--json', 'print the result as JSON')
    .action((opts: { email: string; team: number; json?: boolean }) =>
      withAccounts(async (accounts) => {
        await accounts.switchTeam(opts.email, opts.team);
        print(opts.json, { email: opts.email, current_team_id: opts.team }, `Current team of ${opts.email} is now ${opts.team}.`);
      }),
    );

  program
    .command('teams:create')
    .description("create a team owned by a user; it becomes the owner's current team")
    .addOption(requiredOption('--owner <email>', 'email address of the owner'))
    .addOption(requiredOption('--name <name>', 'team name'))
    .option('--json', 'print the result as JSON')
    .action((opts: { owner: string; name: string; json?: boolean }) =>
      withAccounts(async (accounts) => {
        const team = await accounts.createTeam(opts.owner, opts.name);
        print(opts.json, { team }, `Team ${team.id} created.`);
      }),
    );

  program
    .command('teams:add-member')
    .description('add a user to a team with a role, or change their role (owner: transfer the team)')
    .addOption(requiredOption('--team <id>', 'team id', parseId))
    .addOption(requiredOption('--email <email>', 'email address of the user'))
    .addOption(required(new Option('--role <role>', 'role in the team').choices(ROLES)))
    .option('--json', 'print the result as JSON')
    .action((opts: { team: number; email: string; role: TeamRole; json?: boolean }) =>
      withAccounts(async (accounts) => {
        await accounts.addMember(opts.team, opts.email, opts.role);
        print(
          opts.json,
          { team_id: opts.team, email: opts.email, role: opts.role },
          `${opts.email} is now ${opts.role} of team ${opts.team}.`,
        );
      }),
    );

  program
    .command('teams:remove-member')
    .description('remove a member from a team (not its owner)')
    .addOption(requiredOption('--team <id>', 'team id', parseId))
    .addOption(requiredOption('--email <email>', 'email address of the member'))
    .option('--json', 'print the result as JSON')
    .action((opts: { team: number; email: string; json?: boolean }) =>
      withAccounts(async (accounts) => {
        await accounts.removeMember(opts.team, opts.email);
        print(opts.json, { team_id: opts.team, email: opts.email, removed: true }, `${opts.email} removed from team ${opts.team}.`);
      }),
    );

  program
    .command('tokens:create')
    .description('create a personal access token for a user (any expiry, even a past one)')
    .addOption(requiredOption('--email <email>', 'email address of the user'))
    .option('--name <name>', 'token name', 'CLI token')
    .addOption(abilitiesOption('comma-separated abilities'))
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
    .command('tokens:revoke')
    .description("revoke any user's personal access token by id (see tokens:list)")
    .addOption(requiredOption('--id <id>', 'token id', parseId))
    .option('--json', 'print the result as JSON')
    .action((opts: { id: number; json?: boolean }) =>
      withAccounts(async (accounts) => {
        const revoked = await accounts.revokeToken(opts.id);
        print(opts.json, { id: revoked.id, user_id: revoked.userId, revoked: true }, `Token ${revoked.id} revoked.`);
      }),
    );
}

/**
 * Account commands run pending migrations first, so a database an older build made works with
 * this one; but they never create one (only `serve` and `migrate` do, see command-support.ts).
 */
function withAccounts(work: (accounts: ReturnType<typeof createAccountsService>, config: Config) => Promise<void>): Promise<void> {
  return withDatabase(
    async (db, config) => {
      await migrateToLatest(db);
      await work(operatorFeatures(db, systemClock).accounts, config);
    },
    { mayCreate: false },
  );
}

/**
 * The password from standard input, refused when there is none: an unset `$PASSWORD` piped in is
 * an empty input, not a password too short.
 */
async function readNewPassword(): Promise<string> {
  const password = await readPassword();
  if (password === '') {
    throw new OperatorError(
      'No password was read from standard input: pipe one in (printf \'%s\' "$PASSWORD" | scoreboard …), or run the command at a terminal to type it.',
    );
  }
  return password;
}

/** Where the person signs in: the public URL, else the address `serve` listens on. */
function signInHint(config: Config, email: string): string {
  const host =
    config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host.includes(':') ? `[${config.host}]` : config.host;
  const url = config.publicUrl ?? `http://${host}:${config.port}`;
  return `Sign in at ${url}/ with ${email} and that password.`;
}

/** E7's rule, then the hash (sessions/password-hash.ts); a refused password is the operator's mistake. */
async function hashNewPassword(password: string): Promise<string> {
  const problem = passwordProblem(password);
  if (problem !== null) throw new OperatorError(problem);
  return hashPassword(password);
}

function toPlan(plan: string): Plan | null {
  return plan === 'none' ? null : (plan as Plan);
}

/** `--abilities read,write`; its default shown as one would type it: `(default: read,write,admin)`. */
function abilitiesOption(description: string): Option {
  return new Option('--abilities <list>', description).argParser(parseAbilities).default([...ABILITIES], ABILITIES.join(','));
}

function parseAbilities(value: string): Ability[] {
  const abilities = value
    .split(',')
    .map((a) => a.trim())
    .filter(Boolean);
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
