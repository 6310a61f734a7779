/**
 * E4 as the tests of this folder see it: the fixed texts a client relies on, calls of the E4
 * endpoints, teams built with members of each role, and direct reads of what is stored (members,
 * invitations, audit events) to check the state a request left behind.
 */
import { sharedAppTest } from '../helpers/app-fixture.js';
import type { LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import type { Ability } from '../../src/auth/abilities.js';
import type { TeamRole } from '../../src/db/schema.js';
import { expectError, expectValidationError } from '../helpers/contract.js';
import { type TestContext, type TestUser, listenOnLoopback, tokenIdOf } from '../helpers/test-app.js';

// E4's 403s (D3 `Forbidden` with a message that names what is missing).
export const NEEDS_OWNER_OR_ADMIN = { error: 'Forbidden', message: 'This action requires the owner or admin role in this team.' } as const;
export const NEEDS_OWNER = { error: 'Forbidden', message: 'This action requires the owner role in this team.' } as const;
export const ADMIN_LIMIT = { error: 'Forbidden', message: 'An admin may not change or remove the owner or another admin.' } as const;
export const OWNER_STAYS = { error: 'Forbidden', message: 'The team owner cannot leave or be removed. Transfer the team first.' } as const;
export const OWNER_ROLE_BY_TRANSFER = { error: 'Forbidden', message: 'The owner role changes only by transferring the team.' } as const;
export const PERSONAL_TEAM_KEPT = { error: 'Forbidden', message: 'A personal team cannot be deleted.' } as const;
export const PERSONAL_TEAM_STAYS = { error: 'Forbidden', message: 'A personal team cannot be transferred.' } as const;
export const NEEDS_TEAM_PLAN = { error: 'Forbidden', message: 'Creating a team requires a Business or Enterprise plan.' } as const;

// E4's 422 field messages.
export const ROLE_INVALID = 'The selected role is invalid.';
export const ALREADY_MEMBER = 'This user is already a member of the team.';
export const NOT_ANOTHER_MEMBER = 'The user id must be another member of the team.';
export const EMAIL_INVALID = 'The email must be a valid email address.';
export const NAME_REQUIRED = 'The name field is required.';
export const NAME_TOO_LONG = 'The name may not be greater than 255 characters.';

// E4's success messages.
export const TEAM_CREATED = 'Team created successfully.';
export const TEAM_DELETED = 'Team deleted successfully.';
export const INVITATION_CREATED = 'Invitation created successfully.';
export const INVITATION_CANCELLED = 'Invitation cancelled successfully.';
export const INVITATION_DECLINED = 'Invitation declined successfully.';
export const MEMBER_REMOVED = 'Member removed successfully.';
export const LEFT_TEAM = 'You have left the team.';

export const DAY_MS = 24 * 60 * 60 * 1000;
export const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

export const ROLES: readonly TeamRole[] = ['owner', 'admin', 'member', 'readonly'];

/** A 403 `Forbidden` whose message is one of `messages` (where two E4 rules forbid the same request). */
export function expectForbiddenOneOf(response: LightMyRequestResponse, messages: readonly string[]): void {
  expect(response.statusCode, response.body).toBe(403);
  const body = response.json();
  expect(Object.keys(body).sort()).toEqual(['error', 'message']);
  expect(body.error).toBe('Forbidden');
  expect(messages).toContain(body.message);
}

/** A 422 on exactly `field`, with `message` among its messages. */
export function expectFieldError(response: LightMyRequestResponse, field: string, message?: string): void {
  expectValidationError(response, [field], message === undefined ? {} : { [field]: message });
}

export { expectError };

/** The E4 endpoints, called with `inject` as `token`. */
export function e4(ctx: TestContext) {
  const call = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, token: string | undefined, body?: unknown) =>
    ctx.request({ method, url: `/api/v1${url}`, token, body });
  return {
    call,
    profile: (token: string) => call('GET', '/user', token),
    updateProfile: (token: string, body: unknown) => call('PUT', '/user', token, body),
    switchTeam: (token: string, body: unknown) => call('PUT', '/user/current-team', token, body),
    teams: (token: string) => call('GET', '/teams', token),
    createTeam: (token: string, body: unknown) => call('POST', '/teams', token, body),
    show: (token: string, team: number | string) => call('GET', `/teams/${team}`, token),
    rename: (token: string, team: number | string, body: unknown) => call('PUT', `/teams/${team}`, token, body),
    deleteTeam: (token: string, team: number | string) => call('DELETE', `/teams/${team}`, token),
    invite: (token: string, team: number | string, body: unknown) => call('POST', `/teams/${team}/invitations`, token, body),
    teamInvitations: (token: string, team: number | string) => call('GET', `/teams/${team}/invitations`, token),
    cancel: (token: string, team: number | string, id: number | string) => call('DELETE', `/teams/${team}/invitations/${id}`, token),
    setRole: (token: string, team: number | string, user: number | string, body: unknown) =>
      call('PUT', `/teams/${team}/members/${user}`, token, body),
    remove: (token: string, team: number | string, user: number | string) => call('DELETE', `/teams/${team}/members/${user}`, token),
    transfer: (token: string, team: number | string, body: unknown) => call('POST', `/teams/${team}/transfer`, token, body),
    myInvitations: (token: string) => call('GET', '/invitations', token),
    accept: (token: string, id: number | string) => call('POST', `/invitations/${id}/accept`, token),
    decline: (token: string, id: number | string) => call('POST', `/invitations/${id}/decline`, token),
  };
}

