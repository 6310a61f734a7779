/**
 * D15 as amended in E4: creating a project needs owner, admin or member in the current team; a
 * `readonly` member gets 403 `Forbidden` `Your role in this team does not allow creating projects.`,
 * a D4 step 8 check (after 404s, before the body's 422), and no project, token or count is made.
 */
import { describe, expect } from 'vitest';
import { sharedAppTest } from '../helpers/app-fixture.js';
import type { TeamRole } from '../../src/db/schema.js';
import { expectApiHeaders, expectError } from '../helpers/contract.js';
import type { TestUser } from '../helpers/test-app.js';

const it = sharedAppTest({ user: { plan: 'enterprise' } })
  .extend(
    'create',
    ({ ctx }) =>
      (user: TestUser, body: unknown = { name: 'Made', framework_version: '11' }) =>
        ctx.request({ method: 'POST', url: '/api/v1/projects', token: user.token, body }),
  )
  .extend(
    'inTeam',
    ({ ctx }) =>
      async () =>
        (await ctx.db.selectFrom('projects').select('name').where('team_id', '=', teamId).execute()).map((p) => p.name),
  )
  .extend(
    'teamCount',
    ({ ctx }) =>
      async () =>
        Number(
          (await ctx.db.selectFrom('teams').select('projects_count').where('id', '=', teamId).executeTakeFirstOrThrow()).projects_count,
        ),
  );

const ROLE_CANNOT_CREATE = { error: 'Forbidden', message: 'Your role in this team does not allow creating projects.' };

let teamId: number;
it.beforeAll(async ({ ctx, user: owner }) => {
  teamId = await ctx.given.team(owner, 'Shared');
});

describe('POST /api/v1/projects by role in the current team (D15 amended)', () => {
  it('answers a readonly member 403 with the role message, and creates nothing', async ({ ctx, create, inTeam, teamCount }) => {
    const reader = await ctx.given.user();
    await ctx.given.member(teamId, reader, 'readonly');
    const before = { projects: await inTeam(), count: await teamCount() };
    const response = await create(reader);
    expectApiHeaders(response);
    expectError(response, 403, ROLE_CANNOT_CREATE);
    expect({ projects: await inTeam(), count: await teamCount() }).toEqual(before);
  });

  it('answers the role 403 before validating the body (D4 step 8 before 9)', async ({ ctx, create }) => {
    const reader = await ctx.given.user();
    await ctx.given.member(teamId, reader, 'readonly');
    expectError(await create(reader, { name: '', framework_version: 99 }), 403, ROLE_CANNOT_CREATE);
  });

  it("lets the readonly member still read the team's projects", async ({ ctx }) => {
    const reader = await ctx.given.user();
    await ctx.given.member(teamId, reader, 'readonly');
    expect((await ctx.request({ method: 'GET', url: '/api/v1/projects', token: reader.token })).statusCode).toBe(200);
  });

  it.for(['owner', 'admin', 'member'] as const satisfies readonly TeamRole[])(
    'lets a %s create one, with its API token',
    async (role, { ctx, user: owner, create, inTeam }) => {
      const user = role === 'owner' ? owner : await ctx.given.user();
      if (role !== 'owner') await ctx.given.member(teamId, user, role);
      else await ctx.given.teams.setCurrentTeam(owner.id, teamId);
      const response = await create(user, { name: `By ${role}`, framework_version: '11' });
      expect(response.statusCode, response.body).toBe(201);
      expect(response.json().project.team_id).toBe(teamId);
      expect(await inTeam()).toContain(`By ${role}`);
    },
  );

  it('answers the no-team 403 to a user whose current team they no longer belong to', async ({ ctx, create }) => {
    const former = await ctx.given.user();
    await ctx.given.member(teamId, former, 'member');
    await ctx.db.deleteFrom('team_members').where('user_id', '=', former.id).where('team_id', '=', teamId).execute();
    expectError(await create(former), 403, { error: 'Forbidden', message: 'You must belong to a team to create projects.' });
  });
});
