/**
 * D4 on the E4 endpoints: the first failing check answers, in this order —
 * 401 → 403 Subscription Required (D7: /teams* only, not /user* or /invitations*) → 403 ability (D6)
 * → 400/415 (body transport) → 404 (a `{team}`, `{user}` or `{id}` that is not a positive integer,
 * does not exist, or names a team the caller is not in) → 403 of role or state → 422.
 * So a readonly member sending an invalid body to a team-admin route gets 403, not 422, and a
 * non-member gets 404 even with an invalid body.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Ability } from '../../src/auth/abilities.js';
import { expectError, missingAbility, NOT_FOUND, SUBSCRIPTION_REQUIRED, UNAUTHENTICATED } from '../helpers/contract.js';
import { buildTestApp, type TestContext, type TestUser } from '../helpers/test-app.js';
import {
  ADMIN_LIMIT,
  e4,
  invitationRows,
  membershipsOf,
  NEEDS_OWNER,
  NEEDS_OWNER_OR_ADMIN,
  NEEDS_TEAM_PLAN,
  OWNER_ROLE_BY_TRANSFER,
  PERSONAL_TEAM_STAYS,
  sharedTeam,
  type SharedTeam,
} from './teams-world.js';

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';
interface Ids {
  team: number | string;
  user: number | string;
  id: number | string;
}
interface Route {
  method: Method;
  /** With `{team}`, `{user}`, `{id}` placeholders. */
  path: string;
  ability: Ability;
  subscription: boolean;
  valid?: unknown;
  invalid?: unknown;
}

const ROUTES: Route[] = [
  { method: 'GET', path: '/user', ability: 'read', subscription: false },
  { method: 'PUT', path: '/user', ability: 'write', subscription: false, valid: { name: 'N' }, invalid: { name: '' } },
  { method: 'PUT', path: '/user/current-team', ability: 'write', subscription: false, valid: { team_id: 1 }, invalid: { team_id: 'x' } },
  { method: 'GET', path: '/teams', ability: 'read', subscription: true },
  { method: 'POST', path: '/teams', ability: 'write', subscription: true, valid: { name: 'T' }, invalid: { name: '' } },
  { method: 'GET', path: '/teams/{team}', ability: 'read', subscription: true },
  { method: 'PUT', path: '/teams/{team}', ability: 'write', subscription: true, valid: { name: 'T' }, invalid: { name: 12 } },
  { method: 'DELETE', path: '/teams/{team}', ability: 'write', subscription: true },
  {
    method: 'POST',
    path: '/teams/{team}/invitations',
    ability: 'admin',
    subscription: true,
    valid: { email: 'order@example.com', role: 'member' },
    invalid: { email: 'nope', role: 'owner' },
  },
  { method: 'GET', path: '/teams/{team}/invitations', ability: 'read', subscription: true },
  { method: 'DELETE', path: '/teams/{team}/invitations/{id}', ability: 'admin', subscription: true },
  {
    method: 'PUT',
    path: '/teams/{team}/members/{user}',
    ability: 'admin',
    subscription: true,
    valid: { role: 'member' },
    invalid: { role: 'owner' },
  },
  { method: 'DELETE', path: '/teams/{team}/members/{user}', ability: 'admin', subscription: true },
  {
    method: 'POST',
    path: '/teams/{team}/transfer',
    ability: 'admin',
    subscription: true,
    valid: { user_id: 1 },
    invalid: { user_id: 'x' },
  },
  { method: 'GET', path: '/invitations', ability: 'read', subscription: false },
  { method: 'POST', path: '/invitations/{id}/accept', ability: 'write', subscription: false },
  { method: 'POST', path: '/invitations/{id}/decline', ability: 'write', subscription: false },
];

const label = (route: Route) => `${route.method} ${route.path}`;
const fill = (route: Route, ids: Ids) =>
  `/api/v1${route.path.replace('{team}', String(ids.team)).replace('{user}', String(ids.user)).replace('{id}', String(ids.id))}`;
