import { describe, expect } from 'vitest';
import { appTest } from '../helpers/app-fixture.js';
import { expectJson, expectValidationError } from '../helpers/contract.js';
import { CLOCK_START, EMPTY_SETTINGS, expectProjectShape, projectRow } from './project-expectations.js';

const it = appTest({
  user: { plan: 'enterprise' },
  project: { name: 'Shop', description: 'Original description', repository_url: 'https://github.com/acme/shop', framework_version: '10' },
})
  .extend(
    'put',
    ({ ctx, projectId, user }) =>
      (body: unknown) =>
        ctx.request({ method: 'PUT', url: `/api/v1/projects/${projectId}`, token: user.token, body }),
  )
  .extend(
    'get',
    ({ ctx, projectId, user }) =>
      async () =>
        (await ctx.request({ method: 'GET', url: `/api/v1/projects/${projectId}`, token: user.token })).json().data,
  );

describe('PUT /api/v1/projects/{project}', () => {
  const base = { name: 'Shop', framework_version: '10' };

  describe('happy path', () => {
    it('returns {data: project} with the changes, and GET reads the same', async ({ ctx, user, projectId, put, get }) => {
      ctx.clock.advance(60_000);
      const response = await put({
        name: 'Shop 2',
        framework_version: 12,
        description: 'New description',
        repository_url: 'http://gitlab.example.com/acme/shop',
      });
      expect(response.statusCode).toBe(200);
      expectJson(response);
      const body = response.json();
      expect(Object.keys(body)).toEqual(['data']);
      expect(expectProjectShape(body.data)).toEqual({
        id: projectId,
        name: 'Shop 2',
        description: 'New description',
        repository_url: 'http://gitlab.example.com/acme/shop',
        framework_version: '12',
        team_id: user.teamId,
        archived_at: null,
        created_at: CLOCK_START,
        latest_report: null,
        settings: EMPTY_SETTINGS,
      });
      expect(await get()).toEqual(body.data);
      expect(await projectRow(ctx, projectId)).toMatchObject({ name: 'Shop 2', framework_version: '12', created_at: CLOCK_START });
    });

    it('carries the latest report in the response', async ({ ctx, projectId, put }) => {
      const report = await ctx.given.report(projectId, { score: 55 });
      const response = await put(base);
      expect(response.statusCode).toBe(200);
      expect(response.json().data.latest_report).toMatchObject({ id: report.id, uuid: report.uuid, score: 55 });
    });

    it('trims strings, settings included (D12)', async ({ ctx, projectId, put }) => {
      const response = await put({
        name: '  Trimmed  ',
        framework_version: '11',
        description: ' d ',
        settings: { primary_tracker: 'jira', ticket_target_project_key: '  SHOP  ', ticket_target_project_name: ' Shop board ' },
      });
      expect(response.statusCode).toBe(200);
      expect(response.json().data).toMatchObject({
        name: 'Trimmed',
        description: 'd',
        settings: { primary_tracker: 'jira', ticket_target_project_key: 'SHOP', ticket_target_project_name: 'Shop board' },
      });
      const row = await projectRow(ctx, projectId);
      expect(row?.name).toBe('Trimmed');
      expect(JSON.parse(row!.settings)).toMatchObject({ ticket_target_project_key: 'SHOP', ticket_target_project_name: 'Shop board' });
    });
  });

  describe('D13: what PUT replaces, keeps and clears', () => {
    it('requires name and framework_version', async ({ put }) => {
      expectValidationError(await put({ description: 'x' }), ['name', 'framework_version'], {
        name: 'The name field is required.',
        framework_version: 'The framework version field is required.',
      });
      expectValidationError(await put({ name: 'Only name' }), ['framework_version']);
      expectValidationError(await put({ framework_version: '11' }), ['name']);
      expectValidationError(await put({ name: '   ', framework_version: '11' }), ['name']);
    });

    it('keeps description and repository_url when they are absent', async ({ ctx, projectId, put }) => {
      const response = await put({ name: 'Renamed', framework_version: '11' });
      expect(response.statusCode).toBe(200);
      expect(response.json().data).toMatchObject({
        name: 'Renamed',
        description: 'Original description',
        repository_url: 'https://github.com/acme/shop',
      });
      expect(await projectRow(ctx, projectId)).toMatchObject({
        description: 'Original description',
        repository_url: 'https://github.com/acme/shop',
      });
    });

    it('clears description and repository_url when they are null', async ({ ctx, projectId, put }) => {
      const response = await put({ ...base, description: null, repository_url: null });
      expect(response.statusCode).toBe(200);
      expect(response.json().data).toMatchObject({ description: null, repository_url: null });
      expect(await projectRow(ctx, projectId)).toMatchObject({ description: null, repository_url: null });
    });

    it('treats a whitespace-only description as absent, keeping the stored value (D12 + D13)', async ({ put }) => {
      const response = await put({ ...base, description: '   ' });
      expect(response.statusCode).toBe(200);
      expect(response.json().data.description).toBe('Original description');
    });

    it('merges settings: keys given replace, keys not given keep their value', async ({ put, get }) => {
      expect((await put({ ...base, settings: { fail_on: 'high', fail_threshold: 70 } })).statusCode).toBe(200);
      const response = await put({ ...base, settings: { fail_threshold: 80, ticket_target_project_name: 'Board' } });
      expect(response.statusCode).toBe(200);
      const expected = { ...EMPTY_SETTINGS, fail_on: 'high', fail_threshold: 80, ticket_target_project_name: 'Board' };
      expect(response.json().data.settings).toEqual(expected);
      expect((await get()).settings).toEqual(expected);
    });

    it('keeps all settings when settings is absent, and clears one key given as null', async ({ put }) => {
      await put({ ...base, settings: { fail_on: 'critical', fail_threshold: 10 } });
      expect((await put(base)).json().data.settings).toEqual({ ...EMPTY_SETTINGS, fail_on: 'critical', fail_threshold: 10 });
      const cleared = await put({ ...base, settings: { fail_on: null } });
      expect(cleared.json().data.settings).toEqual({ ...EMPTY_SETTINGS, fail_threshold: 10 });
    });

    it('leaves the stored project untouched when the body is invalid', async ({ ctx, projectId, put }) => {
      await put({ ...base, settings: { fail_on: 'low' } });
      const before = await projectRow(ctx, projectId);
      expectValidationError(await put({ name: 'New', framework_version: '11', description: 'd'.repeat(1001) }), ['description']);
      expectValidationError(await put({ name: 'New', framework_version: '11', settings: { primary_tracker: 'jira' } }), [
        'settings.ticket_target_project_key',
      ]);
      expect(await projectRow(ctx, projectId)).toEqual(before);
    });
  });

  describe('validation of the project fields (422)', () => {
    it.for<[Record<string, unknown>, string]>([
      [{ name: 12345 }, 'name'],
      [{ name: 'a'.repeat(256) }, 'name'],
      [{ name: '😀'.repeat(256) }, 'name'],
      [{ description: 'd'.repeat(1001) }, 'description'],
      [{ repository_url: 'ftp://x' }, 'repository_url'],
      [{ repository_url: 'javascript:alert(1)' }, 'repository_url'],
      [{ repository_url: 'not a url' }, 'repository_url'],
      [{ repository_url: `https://example.com/${'a'.repeat(481)}` }, 'repository_url'],
      [{ framework_version: 14 }, 'framework_version'],
      [{ framework_version: '8' }, 'framework_version'],
      [{ framework_version: true }, 'framework_version'],
    ])('rejects %j on field %s', async ([change, field], { put }) => {
      expectValidationError(await put({ ...base, ...change }), [field]);
    });

    it('accepts 255 emoji as a name (D12)', async ({ put }) => {
      const response = await put({ ...base, name: '😀'.repeat(255) });
      expect(response.statusCode).toBe(200);
      expect(response.json().data.name).toBe('😀'.repeat(255));
    });
  });

  describe('D14: settings validation', () => {
    it.for(['x', [], 5, true, null])('rejects settings %j because it is not an object', async (settings, { put }) => {
      expectValidationError(await put({ ...base, settings }), ['settings']);
    });

    it.for(['never', 'critical', 'high', 'medium', 'low', null])('accepts fail_on %j', async (value, { put }) => {
      const response = await put({ ...base, settings: { fail_on: value } });
      expect(response.statusCode).toBe(200);
      expect(response.json().data.settings.fail_on).toBe(value);
    });

    it.for(['severe', 'HIGH', 3, true])('rejects fail_on %j', async (value, { put }) => {
      expectValidationError(await put({ ...base, settings: { fail_on: value } }), ['settings.fail_on']);
    });

    it.for([0, 100, 50, null])('accepts fail_threshold %j', async (value, { put }) => {
      const response = await put({ ...base, settings: { fail_threshold: value } });
      expect(response.statusCode).toBe(200);
      expect(response.json().data.settings.fail_threshold).toBe(value);
    });

    it.for(['50', 101, -1, 50.5, true])('rejects fail_threshold %j (JSON integer 0..100, no coercion)', async (value, { put }) => {
      expectValidationError(await put({ ...base, settings: { fail_threshold: value } }), ['settings.fail_threshold']);
    });

    it.for(['internal', null])('accepts primary_tracker %j without a ticket key', async (value, { put }) => {
      const response = await put({ ...base, settings: { primary_tracker: value } });
      expect(response.statusCode).toBe(200);
      expect(response.json().data.settings.primary_tracker).toBe(value);
    });

    it.for(['jira', 'linear', 'github', 'gitlab'])('accepts ticket provider %s with a ticket key', async (provider, { put }) => {
      const response = await put({ ...base, settings: { primary_tracker: provider, ticket_target_project_key: 'KEY' } });
      expect(response.statusCode).toBe(200);
      expect(response.json().data.settings).toMatchObject({ primary_tracker: provider, ticket_target_project_key: 'KEY' });
    });

    it.for(['jira', 'linear', 'github', 'gitlab'])('requires ticket_target_project_key for provider %s', async (provider, { put }) => {
      expectValidationError(await put({ ...base, settings: { primary_tracker: provider } }), ['settings.ticket_target_project_key']);
    });

    it('treats a whitespace-only ticket key as missing (D12)', async ({ put }) => {
      expectValidationError(await put({ ...base, settings: { primary_tracker: 'jira', ticket_target_project_key: '   ' } }), [
        'settings.ticket_target_project_key',
      ]);
    });

    it.for(['trello', 'Jira', 1])('rejects primary_tracker %j', async (value, { put }) => {
      expectValidationError(await put({ ...base, settings: { primary_tracker: value } }), ['settings.primary_tracker']);
    });

    it('limits ticket_target_project_key to 100 and ticket_target_project_name to 255 characters', async ({ put }) => {
      expect((await put({ ...base, settings: { ticket_target_project_key: 'k'.repeat(100) } })).statusCode).toBe(200);
      expect((await put({ ...base, settings: { ticket_target_project_name: 'n'.repeat(255) } })).statusCode).toBe(200);
      expectValidationError(await put({ ...base, settings: { ticket_target_project_key: 'k'.repeat(101) } }), [
        'settings.ticket_target_project_key',
      ]);
      expectValidationError(await put({ ...base, settings: { ticket_target_project_name: 'n'.repeat(256) } }), [
        'settings.ticket_target_project_name',
      ]);
      expectValidationError(await put({ ...base, settings: { ticket_target_project_key: 42 } }), ['settings.ticket_target_project_key']);
    });

    it('keys every settings error by its dotted path', async ({ put }) => {
      const response = await put({ ...base, settings: { fail_on: 'x', fail_threshold: '50' } });
      expectValidationError(response, ['settings.fail_on', 'settings.fail_threshold']);
    });
  });

  describe('D5: unknown settings keys', () => {
    it('ignores them and never stores them', async ({ ctx, projectId, put }) => {
      const response = await put({ ...base, settings: { fail_on: 'low', colour: 'red', __proto__x: 1 } });
      expect(response.statusCode).toBe(200);
      expect(response.json().data.settings).toEqual({ ...EMPTY_SETTINGS, fail_on: 'low' });
      const stored = JSON.parse((await projectRow(ctx, projectId))!.settings);
      expect(Object.keys(stored).sort()).toEqual(Object.keys(EMPTY_SETTINGS).sort());
    });
  });

  describe('D13: settings are validated as a whole after the merge', () => {
    it('accepts a ticket provider when the key was stored by an earlier PUT', async ({ put }) => {
      expect((await put({ ...base, settings: { ticket_target_project_key: 'SHOP' } })).statusCode).toBe(200);
      const response = await put({ ...base, settings: { primary_tracker: 'jira' } });
      expect(response.statusCode).toBe(200);
      expect(response.json().data.settings).toEqual({ ...EMPTY_SETTINGS, primary_tracker: 'jira', ticket_target_project_key: 'SHOP' });
    });

    it('rejects clearing the key while a ticket provider is stored', async ({ put, get }) => {
      await put({ ...base, settings: { primary_tracker: 'linear', ticket_target_project_key: 'ENG' } });
      expectValidationError(await put({ ...base, settings: { ticket_target_project_key: null } }), ['settings.ticket_target_project_key']);
      expect((await get()).settings).toMatchObject({ primary_tracker: 'linear', ticket_target_project_key: 'ENG' });
    });

    it('allows switching to internal and keeps the stored key', async ({ put }) => {
      await put({ ...base, settings: { primary_tracker: 'github', ticket_target_project_key: 'acme/shop' } });
      const response = await put({ ...base, settings: { primary_tracker: 'internal' } });
      expect(response.statusCode).toBe(200);
      expect(response.json().data.settings).toMatchObject({ primary_tracker: 'internal', ticket_target_project_key: 'acme/shop' });
    });
  });

  describe('D5: server-owned fields in the body change nothing', () => {
    it('ignores id, team_id, api_token, archived_at, created_at and latest_report', async ({ ctx, user, projectId, put }) => {
      const other = await ctx.given.user();
      const report = await ctx.given.report(projectId);
      const before = await projectRow(ctx, projectId);
      const response = await put({
        ...base,
        id: '01900000-0000-7000-8000-000000000001',
        team_id: other.teamId,
        api_token: 'A'.repeat(40),
        archived_at: '2020-01-01T00:00:00.000Z',
        created_at: '2020-01-01T00:00:00.000Z',
        latest_report: null,
      });
      expect(response.statusCode).toBe(200);
      expect(response.json().data).toMatchObject({
        id: projectId,
        team_id: user.teamId,
        archived_at: null,
        created_at: CLOCK_START,
        latest_report: { id: report.id },
      });
      const after = await projectRow(ctx, projectId);
      expect(after).toMatchObject({
        id: projectId,
        team_id: user.teamId,
        api_token_hash: before!.api_token_hash,
        archived_at: null,
        created_at: CLOCK_START,
        latest_report_id: report.id,
      });
      expect(await ctx.db.selectFrom('projects').select('id').execute()).toEqual([{ id: projectId }]);
    });
  });
});
