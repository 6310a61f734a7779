import { describe, expect } from 'vitest';
import type { TeamRole } from '../../src/db/schema.js';
import { appTest } from '../helpers/app-fixture.js';
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

/** A fresh app for each test: `owner`'s team has a project (`projectId`) with a report; `call` sends one of the endpoints. */
const it = appTest({ project: { name: 'Team project', description: 'keep me' } })
  .extend('owner', ({ user }) => user)
  .extend('projectId', async ({ ctx, project }) => {
    await ctx.given.report(project.project.id);
    return project.project.id;
  })
  .extend(
    'call',
    ({ ctx }) =>
      (endpoint: Endpoint, id: string, token: string, body = endpoint.body) =>
        ctx.request({ method: endpoint.method, url: endpoint.path(id), token, body }),
  )
  /** A user of another team. */
  .extend('stranger', async ({ ctx }) => ctx.given.user({ plan: 'enterprise' }));

describe('project endpoints: teams, roles and 404s (D11, D15)', () => {
  describe.each(ROLES)('a team %s', (role) => {
    it.for(endpoints.map((e) => [e.name, e] as const))(
      '%s: allowed only for the roles of D15',
      async ([name, endpoint], { ctx, owner, projectId, call }) => {
        const user = await ctx.given.inRole(owner, role);
        const before = await projectRow(ctx, projectId);
        const response = await call(endpoint, projectId, user.token);
        if (allowed[name]!.includes(role)) {
          expect(response.statusCode, response.body).toBe(200);
        } else {
          expectNotFound(response);
          expect(await projectRow(ctx, projectId)).toEqual(before);
        }
      },
    );
  });

  describe('a user of another team', () => {
    it.for(endpoints.map((e) => [e.name, e] as const))(
      'gets 404 on %s and the project is unchanged',
      async ([, endpoint], { ctx, projectId, call, stranger }) => {
        const before = await projectRow(ctx, projectId);
        const reportsBefore = await ctx.db.selectFrom('reports').selectAll().execute();
        expectNotFound(await call(endpoint, projectId, stranger.token));
        expect(await projectRow(ctx, projectId)).toEqual(before);
        expect(await ctx.db.selectFrom('reports').selectAll().execute()).toEqual(reportsBefore);
      },
    );

    it('can view the project once a member of its team, even when that team is not current (D15)', async ({
      ctx,
      owner,
      projectId,
      stranger,
    }) => {
      // Viewing needs membership of the project's team (any role), not that it is the current team.
      await ctx.given.member(owner.teamId!, stranger, 'readonly', { makeCurrent: false });
      const response = await ctx.request({ method: 'GET', url: `/api/v1/projects/${projectId}`, token: stranger.token });
      expect(response.statusCode).toBe(200);
    });

    it('does not list the project', async ({ ctx, stranger }) => {
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
      it.for(missing)(`${endpoint.name}: 404 for %s`, async ([, id], { owner, call }) => {
        expectNotFound(await call(endpoint, id, owner.token));
      });
    }
  });

  describe('D4: the 404 comes before the 422 (step 7 before 9)', () => {
    const invalidBody = { name: 12, framework_version: 99, settings: 'x' };

    it('PUT with an invalid body to an unknown project is 404', async ({ owner, call }) => {
      expectNotFound(await call(endpoints[1]!, '01900000-0000-7000-8000-000000000001', owner.token, invalidBody));
    });

    it('PUT with an invalid body to a non-UUID project is 404', async ({ owner, call }) => {
      expectNotFound(await call(endpoints[1]!, 'nope', owner.token, invalidBody));
    });

    it("PUT with an invalid body to another team's project is 404", async ({ ctx, projectId, call }) => {
      const stranger = await ctx.given.user();
      expectNotFound(await call(endpoints[1]!, projectId, stranger.token, invalidBody));
    });

    it('PUT with an invalid body from a readonly member is 404', async ({ ctx, owner, projectId, call }) => {
      const reader = await ctx.given.user();
      await ctx.given.member(owner.teamId!, reader, 'readonly');
      expectNotFound(await call(endpoints[1]!, projectId, reader.token, invalidBody));
    });

    it('PUT with an invalid body from a member is 422', async ({ ctx, owner, projectId, call }) => {
      const member = await ctx.given.user();
      await ctx.given.member(owner.teamId!, member, 'member');
      expect((await call(endpoints[1]!, projectId, member.token, invalidBody)).statusCode).toBe(422);
    });
  });
});