export interface SharedTeam {
  id: number;
  owner: TestUser;
  /** One user per role given, each with the team as current team. */
  members: Partial<Record<Exclude<TeamRole, 'owner'>, TestUser>>;
}

/**
 * A shared (not personal) team owned by a new enterprise user, with one new member per role in
 * `roles` (the team becomes each one's current team). Enterprise plans: a generous D8 budget.
 */
export async function sharedTeam(
  ctx: TestContext,
  roles: readonly Exclude<TeamRole, 'owner'>[] = [],
  name = 'Shared',
): Promise<SharedTeam> {
  const owner = await ctx.given.user({ plan: 'enterprise' });
  const id = await ctx.given.team(owner, name);
  const members: SharedTeam['members'] = {};
  for (const role of roles) {
    const user = await ctx.given.user({ plan: 'enterprise' });
    await ctx.given.member(id, user, role);
    members[role] = user;
  }
  return { id, owner, members };
}

/** A new enterprise user who is `role` in `teamId` (current team), with a token of `abilities` if given. */
export async function memberOf(ctx: TestContext, teamId: number, role: TeamRole, abilities?: Ability[]): Promise<TestUser> {
  const user = await ctx.given.user({ plan: 'enterprise', ...(abilities ? { abilities } : {}) });
  await ctx.given.member(teamId, user, role);
  return user;
}

/** The stored memberships of a team, as `{user_id: role}`. */
export async function membershipsOf(ctx: TestContext, teamId: number): Promise<Record<number, TeamRole>> {
  const rows = await ctx.db.selectFrom('team_members').select(['user_id', 'role']).where('team_id', '=', teamId).execute();
  return Object.fromEntries(rows.map((row) => [row.user_id, row.role]));
}

export async function roleOf(ctx: TestContext, teamId: number, userId: number): Promise<TeamRole | null> {
  const row = await ctx.db
    .selectFrom('team_members')
    .select('role')
    .where('team_id', '=', teamId)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return row?.role ?? null;
}

export async function currentTeamOf(ctx: TestContext, userId: number): Promise<number | null> {
  return (await ctx.db.selectFrom('users').select('current_team_id').where('id', '=', userId).executeTakeFirstOrThrow()).current_team_id;
}

export async function invitationRows(ctx: TestContext, teamId: number) {
  return ctx.db.selectFrom('team_invitations').selectAll().where('team_id', '=', teamId).orderBy('id').execute();
}

export interface StoredEvent {
  id: number;
  action: string;
  actor_type: string;
  actor_id: number | null;
  actor_token_id: number | null;
  target_type: string;
  target_id: string | null;
  team_id: number | null;
  details: Record<string, unknown>;
}

/**
 * The audit events stored (E5), oldest first, optionally only those of an action, a team, an actor,
 * a target or a kind of actor (`user` leaves out what the factories wrote, as the operator command).
 */
