import type { Command } from 'commander';
import type { createAccountsOverview, TeamOverview, UserOverview } from '../accounts/accounts.overview.js';
import { systemClock } from '../clock.js';
import { operatorFeatures } from '../operator-features.js';
import { parseId, print, requiredOption, withMigratedDatabase } from './command-support.js';
import { formatFields, formatTable } from './text-table.js';

/** The operator's read-only commands over users, teams and tokens (issue 14). They change nothing. */
export function addAccountReadCommands(program: Command): void {
  program
    .command('users:list')
    .description('list every user: plan, current team, token count')
    .option('--json', 'print the result as JSON')
    .action((opts: { json?: boolean }) =>
      withOverview(async (overview) => {
        const users = await overview.listUsers();
        print(opts.json, { data: users }, users.length ? usersTable(users) : 'No users.');
      }),
    );

  program
    .command('users:show')
    .description('show one user, their teams and token count')
    .addOption(requiredOption('--email <email>', 'email address of the user'))
    .option('--json', 'print the result as JSON')
    .action((opts: { email: string; json?: boolean }) =>
      withOverview(async (overview) => {
        const user = await overview.showUser(opts.email);
        const teams = user.teams.length
          ? formatTable(
              ['ID', 'NAME', 'ROLE'],
              user.teams.map((t) => [t.id, t.name, t.role]),
            )
          : 'No teams.';
        print(opts.json, { data: user }, `${userFields(user)}\n\n${teams}`);
      }),
    );

  program
    .command('teams:list')
    .description('list every team: owner, member and project counts')
    .option('--json', 'print the result as JSON')
    .action((opts: { json?: boolean }) =>
      withOverview(async (overview) => {
        const teams = await overview.listTeams();
        print(opts.json, { data: teams }, teams.length ? teamsTable(teams) : 'No teams.');
      }),
    );

  program
    .command('teams:show')
    .description('show one team and its members')
    .addOption(requiredOption('--team <id>', 'team id', parseId))
    .option('--json', 'print the result as JSON')
    .action((opts: { team: number; json?: boolean }) =>
      withOverview(async (overview) => {
        const { team, members } = await overview.showTeam(opts.team);
        const memberLines = members.length
          ? formatTable(
              ['ID', 'NAME', 'EMAIL', 'ROLE', 'JOINED AT'],
              members.map((m) => [m.id, m.name, m.email, m.role, m.joined_at]),
            )
          : 'No members.';
        // The shape of E4's GET /teams/{team}, without the caller's role: the operator is no member.
        print(opts.json, { data: team, members }, `${teamFields(team)}\n\n${memberLines}`);
      }),
    );

  program
    .command('tokens:list')
    .description("list a user's personal access tokens (never their secret)")
    .addOption(requiredOption('--email <email>', 'email address of the user'))
    .option('--json', 'print the result as JSON')
    .action((opts: { email: string; json?: boolean }) =>
      withOverview(async (overview) => {
        const tokens = await overview.listTokens(opts.email);
        const text = tokens.length
          ? formatTable(
              ['ID', 'NAME', 'ABILITIES', 'LAST USED AT', 'EXPIRES AT', 'CREATED AT'],
              tokens.map((t) => [t.id, t.name, t.abilities.join(','), t.last_used_at, t.expires_at, t.created_at]),
            )
          : `No tokens for ${opts.email}.`;
        print(opts.json, { data: tokens }, text);
      }),
    );
}

function withOverview(work: (overview: ReturnType<typeof createAccountsOverview>) => Promise<void>): Promise<void> {
  return withMigratedDatabase((db) => work(operatorFeatures(db, systemClock).overview));
}

function usersTable(users: UserOverview[]): string {
  return formatTable(
    ['ID', 'EMAIL', 'NAME', 'PLAN', 'CURRENT TEAM', 'TOKENS', 'CREATED AT'],
    users.map((u) => [u.id, u.email, u.name, u.plan, u.current_team_id, u.token_count, u.created_at]),
  );
}

function userFields(user: UserOverview): string {
  return formatFields([
    ['id', user.id],
    ['email', user.email],
    ['name', user.name],
    ['plan', user.plan],
    ['current team', user.current_team_id],
    ['tokens', user.token_count],
    ['created at', user.created_at],
  ]);
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
