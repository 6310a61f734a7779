import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { TeamRole } from '../../src/db/schema.js';
import { buildTestApp, type TestContext, type TestUser } from '../helpers/test-app.js';
import { expectNotFound } from '../helpers/contract.js';
import { projectRow } from './project-expectations.js';

type Endpoint = { name: string; method: 'GET' | 'PUT' | 'DELETE' | 'POST'; path: (id: string) => string; body?: unknown };

const VALID_PUT = { name: 'Renamed', framework_version: '12' };
const endpoints: Endpoint[] = [
  { name: 'GET', method: 'GET', path: (id) => `/api/v1/projects/${id}` },
  { name: 'PUT', method: 'PUT', path: (id) => `/api/v1/projects/${id}`, body: VALID_PUT },
  { name: 'DELETE', method: 'DELETE', path: (id) => `/api/v1/projects/${id}` },
  { name: 'regenerate-token', method: 'POST', path: (id) => `/api/v1/projects/${id}/regenerate-token` },
  { name: 'archive', method: 'POST', path: (id) => `/api/v1/projects/${id}/archive` },
  { name: 'unarchive', method: 'POST', path: (id) => `/api/v1/projects/${id}/unarchive` },
];

// D15: view = any role; update/regenerate/archive = owner, admin, member; delete = owner, admin.
const allowed: Record<string, TeamRole[]> = {
  GET: ['owner', 'admin', 'member', 'readonly'],
  PUT: ['owner', 'admin', 'member'],
  'regenerate-token': ['owner', 'admin', 'member'],
  archive: ['owner', 'admin', 'member'],
  unarchive: ['owner', 'admin', 'member'],
  DELETE: ['owner', 'admin'],
};
const ROLES: TeamRole[] = ['owner', 'admin', 'member', 'readonly'];

describe('project endpoints: teams, roles and 404s (D11, D15)', () => {
  let ctx: TestContext;
  let owner: TestUser;
  let projectId: string;
  beforeEach(async () => {
    ctx = await buildTestApp();
    owner = await ctx.given.user();
    projectId = (await ctx.given.project(owner, { name: 'Team project', description: 'keep me' })).project.id;
    await ctx.given.report(projectId);
  });
  afterEach(async () => ctx.close());

  const call = (endpoint: Endpoint, id: string, token: string, body = endpoint.body) =>
    ctx.request({ method: endpoint.method, url: endpoint.path(id), token, body });

  describe.each(ROLES)('a team %s', (role) => {
    let user: TestUser;
    beforeEach(async () => {
      user = await ctx.given.inRole(owner, role);
    });

    it.each(endpoints.map((e) => [e.name, e] as const))('%s: allowed only for the roles of D15', async (name, endpoint) => {
      const before = await projectRow(ctx, projectId);
      const response = await call(endpoint, projectId, user.token);
      if (allowed[name]!.includes(role)) {
        expect(response.statusCode, response.body).toBe(200);
      } else {
        expectNotFound(response);
        expect(await projectRow(ctx, projectId)).toEqual(before);
      }
    });
  });

  describe('a user of another team', () => {
    let stranger: TestUser;
    beforeEach(async () => {
      stranger = await ctx.given.user({ plan: 'enterprise' });
    });

    it.each(endpoints.map((e) => [e.name, e] as const))('gets 404 on %s and the project is unchanged', async (_name, endpoint) => {
      const before = await projectRow(ctx, projectId);
      const reportsBefore = await ctx.db.selectFrom('reports').selectAll().execute();
      expectNotFound(await call(endpoint, projectId, stranger.token));
      expect(await projectRow(ctx, projectId)).toEqual(before);
      expect(await ctx.db.selectFrom('reports').selectAll().execute()).toEqual(reportsBefore);
    });

    it('can view the project once a member of its team, even when that team is not current (D15)', async () => {
      // Viewing needs membership of the project's team (any role), not that it is the current team.
      await ctx.given.member(owner.teamId!, stranger, 'readonly', { makeCurrent: false });
      const response = await ctx.request({ method: 'GET', url: `/api/v1/projects/${projectId}`, token: stranger.token });
      expect(response.statusCode).toBe(200);
    });

    it('does not list the project', async () => {
      const response = await ctx.request({ method: 'GET', url: '/api/v1/projects', token: stranger.token });
      expect(response.statusCode).toBe(200);
      expect(response.json().data).toEqual([]);
    });
  });

  describe('D11: {project} that is not a UUID, or an unknown UUID', () => {
    const missing = [
      ['not-a-uuid', 'not-a-uuid'],
      ['an integer id', '1'],
      ['a UUID with junk appended', '01900000-0000-7000-8000-000000000001x'],
      ['an unknown UUID v7', '01900000-0000-7000-8000-000000000001'],
      ['an unknown UUID v4', '3f0e2a5c-1b7d-4c8e-9a6f-2d4b8c1e7f90'],
    ] as const;

    for (const endpoint of endpoints) {
      it.each(missing)(`${endpoint.name}: 404 for %s`, async (_label, id) => {
        expectNotFound(await call(endpoint, id, owner.token));
      });
    }
  });

  describe('D4: the 404 comes before the 422 (step 7 before 9)', () => {
    const invalidBody = { name: 12, framework_version: 99, settings: 'x' };

    it('PUT with an invalid body to an unknown project is 404', async () => {
      expectNotFound(await call(endpoints[1]!, '01900000-0000-7000-8000-000000000001', owner.token, invalidBody));
    });

    it('PUT with an invalid body to a non-UUID project is 404', async () => {
      expectNotFound(await call(endpoints[1]!, 'nope', owner.token, invalidBody));
    });

    it("PUT with an invalid body to another team's project is 404", async () => {
      const stranger = await ctx.given.user();
      expectNotFound(await call(endpoints[1]!, projectId, stranger.token, invalidBody));
    });

    it('PUT with an invalid body from a readonly member is 404', async () => {
      const reader = await ctx.given.user();
      await ctx.given.member(owner.teamId!, reader, 'readonly');
      expectNotFound(await call(endpoints[1]!, projectId, reader.token, invalidBody));
    });

    it('PUT with an invalid body from a member is 422', async () => {
      const member = await ctx.given.user();
      await ctx.given.member(owner.teamId!, member, 'member');
      expect((await call(endpoints[1]!, projectId, member.token, invalidBody)).statusCode).toBe(422);
    });
  });
});
