import { describe, expect } from 'vitest';
import { test as appTest } from '../helpers/app-fixture.js';
import { NO_TEAM, PROJECT_API_TOKEN, PROJECT_CREATED, expectJson, expectValidationError, sha256 } from '../helpers/contract.js';
import { CLOCK_START, EMPTY_SETTINGS, expectProjectShape, projectRow } from './project-expectations.js';

const it = appTest.extend(
  'create',
  ({ ctx, user }) =>
    (body: unknown, token = user.token) =>
      ctx.request({ method: 'POST', url: '/api/v1/projects', token, body }),
);

describe('POST /api/v1/projects', () => {
  describe('happy path', () => {
    it('returns 201 with {project, api_token, message} and stores the project in the current team (D18)', async ({ ctx, user, create }) => {
      const response = await create({
        name: 'Shop',
        description: 'The web shop',
        repository_url: 'https://github.com/acme/shop',
        framework_version: '11',
      });
      expect(response.statusCode).toBe(201);
      expectJson(response);
      const body = response.json();
      expect(Object.keys(body).sort()).toEqual(['api_token', 'message', 'project']);
      expect(body.message).toBe(PROJECT_CREATED);
      expect(body.api_token).toMatch(PROJECT_API_TOKEN);
      const project = expectProjectShape(body.project);
      expect(project).toEqual({
        id: project.id,
        name: 'Shop',
        description: 'The web shop',
        repository_url: 'https://github.com/acme/shop',
        framework_version: '11',
        team_id: user.teamId,
        archived_at: null,
        created_at: CLOCK_START,
        latest_report: null,
        settings: EMPTY_SETTINGS,
      });

      const row = await projectRow(ctx, project.id);
      expect(row).toMatchObject({
        team_id: user.teamId,
        name: 'Shop',
        description: 'The web shop',
        repository_url: 'https://github.com/acme/shop',
        framework_version: '11',
        archived_at: null,
        created_at: CLOCK_START,
        api_token_hash: sha256(body.api_token),
      });

      // The same project reads back identically, without any token.
      const read = await ctx.request({ method: 'GET', url: `/api/v1/projects/${project.id}`, token: user.token });
      expect(read.statusCode).toBe(200);
      expect(read.json()).toEqual({ data: project });
    });

    it('returns null for optional fields that were not given', async ({ create }) => {
      const response = await create({ name: 'Bare', framework_version: '9' });
      expect(response.statusCode).toBe(201);
      expect(response.json().project).toMatchObject({ description: null, repository_url: null, framework_version: '9' });
    });

    it.for([
      ['9', '9'],
      [9, '9'],
      ['10', '10'],
      [10, '10'],
      ['12', '12'],
      [13, '13'],
    ])('accepts framework_version %j and returns it as the string %s (D12)', async ([given, expected], { ctx, create }) => {
      const response = await create({ name: 'P', framework_version: given });
      expect(response.statusCode).toBe(201);
      expect(response.json().project.framework_version).toBe(expected);
      expect((await projectRow(ctx, response.json().project.id))?.framework_version).toBe(expected);
    });

    it('trims strings before storing them (D12)', async ({ ctx, create }) => {
      const response = await create({
        name: '  Shop  ',
        description: '\n desc \t',
        repository_url: '  https://example.com/repo  ',
        framework_version: '11',
      });
      expect(response.statusCode).toBe(201);
      const project = response.json().project;
      expect(project).toMatchObject({ name: 'Shop', description: 'desc', repository_url: 'https://example.com/repo' });
      expect(await projectRow(ctx, project.id)).toMatchObject({
        name: 'Shop',
        description: 'desc',
        repository_url: 'https://example.com/repo',
      });
    });

    it('treats a whitespace-only description as absent (D12)', async ({ create }) => {
      const response = await create({ name: 'P', description: '   ', framework_version: '11' });
      expect(response.statusCode).toBe(201);
      expect(response.json().project.description).toBeNull();
    });

    it('gives every project a distinct lowercase UUID v7 id and a distinct token (D10, D11)', async ({ create }) => {
      const first = (await create({ name: 'A', framework_version: '11' })).json();
      const second = (await create({ name: 'B', framework_version: '11' })).json();
      expect(first.project.id).not.toBe(second.project.id);
      expect(first.api_token).not.toBe(second.api_token);
    });

    it('creates in the current team after switching teams (D15)', async ({ ctx, user, create }) => {
      const other = await ctx.given.user();
      await ctx.given.member(other.teamId!, user, 'member');
      const response = await create({ name: 'In other team', framework_version: '11' });
      expect(response.statusCode).toBe(201);
      expect(response.json().project.team_id).toBe(other.teamId);
    });
  });

  describe('D10: the plain-text project API token is never stored', () => {
    it('stores only the SHA-256 of the api_token; the plain text is nowhere in the database', async ({ ctx, create }) => {
      const response = await create({ name: 'Secret', framework_version: '11' });
      expect(response.statusCode).toBe(201);
      const { api_token: apiToken, project } = response.json();
      expect((await projectRow(ctx, project.id))?.api_token_hash).toBe(sha256(apiToken));

      const stored = await ctx.store.everythingStored();
      expect(stored).not.toContain(apiToken);
      // Sanity: the store does hold the project (so the search above looks at real data).
      expect(stored).toContain(project.id);
    });
  });

  describe('validation (422)', () => {
    it('requires name and framework_version', async ({ create }) => {
      const response = await create({});
      expectValidationError(response, ['name', 'framework_version'], {
        name: 'The name field is required.',
        framework_version: 'The framework version field is required.',
      });
    });

    it('treats a whitespace-only name as missing (D12)', async ({ create }) => {
      expectValidationError(await create({ name: '   \t ', framework_version: '11' }), ['name'], {
        name: 'The name field is required.',
      });
    });

    it('rejects a name that is not a string, without coercion (D12)', async ({ create }) => {
      expectValidationError(await create({ name: 12345, framework_version: '11' }), ['name']);
    });

    it('counts name length in Unicode characters: 255 emoji are accepted (D12)', async ({ ctx, create }) => {
      const name = '😀'.repeat(255);
      const response = await create({ name, framework_version: '11' });
      expect(response.statusCode).toBe(201);
      expect(response.json().project.name).toBe(name);
      expect((await projectRow(ctx, response.json().project.id))?.name).toBe(name);
    });

    it('rejects 256 emoji and 256 ASCII characters as too long', async ({ create }) => {
      expectValidationError(await create({ name: '😀'.repeat(256), framework_version: '11' }), ['name'], {
        name: 'The name may not be greater than 255 characters.',
      });
      expectValidationError(await create({ name: 'a'.repeat(256), framework_version: '11' }), ['name'], {
        name: 'The name may not be greater than 255 characters.',
      });
      expect((await create({ name: 'a'.repeat(255), framework_version: '11' })).statusCode).toBe(201);
    });

    it('limits description to 1000 characters', async ({ create }) => {
      expect((await create({ name: 'P', description: 'd'.repeat(1000), framework_version: '11' })).statusCode).toBe(201);
      expectValidationError(await create({ name: 'P', description: 'd'.repeat(1001), framework_version: '11' }), ['description']);
      expectValidationError(await create({ name: 'P', description: 42, framework_version: '11' }), ['description']);
    });

    it.for(['not a url', 'ftp://x', 'javascript:alert(1)', 'mailto:dev@example.com', '/relative/path', 'example.com'])(
      'rejects repository_url %j: it must be an absolute http(s) URL (D12)',
      async (url, { create }) => {
        expectValidationError(await create({ name: 'P', repository_url: url, framework_version: '11' }), ['repository_url'], {
          repository_url: 'The repository url must be a valid URL.',
        });
      },
    );

    it('accepts http and https repository URLs up to 500 characters, and rejects 501', async ({ create }) => {
      const base = 'https://example.com/';
      const at500 = base + 'a'.repeat(500 - base.length);
      expect((await create({ name: 'P', repository_url: 'http://example.com', framework_version: '11' })).statusCode).toBe(201);
      expect((await create({ name: 'P', repository_url: at500, framework_version: '11' })).statusCode).toBe(201);
      expectValidationError(await create({ name: 'P', repository_url: `${at500}b`, framework_version: '11' }), ['repository_url']);
    });

    it.for([14, '8', 8, true, '11.0', 'eleven', null, 11.5])('rejects framework_version %j', async (version, { create }) => {
      expectValidationError(await create({ name: 'P', framework_version: version }), ['framework_version'], {
        framework_version: 'The selected framework version is invalid.',
      });
    });

    it('reports every invalid field, with message repeating the first one', async ({ create }) => {
      const response = await create({ name: 'x'.repeat(300), repository_url: 'ftp://x', framework_version: 14 });
      expectValidationError(response, ['name', 'repository_url', 'framework_version']);
    });

    it('stores nothing when validation fails', async ({ ctx, create }) => {
      await create({ name: '', framework_version: '11' });
      expect(await ctx.db.selectFrom('projects').selectAll().execute()).toEqual([]);
    });
  });

  describe('403 without a team (D3, D4)', () => {
    it('answers 403 to a user without a team', async ({ ctx, create }) => {
      const loner = await ctx.given.user({ withTeam: false });
      const response = await create({ name: 'P', framework_version: '11' }, loner.token);
      expect(response.statusCode).toBe(403);
      expectJson(response);
      expect(response.json()).toEqual(NO_TEAM);
      expect(await ctx.db.selectFrom('projects').selectAll().execute()).toEqual([]);
    });

    it('answers 403 before validating the body (D4 step 8 before 9)', async ({ ctx, create }) => {
      const loner = await ctx.given.user({ withTeam: false });
      const response = await create({ name: 12, framework_version: 99 }, loner.token);
      expect(response.statusCode).toBe(403);
      expect(response.json()).toEqual(NO_TEAM);
    });
  });

  describe('settings on create (api-v1 2.1: update only)', () => {
    it('ignores a settings object in the create body', async ({ ctx, create }) => {
      const response = await create({ name: 'P', framework_version: '11', settings: { fail_on: 'high', fail_threshold: 'x' } });
      expect(response.statusCode).toBe(201);
      expect(response.json().project.settings).toEqual(EMPTY_SETTINGS);
      expect(JSON.parse((await projectRow(ctx, response.json().project.id))!.settings)).toEqual(EMPTY_SETTINGS);
    });
  });

  describe('D5: server-owned fields in the body change nothing', () => {
    it('ignores id, team_id, api_token, archived_at, created_at and latest_report', async ({ ctx, user, create }) => {
      const other = await ctx.given.user();
      const forcedId = '01900000-0000-7000-8000-000000000001';
      const forcedToken = 'A'.repeat(40);
      const response = await create({
        name: 'Sneaky',
        framework_version: '11',
        id: forcedId,
        team_id: other.teamId,
        api_token: forcedToken,
        archived_at: '2020-01-01T00:00:00.000Z',
        created_at: '2020-01-01T00:00:00.000Z',
        latest_report: { id: 1, score: 100 },
      });
      expect(response.statusCode).toBe(201);
      const { project, api_token: apiToken } = response.json();
      expect(project.id).not.toBe(forcedId);
      expect(project).toMatchObject({ team_id: user.teamId, archived_at: null, created_at: CLOCK_START, latest_report: null });
      expect(apiToken).not.toBe(forcedToken);

      const rows = await ctx.db.selectFrom('projects').selectAll().execute();
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({
        id: project.id,
        team_id: user.teamId,
        archived_at: null,
        created_at: CLOCK_START,
        latest_report_id: null,
        api_token_hash: sha256(apiToken),
      });
      expect(await ctx.db.selectFrom('reports').selectAll().execute()).toEqual([]);
    });
  });
});