const UNKNOWN = 2_000_000_000;
const hasBody = (route: Route) => route.valid !== undefined;

let ctx: TestContext;
let api: ReturnType<typeof e4>;
let team: SharedTeam;
let invitationId: number;
let invitee: TestUser;
/** What must stay as it is whatever these refused requests ask. */
let snapshot: () => Promise<unknown>;
beforeAll(async () => {
  ctx = await buildTestApp();
  api = e4(ctx);
  team = await sharedTeam(ctx, ['admin', 'member', 'readonly']);
  invitee = await ctx.given.user({ email: 'order-invitee@example.com' });
  const invited = await api.invite(team.owner.token, team.id, { email: invitee.email, role: 'member' });
  expect(invited.statusCode, invited.body).toBe(201);
  invitationId = invited.json().invitation.id;
  snapshot = async () => ({
    members: await membershipsOf(ctx, team.id),
    invitations: (await invitationRows(ctx, team.id)).map((row) => row.id),
  });
});
afterAll(async () => ctx.close());

const real = (): Ids => ({ team: team.id, user: team.members.member!.id, id: invitationId });
const send = (route: Route, token: string | undefined, ids: Ids, body?: unknown, remoteAddress?: string) =>
  ctx.request({ method: route.method, url: fill(route, ids), token, body, remoteAddress });

describe('step 3: 401 before anything else', () => {
  it.each(ROUTES.map((route, index) => [label(route), route, index] as const))('%s', async (_label, route, index) => {
    const before = await snapshot();
    // Unknown ids and an invalid body change nothing: no caller, 401. Each from its own address (D8: 10 a minute per IP).
    expectError(await send(route, undefined, real(), route.valid, `10.77.${index}.1`), 401, UNAUTHENTICATED);
    expectError(
      await send(route, undefined, { team: 'abc', user: UNKNOWN, id: 'x' }, route.invalid, `10.77.${index}.2`),
      401,
      UNAUTHENTICATED,
    );
    expectError(await send(route, 'service_notavalidtoken', real(), route.invalid, `10.77.${index}.3`), 401, UNAUTHENTICATED);
    expect(await snapshot()).toEqual(before);
  });
});

describe('step 4: 403 Subscription Required on /teams* only (D7)', () => {
  let lapsed: TestUser;
  let lapsedTeam: number;
  beforeAll(async () => {
    lapsed = await ctx.given.user({ plan: 'enterprise' });
    lapsedTeam = await ctx.given.team(lapsed, 'Lapsed');
    await ctx.given.plan(lapsed, null);
  });

  it.each(ROUTES.filter((route) => route.subscription).map((route) => [label(route), route] as const))(
    '%s: 403 before the ability, the ids and the body',
    async (_label, route) => {
      const readOnly = await ctx.given.token(lapsed, { abilities: ['read'], name: `read ${label(route)}` });
      const ids: Ids = { team: lapsedTeam, user: lapsed.id, id: UNKNOWN };
      expectError(await send(route, lapsed.token, ids, route.valid), 403, SUBSCRIPTION_REQUIRED);
      expectError(await send(route, lapsed.token, { team: 'abc', user: 'abc', id: 'abc' }, route.invalid), 403, SUBSCRIPTION_REQUIRED);
      expectError(
        await send(route, lapsed.token, { team: team.id, user: UNKNOWN, id: UNKNOWN }, route.invalid),
        403,
        SUBSCRIPTION_REQUIRED,
      );
      expectError(await send(route, readOnly, ids, route.invalid), 403, SUBSCRIPTION_REQUIRED);
    },
  );

  it.each(ROUTES.filter((route) => !route.subscription).map((route) => [label(route), route] as const))(
    '%s: never 403 Subscription Required',
    async (_label, route) => {
      const response = await send(route, lapsed.token, { team: lapsedTeam, user: lapsed.id, id: UNKNOWN }, route.valid);
      expect(response.json().error).not.toBe('Subscription Required');
      expect(response.statusCode).not.toBe(401);
      expect(response.statusCode).toBeLessThan(500);
    },
  );
});

