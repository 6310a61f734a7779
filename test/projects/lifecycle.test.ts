import { describe, expect } from 'vitest';
import { appTest } from '../helpers/app-fixture.js';
import {
  API_TOKEN_REGENERATED,
  PROJECT_API_TOKEN,
  PROJECT_DELETED,
  expectJson,
  expectNotFound,
  missingAbility,
  sha256,
} from '../helpers/contract.js';
import { CLOCK_START, expectProjectShape, projectRow } from './project-expectations.js';

const it = appTest({ project: { name: 'Shop' } })
  .extend(
    'post',
    ({ ctx, projectId, user }) =>
      (action: string, token = user.token) =>
        ctx.request({ method: 'POST', url: `/api/v1/projects/${projectId}/${action}`, token }),
  )
  .extend(
    'get',
    ({ ctx, projectId, user }) =>
      (id = projectId) =>
        ctx.request({ method: 'GET', url: `/api/v1/projects/${id}`, token: user.token }),
  );

describe('project lifecycle: delete, regenerate-token, archive (D10, D17, D18)', () => {
  describe('DELETE /api/v1/projects/{project}', () => {
    it('answers {message}, removes the project and all its reports, and GET is 404 afterwards', async ({ ctx, user, projectId, get }) => {
      const other = (await ctx.given.project(user, { name: 'Keep' })).project.id;
      await ctx.given.report(projectId);
      await ctx.given.report(projectId);
      const kept = await ctx.given.report(other);

      const response = await ctx.request({ method: 'DELETE', url: `/api/v1/projects/${projectId}`, token: user.token });
      expect(response.statusCode).toBe(200);
      expectJson(response);
      expect(response.json()).toEqual({ message: PROJECT_DELETED });

      expect(await projectRow(ctx, projectId)).toBeUndefined();
      expect(await ctx.db.selectFrom('reports').select('project_id').where('project_id', '=', projectId).execute()).toEqual([]);
      // Other projects and their reports stay.
      expect(await projectRow(ctx, other)).toBeDefined();
      expect(await ctx.db.selectFrom('reports').select('id').execute()).toEqual([{ id: kept.id }]);

      expectNotFound(await get());
      expectNotFound(await ctx.request({ method: 'DELETE', url: `/api/v1/projects/${projectId}`, token: user.token }));
      const list = (await ctx.request({ method: 'GET', url: '/api/v1/projects', token: user.token })).json();
      expect(list.data.map((p: { id: string }) => p.id)).toEqual([other]);
    });

    it('deletes a project without reports', async ({ ctx, user, projectId }) => {
      const response = await ctx.request({ method: 'DELETE', url: `/api/v1/projects/${projectId}`, token: user.token });
      expect(response.statusCode).toBe(200);
      expect(await ctx.db.selectFrom('projects').selectAll().execute()).toEqual([]);
    });
  });

  describe('POST /api/v1/projects/{project}/regenerate-token', () => {
    it('answers {api_token, message} with a new 40-character token', async ({ apiToken, post }) => {
      const response = await post('regenerate-token');
      expect(response.statusCode).toBe(200);
      expectJson(response);
      const body = response.json();
      expect(Object.keys(body).sort()).toEqual(['api_token', 'message']);
      expect(body.message).toBe(API_TOKEN_REGENERATED);
      expect(body.api_token).toMatch(PROJECT_API_TOKEN);
      expect(body.api_token).not.toBe(apiToken);
    });

    it('replaces the stored hash: sha256 of the new token, no longer of the old one', async ({ ctx, projectId, apiToken, post }) => {
      expect((await projectRow(ctx, projectId))?.api_token_hash).toBe(sha256(apiToken));
      const fresh = (await post('regenerate-token')).json().api_token as string;
      const row = await projectRow(ctx, projectId);
      expect(row?.api_token_hash).toBe(sha256(fresh));
      expect(row?.api_token_hash).not.toBe(sha256(apiToken));
      const holders = await ctx.db.selectFrom('projects').select('id').where('api_token_hash', '=', sha256(apiToken)).execute();
      expect(holders).toEqual([]);
    });

    it('issues a different token every time', async ({ apiToken, post }) => {
      const tokens = new Set([apiToken]);
      for (let i = 0; i < 3; i++) tokens.add((await post('regenerate-token')).json().api_token);
      expect(tokens.size).toBe(4);
    });

    it('never stores the plain-text token in the database', async ({ ctx, post }) => {
      const fresh = (await post('regenerate-token')).json().api_token as string;
      const stored = await ctx.store.everythingStored();
      expect(stored).not.toContain(fresh);
      expect(stored).toContain(sha256(fresh));
    });

    it('changes nothing else about the project, and the token never appears in GET', async ({ post, get }) => {
      const before = (await get()).json().data;
      await post('regenerate-token');
      const after = (await get()).json();
      expect(after.data).toEqual(before);
      expect(JSON.stringify(after)).not.toContain('api_token');
    });
  });

  describe('POST /api/v1/projects/{project}/archive and /unarchive (D17)', () => {
    it('archive sets archived_at to the current time and answers {data: project}', async ({ ctx, projectId, post }) => {
      ctx.clock.advance(90_000);
      const response = await post('archive');
      expect(response.statusCode).toBe(200);
      expectJson(response);
      const body = response.json();
      expect(Object.keys(body)).toEqual(['data']);
      expect(expectProjectShape(body.data)).toMatchObject({
        id: projectId,
        name: 'Shop',
        archived_at: '2026-11-21T10:01:30.000Z',
        created_at: CLOCK_START,
      });
      expect((await projectRow(ctx, projectId))?.archived_at).toBe('2026-11-21T10:01:30.000Z');
    });

    it('keeps an archived project readable and listed', async ({ ctx, user, post, get }) => {
      await post('archive');
      const read = await get();
      expect(read.statusCode).toBe(200);
      expect(read.json().data.archived_at).toBe(CLOCK_START);
      const list = (await ctx.request({ method: 'GET', url: '/api/v1/projects', token: user.token })).json();
      expect(list.data).toEqual([read.json().data]);
    });

    it('unarchive clears archived_at and answers {data: project}', async ({ ctx, projectId, post, get }) => {
      await post('archive');
      ctx.clock.advance(1000);
      const response = await post('unarchive');
      expect(response.statusCode).toBe(200);
      expect(Object.keys(response.json())).toEqual(['data']);
      expect(expectProjectShape(response.json().data)).toMatchObject({ id: projectId, archived_at: null });
      expect((await projectRow(ctx, projectId))?.archived_at).toBeNull();
      expect((await get()).json().data.archived_at).toBeNull();
    });

    it('answers the project with its latest report', async ({ ctx, projectId, post }) => {
      const report = await ctx.given.report(projectId, { score: 42 });
      const response = await post('archive');
      expect(response.json().data.latest_report).toMatchObject({ id: report.id, score: 42 });
    });

    it('unarchiving an active project leaves it active', async ({ post }) => {
      const response = await post('unarchive');
      expect(response.statusCode).toBe(200);
      expect(response.json().data.archived_at).toBeNull();
    });

    it('needs the write ability: a read-only token gets 403, a write token succeeds (D6, D17)', async ({ ctx, user, projectId, post }) => {
      const readToken = await ctx.given.token(user, { abilities: ['read'] });
      const writeToken = await ctx.given.token(user, { abilities: ['write'] });
      for (const action of ['archive', 'unarchive']) {
        const denied = await post(action, readToken);
        expect(denied.statusCode).toBe(403);
        expect(denied.json()).toEqual(missingAbility('write'));
      }
      expect((await projectRow(ctx, projectId))?.archived_at).toBeNull();
      expect((await post('archive', writeToken)).statusCode).toBe(200);
      expect((await post('unarchive', writeToken)).statusCode).toBe(200);
    });

    it('gives a readonly member 404 on archive and unarchive, and changes nothing', async ({ ctx, user, projectId, post }) => {
      const reader = await ctx.given.user();
      await ctx.given.member(user.teamId!, reader, 'readonly');
      expectNotFound(await post('archive', reader.token));
      expect((await projectRow(ctx, projectId))?.archived_at).toBeNull();
      await post('archive');
      expectNotFound(await post('unarchive', reader.token));
      expect((await projectRow(ctx, projectId))?.archived_at).toBe(CLOCK_START);
    });
  });
});