export async function auditEvents(
  ctx: TestContext,
  filter: { action?: string; teamId?: number; actorId?: number; targetId?: number | string; actorType?: 'user' | 'operator' } = {},
): Promise<StoredEvent[]> {
  const rows = await ctx.db
    .selectFrom('audit_events')
    .selectAll()
    .$if(filter.actorType !== undefined, (query) => query.where('actor_type', '=', filter.actorType!))
    .$if(filter.action !== undefined, (query) => query.where('action', '=', filter.action!))
    .$if(filter.teamId !== undefined, (query) => query.where('team_id', '=', filter.teamId!))
    .$if(filter.actorId !== undefined, (query) => query.where('actor_id', '=', filter.actorId!))
    .$if(filter.targetId !== undefined, (query) => query.where('target_id', '=', String(filter.targetId!)))
    .orderBy('id')
    .execute();
  return rows.map((row) => ({
    id: row.id,
    action: row.action,
    actor_type: row.actor_type,
    actor_id: row.actor_id,
    actor_token_id: row.actor_token_id,
    target_type: row.target_type,
    target_id: row.target_id,
    team_id: row.team_id,
    details: JSON.parse(row.details) as Record<string, unknown>,
  }));
}

/** The id of the newest audit event, to look only at what a request adds after it. */
export async function lastEventId(ctx: TestContext): Promise<number> {
  const row = await ctx.db.selectFrom('audit_events').select('id').orderBy('id', 'desc').limit(1).executeTakeFirst();
  return row?.id ?? 0;
}

/** The events written after `since` (see lastEventId), oldest first. */
export async function eventsSince(ctx: TestContext, since: number): Promise<StoredEvent[]> {
  return (await auditEvents(ctx)).filter((event) => event.id > since);
}

/**
 * E5: exactly one event of `action` was written since `since`, by `actor` as a user (with the
 * token that made the request, its first token unless `tokenId` is given), about `teamId`.
 */
export async function expectOneEvent(
  ctx: TestContext,
  since: number,
  expected: { action: string; actor: TestUser; teamId: number | null; tokenId?: number; target?: { type: string; id: number | string } },
): Promise<StoredEvent> {
  const events = await eventsSince(ctx, since);
  expect(events.map((event) => event.action)).toEqual([expected.action]);
  const event = events[0]!;
  expect(event.actor_type).toBe('user');
  expect(event.actor_id).toBe(expected.actor.id);
  expect(event.actor_token_id).toBe(expected.tokenId ?? (await tokenIdOf(ctx, expected.actor)));
  expect(event.team_id).toBe(expected.teamId);
  if (expected.target)
    expect({ type: event.target_type, id: event.target_id }).toEqual({ type: expected.target.type, id: String(expected.target.id) });
  return event;
}

/** No audit event written since `since` (a refused request changes nothing, E5). */
export async function expectNoEvent(ctx: TestContext, since: number): Promise<void> {
  expect((await eventsSince(ctx, since)).map((event) => event.action)).toEqual([]);
}

/** Listens on a free local port and returns a `fetch` wrapper for the E4 paths (for races over real sockets). */
export async function listen(ctx: TestContext) {
  const port = await listenOnLoopback(ctx);
  return async (token: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> => {
    const response = await fetch(`http://127.0.0.1:${port}/api/v1${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: response.status, body: await response.json() };
  };
}

/** The teams tests' fixture: one app for the whole file (`ctx`), and `api`, E4's endpoints on it. */
export const teamsTest = sharedAppTest().extend('api', { scope: 'file' }, ({ ctx }) => e4(ctx));

/** `POST /projects` as `user` answers 201 and creates the project in `teamId` (the user's current team). */
export async function expectCreatesProjectIn(ctx: TestContext, user: TestUser, teamId: number, name: string): Promise<void> {
  const created = await ctx.request({
    method: 'POST',
    url: '/api/v1/projects',
    token: user.token,
    body: { name, framework_version: '11' },
  });
  expect(created.statusCode, created.body).toBe(201);
  expect(created.json().project.team_id).toBe(teamId);
}