describe('step 5: 403 for a token without the ability (D6), before 404 and 422', () => {
  const needing = (ability: Ability) => ROUTES.filter((route) => route.ability === ability);

  it.each([...needing('write'), ...needing('admin')].map((route) => [label(route), route] as const))(
    "%s: a read-only token gets the ability's 403, whatever the ids and body",
    async (_label, route) => {
      const reader = await ctx.given.token(team.owner, { abilities: ['read'], name: `reader ${label(route)}` });
      // Removing oneself takes write, anything else on that route admin.
      const self: Ids = { ...real(), user: team.owner.id };
      const needed = route.method === 'DELETE' && route.path.endsWith('{user}') ? 'write' : route.ability;
      const before = await snapshot();
      expectError(await send(route, reader, self, route.valid), 403, missingAbility(needed));
      expectError(
        await send(route, reader, { team: UNKNOWN, user: team.owner.id, id: UNKNOWN }, route.invalid),
        403,
        missingAbility(needed),
      );
      expectError(
        await send(route, reader, { team: 'abc', user: String(team.owner.id), id: 'abc' }, route.invalid),
        403,
        missingAbility(needed),
      );
      expect(await snapshot()).toEqual(before);
    },
  );

  it.each(needing('admin').map((route) => [label(route), route] as const))(
    "%s: a write-only token gets 403 'admin', whatever the ids and body",
    async (_label, route) => {
      const writer = await ctx.given.token(team.owner, { abilities: ['read', 'write'], name: `writer ${label(route)}` });
      const before = await snapshot();
      expectError(await send(route, writer, real(), route.valid), 403, missingAbility('admin'));
      expectError(await send(route, writer, { team: UNKNOWN, user: UNKNOWN, id: UNKNOWN }, route.invalid), 403, missingAbility('admin'));
      expectError(await send(route, writer, { team: 'abc', user: 'abc', id: 'abc' }, route.invalid), 403, missingAbility('admin'));
      expect(await snapshot()).toEqual(before);
    },
  );

  it('read-only tokens may call every read route', async () => {
    const reader = await ctx.given.token(team.owner, { abilities: ['read'], name: 'reader of reads' });
    for (const route of needing('read')) {
      const response = await send(route, reader, real());
      expect(response.statusCode, `${label(route)}: ${response.body}`).toBe(200);
    }
  });
});

