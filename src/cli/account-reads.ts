import type { Command } from 'commander';
import type { createAccountsOverview, TeamOverview, UserOverview } from '../accounts/accounts.overview.js';
import { systemClock } from '../clock.js';
import { operatorFeatures } from '../operator-features.js';
import { parseId, print, requiredOption, withMigratedDatabase } from './command-support.js';
import { type Cell, formatFields, formatTable } from './text-table.js';

/** The operator's read-only commands over users, teams and tokens (issue 14). They change nothing. */
export function addAccountReadCommands(program: Command): void {
  readCommand(program.command('users:list').description('list every user: plan, current team, token count'), async (overview) => {
    const users = await overview.listUsers();
    return { json: { data: users }, text: tableOr(users, 'No users.', usersTable) };
  });

  readCommand(
    program
      .command('users:show')
      .description('show one user, their teams and token count')
      .addOption(requiredOption('--email <email>', 'email address of the user')),
    async (overview, opts: { email: string }) => {
      const user = await overview.showUser(opts.email);
      const teams = tableOr(user.teams, 'No teams.', (teams) =>
        formatTable(
          ['ID', 'NAME', 'ROLE'],
          teams.map((t) => [t.id, t.name, t.role]),
        ),
      );
      return { json: { data: user }, text: `${userFields(user)}\n\n${teams}` };
    },
  );

  readCommand(program.command('teams:list').description('list every team: owner, member and project counts'), async (overview) => {
    const teams = await overview.listTeams();
    return { json: { data: teams }, text: tableOr(teams, 'No teams.', teamsTable) };
  });

  readCommand(
    program
      .command('teams:show')
      .description('show one team and its members')
      .addOption(requiredOption('--team <id>', 'team id', parseId)),
    async (overview, opts: { team: number }) => {
      const { team, members } = await overview.showTeam(opts.team);
      const memberLines = tableOr(members, 'No members.', (members) =>
        formatTable(
          ['ID', 'NAME', 'EMAIL', 'ROLE', 'JOINED AT'],
          members.map((m) => [m.id, m.name, m.email, m.role, m.joined_at]),
        ),
      );
      // The shape of E4's GET /teams/{team}, without the caller's role: the operator is no member.
      return { json: { data: team, members }, text: `${teamFields(team)}\n\n${memberLines}` };
    },
  );

  readCommand(
    program
      .command('tokens:list')
      .description("list a user's personal access tokens (never their secret)")
      .addOption(requiredOption('--email <email>', 'email address of the user')),
    async (overview, opts: { email: string }) => {
      const tokens = await overview.listTokens(opts.email);
      const text = tableOr(tokens, `No tokens for ${opts.email}.`, (tokens) =>
        formatTable(
          ['ID', 'NAME', 'ABILITIES', 'LAST USED AT', 'EXPIRES AT', 'CREATED AT'],
          tokens.map((t) => [t.id, t.name, t.abilities.join(','), t.last_used_at, t.expires_at, t.created_at]),
        ),
      );
      return { json: { data: tokens }, text };
    },
  );
}

type Overview = ReturnType<typeof createAccountsOverview>;

/**
 * Gives `command` the `--json` option (after its own) and its action: `read` on the accounts
 * overview, whose `json` is printed with `--json` and whose `text` is printed without.
 */
function readCommand<Opts extends object>(
  command: Command,
  read: (overview: Overview, opts: Opts) => Promise<{ json: unknown; text: string }>,
): void {
  command.option('--json', 'print the result as JSON').action((opts: Opts & { json?: boolean }) =>
    withMigratedDatabase(async (db) => {
      const { json, text } = await read(operatorFeatures(db, systemClock).overview, opts);
      print(opts.json, json, text);
    }),
  );
}

/** `table(rows)`, or `none` when there are no rows. */
function tableOr<T>(rows: T[], none: string, table: (rows: T[]) => string): string {
  return rows.length ? table(rows) : none;
}

/** A user's columns in `users:list`, and (in lower case) their fields in `users:show`. */
const USER_COLUMNS: ReadonlyArray<readonly [string, (user: UserOverview) => Cell]> = [
  ['ID', (u) => u.id],
  ['EMAIL', (u) => u.email],
  ['NAME', (u) => u.name],
  ['PLAN', (u) => u.plan],
  ['CURRENT TEAM', (u) => u.current_team_id],
  ['TOKENS', (u) => u.token_count],
  ['CREATED AT', (u) => u.created_at],
];

function usersTable(users: UserOverview[]): string {
  return formatTable(
    USER_COLUMNS.map(([header]) => header),
    users.map((user) => USER_COLUMNS.map(([, value]) => value(user))),
  );
}

function userFields(user: UserOverview): string {
  return formatFields(USER_COLUMNS.map(([header, value]) => [header.toLowerCase(), value(user)]));
}

function teamsTable(teams: TeamOverview[]): string {
  return formatTable(
    ['ID', 'NAME', 'OWNER ID', 'OWNER EMAIL', 'MEMBERS', 'PROJECTS', 'CREATED AT'],
    teams.map((t) => [t.id, t.name, t.owner_id, t.owner_email, t.member_count, t.project_count, t.created_at]),
  );
}

function teamFields(team: TeamOverview): string {
  return formatFields([
    ['id', team.id],
    ['name', team.name],
    ['owner', team.owner_id === null ? null : `${team.owner_id} (${team.owner_email})`],
    ['members', team.member_count],
    ['projects', team.project_count],
    ['created at', team.created_at],
  ]);
}