describe('step 6: body transport before 404', () => {
  it('answers malformed JSON with 400 even on a team the caller is not in', async () => {
    const stranger = await ctx.given.user({ plan: 'enterprise' });
    for (const route of ROUTES.filter((route) => hasBody(route) && route.path.includes('{team}'))) {
      const response = await ctx.request({ method: route.method, url: fill(route, real()), token: stranger.token, body: '{"name": ' });
      expect(response.statusCode, `${label(route)}: ${response.body}`).toBe(400);
      expect(response.json().error).toBe('Bad Request');
    }
  });

  it('answers a body that is not JSON with 415 even on an unknown team', async () => {
    const response = await ctx.request({
      method: 'PUT',
      url: `/api/v1/teams/${UNKNOWN}`,
      token: team.owner.token,
      body: 'name=x',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(response.statusCode, response.body).toBe(415);
  });
});

describe('step 7: 404 before the role 403s and before 422', () => {
  const teamRoutes = ROUTES.filter((route) => route.path.includes('{team}'));

  it.each(teamRoutes.map((route) => [label(route), route] as const))(
    '%s: a non-member gets 404, even with an invalid body',
    async (_label, route) => {
      const stranger = await ctx.given.user({ plan: 'enterprise' });
      const before = await snapshot();
      expectError(await send(route, stranger.token, real(), route.valid), 404, NOT_FOUND);
      expectError(await send(route, stranger.token, real(), route.invalid), 404, NOT_FOUND);
      expectError(await send(route, stranger.token, { ...real(), user: stranger.id }, route.invalid), 404, NOT_FOUND);
      expect(await snapshot()).toEqual(before);
    },
  );

  it.each(teamRoutes.map((route) => [label(route), route] as const))(
    '%s: a `{team}` that is not a positive integer or does not exist is 404, even for a readonly member with an invalid body',
    async (_label, route) => {
      for (const caller of [team.owner, team.members.readonly!]) {
        for (const bad of ['abc', '0', '-1', '1.5', '1e3', ' 1', '0x10', '99999999999999999999', String(UNKNOWN)]) {
          const response = await send(route, caller.token, { ...real(), team: encodeURIComponent(bad) }, route.invalid);
          expectError(response, 404, NOT_FOUND);
        }
      }
    },
  );

  it('a `{user}` that is not a member (or not an integer) is 404 before the role 403 and the 422', async () => {
    const outsider = await ctx.given.user();
    const reader = team.members.readonly!;
    for (const user of [outsider.id, UNKNOWN, 'abc', '0', '-3']) {
      expectError(await api.setRole(reader.token, team.id, user, { role: 'owner' }), 404, NOT_FOUND);
      expectError(await api.setRole(team.owner.token, team.id, user, { role: 'owner' }), 404, NOT_FOUND);
      expectError(await api.remove(team.owner.token, team.id, user), 404, NOT_FOUND);
      expectError(await api.remove(team.members.admin!.token, team.id, user), 404, NOT_FOUND);
    }
  });

  it("an `{id}` that is not the team's pending invitation is 404 before the role 403", async () => {
    const other = await sharedTeam(ctx);
    const theirs = (await api.invite(other.owner.token, other.id, { email: 'theirs@example.com', role: 'member' })).json().invitation.id;
    for (const id of [theirs, UNKNOWN, 'abc', '0']) {
      expectError(await api.cancel(team.members.readonly!.token, team.id, id), 404, NOT_FOUND);
      expectError(await api.cancel(team.owner.token, team.id, id), 404, NOT_FOUND);
    }
  });

  it("an `{id}` of /invitations that is not an integer, unknown or not the caller's is 404", async () => {
    for (const id of ['abc', '0', '-1', '1.5', UNKNOWN, invitationId]) {
      expectError(await api.accept(team.members.member!.token, id), 404, NOT_FOUND);
      expectError(await api.decline(team.members.member!.token, id), 404, NOT_FOUND);
    }
  });

  it('PUT /user/current-team checks its body first (422), then the team it names (404)', async () => {
    const stranger = await ctx.given.user({ plan: 'enterprise' });
    const response = await api.switchTeam(stranger.token, { team_id: 'x' });
    expect(response.statusCode, response.body).toBe(422);
    expect(Object.keys(response.json().errors)).toEqual(['team_id']);
    expectError(await api.switchTeam(stranger.token, { team_id: team.id }), 404, NOT_FOUND);
    expectError(await api.switchTeam(stranger.token, { team_id: UNKNOWN }), 404, NOT_FOUND);
  });
});

describe('step 8: the role and state 403s before 422', () => {
  it('a readonly member with invalid bodies gets 403 on every owner/admin route, never 422', async () => {
    const reader = team.members.readonly!;
    const member = team.members.member!;
    const before = await snapshot();
    expectError(await api.rename(reader.token, team.id, { name: '' }), 403, NEEDS_OWNER_OR_ADMIN);
    expectError(await api.invite(reader.token, team.id, { email: 'bad', role: 'owner' }), 403, NEEDS_OWNER_OR_ADMIN);
    expectError(await api.invite(reader.token, team.id, {}), 403, NEEDS_OWNER_OR_ADMIN);
    expectError(await api.teamInvitations(reader.token, team.id), 403, NEEDS_OWNER_OR_ADMIN);
    expectError(await api.cancel(reader.token, team.id, invitationId), 403, NEEDS_OWNER_OR_ADMIN);
    expectError(await api.setRole(reader.token, team.id, member.id, { role: 'owner' }), 403, NEEDS_OWNER_OR_ADMIN);
    expectError(await api.setRole(reader.token, team.id, member.id, {}), 403, NEEDS_OWNER_OR_ADMIN);
    expectError(await api.remove(reader.token, team.id, member.id), 403, NEEDS_OWNER_OR_ADMIN);
    expectError(await api.transfer(reader.token, team.id, { user_id: 'x' }), 403, NEEDS_OWNER);
    expectError(await api.deleteTeam(reader.token, team.id), 403, NEEDS_OWNER);
    expect(await snapshot()).toEqual(before);
  });

  it('an admin with invalid bodies gets the owner-only 403s and the admin limit before 422', async () => {
    const admin = team.members.admin!;
    expectError(await api.transfer(admin.token, team.id, {}), 403, NEEDS_OWNER);
    expectError(await api.setRole(admin.token, team.id, team.owner.id, { role: 'nonsense' }), 403, ADMIN_LIMIT);
    expectError(await api.setRole(admin.token, team.id, team.owner.id, {}), 403, ADMIN_LIMIT);
  });

  it('the owner of a personal team transferring it with an invalid body gets the personal-team 403 before 422 (D34)', async () => {
    const personal = team.owner.teamId!;
    expectError(await api.transfer(team.owner.token, personal, { user_id: 'x' }), 403, PERSONAL_TEAM_STAYS);
    expectError(await api.transfer(team.owner.token, personal, {}), 403, PERSONAL_TEAM_STAYS);
    expect(await membershipsOf(ctx, personal)).toEqual({ [team.owner.id]: 'owner' });
  });

  it('the owner changing their own role with an invalid body gets the transfer 403 before 422', async () => {
    expectError(await api.setRole(team.owner.token, team.id, team.owner.id, { role: 'nonsense' }), 403, OWNER_ROLE_BY_TRANSFER);
  });

  it('POST /teams on a Solo Dev plan with an invalid body gets the plan 403', async () => {
    const solo = await ctx.given.user({ plan: 'solo' });
    expectError(await api.createTeam(solo.token, { name: '' }), 403, NEEDS_TEAM_PLAN);
    expectError(await api.createTeam(solo.token, {}), 403, NEEDS_TEAM_PLAN);
  });
});

describe('step 9: 422 last, for a caller allowed to act', () => {
  it.each(ROUTES.filter(hasBody).map((route) => [label(route), route] as const))(
    '%s: the owner with an invalid body gets 422',
    async (_label, route) => {
      const before = await snapshot();
      const response = await send(route, team.owner.token, real(), route.invalid);
      expect(response.statusCode, response.body).toBe(422);
      expect(response.json().error).toBe('Validation Failed');
      expect(await snapshot()).toEqual(before);
    },
  );
});

describe('D5: a known E4 path with an unsupported method', () => {
  it.each([
    ['PATCH', '/api/v1/user', ['GET', 'PUT']],
    ['DELETE', '/api/v1/teams', ['GET', 'POST']],
    ['PATCH', '/api/v1/teams/1', ['GET', 'PUT', 'DELETE']],
    ['GET', '/api/v1/teams/1/transfer', ['POST']],
    ['GET', '/api/v1/invitations/1/accept', ['POST']],
  ] as const)('%s %s: 405 with an Allow header naming the methods', async (method, url, allowed) => {
    const response = await ctx.request({ method, url, token: team.owner.token });
    expect(response.statusCode, response.body).toBe(405);
    expect(response.json().error).toBe('Method Not Allowed');
    const allow = String(response.headers.allow)
      .split(',')
      .map((m) => m.trim());
    for (const m of allowed) expect(allow).toContain(m);
  });
});
