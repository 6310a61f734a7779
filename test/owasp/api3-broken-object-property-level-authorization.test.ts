/**
 * OWASP API Security Top 10 (2023), API3: Broken Object Property Level Authorization.
 *
 * - Mass assignment: D5 says unknown body fields are ignored, never stored. Bodies that name the
 *   properties a caller must never set (ids, owners, token hashes, timestamps, the latest report,
 *   the archive state, the plan...) are accepted, and the stored rows prove none of them took effect.
 *   (test/http/transport.test.ts checks a handful of these fields; this is the full list, per table.)
 * - Excessive data exposure: every success answer of every endpoint (from the ENDPOINTS table, so a
 *   new endpoint is walked too) and of the client-package endpoints is walked key by key: no hash,
 *   password, secret or salt, no internal id of another table, ids only of objects the caller may
 *   see, and a plain-text token only where the contract shows it once (create, regenerate).
 */
import type { LightMyRequestResponse } from 'fastify';
import { describe, expect } from 'vitest';
import { appTest } from '../helpers/app-fixture.js';
import { decodeResults } from '../../src/reports/results/results-encoding.js';
import { expectError, expectValidationError, missingAbility, sha256 } from '../helpers/contract.js';
import { clientCall, minimalReport, upload } from '../helpers/client-wire.js';
import { ENDPOINTS } from '../helpers/endpoints.js';
import { EMPTY_SETTINGS } from '../projects/project-expectations.js';
import type { TestContext, TestUser } from '../helpers/test-app.js';

const LONG_AGO = '2001-01-01T00:00:00.000Z';
const FOREIGN_UUID = '0190a8f4-7c1d-7a4b-9f2e-3c5d6e7f8a00';
const PLANTED_TOKEN = 'P'.repeat(40);

/**
 * A fresh app for each test, with the caller (`user`) and, in every test, another user with a team,
 * a project, a report and tokens (`victim`): what a mass assignment would aim at, and objects the
 * walks below must never show.
 */
const it = appTest()
  .extend('victimWorld', { auto: true }, async ({ ctx }) => {
    const victim = await ctx.given.user({ plan: 'enterprise' });
    const victimProjectId = (await ctx.given.project(victim, { name: 'Victim' })).project.id;
    const victimReportId = (await ctx.given.report(victimProjectId)).id;
    return { victim, victimProjectId, victimReportId };
  })
  .extend('victim', ({ victimWorld }) => victimWorld.victim)
  .extend('victimProjectId', ({ victimWorld }) => victimWorld.victimProjectId)
  .extend('victimReportId', ({ victimWorld }) => victimWorld.victimReportId)
  .extend(
    'projectRow',
    ({ ctx }) =>
      (id: string) =>
        ctx.db.selectFrom('projects').selectAll().where('id', '=', id).executeTakeFirstOrThrow(),
  )
  /** What a mass assignment could also reach beside the project: teams, memberships, subscriptions. */
  .extend('accountRows', ({ ctx, victimProjectId, projectRow }) => async () => ({
    teams: await ctx.db.selectFrom('teams').selectAll().orderBy('id').execute(),
    members: await ctx.db.selectFrom('team_members').selectAll().orderBy('team_id').orderBy('user_id').execute(),
    subscriptions: await ctx.db.selectFrom('subscriptions').selectAll().orderBy('id').execute(),
    victimProject: await projectRow(victimProjectId),
  }));

/** Properties no body may set, with values that would be noticed if they were stored. */
const forbiddenProjectFields = (victim: TestUser, victimReportId: number) => ({
  id: FOREIGN_UUID,
  uuid: FOREIGN_UUID,
  team_id: victim.teamId,
  user_id: victim.id,
  owner_id: victim.id,
  api_token: PLANTED_TOKEN,
  api_token_hash: sha256(PLANTED_TOKEN),
  token_hash: sha256(PLANTED_TOKEN),
  created_at: LONG_AGO,
  updated_at: LONG_AGO,
  latest_report_id: victimReportId,
  latest_report: { id: victimReportId },
  archived: true,
  archived_at: LONG_AGO,
  last_used_at: LONG_AGO,
  projects_count: 999,
  role: 'owner',
  plan: 'enterprise',
  subscription: { plan: 'enterprise', status: 'active', ends_at: null },
});

describe('API3 mass assignment: properties a body may not set', () => {
  it("POST /projects: creates in the caller's team with its own id, token, timestamps and default state", async ({
    ctx,
    user,
    victim,
    victimReportId,
    projectRow,
    accountRows,
  }) => {
    const before = await accountRows();
    ctx.clock.advance(1_000);
    const response = await ctx.request({
      method: 'POST',
      url: '/api/v1/projects',
      token: user.token,
      body: { name: 'Shop', framework_version: '11', ...forbiddenProjectFields(victim, victimReportId), settings: { fail_on: 'low' } },
    });
    expect(response.statusCode, response.body).toBe(201);
    const { project, api_token } = response.json();
    const now = ctx.clock.now().toISOString();

    const row = await projectRow(project.id);
    expect(row).toEqual({
      id: project.id,
      team_id: user.teamId,
      name: 'Shop',
      description: null,
      repository_url: null,
      framework_version: '11',
      // D13: settings are set on update only.
      settings: expect.any(String),
      api_token_hash: sha256(api_token),
      // E2.2: a key of its own, not one a body could plant.
      badge_key: expect.stringMatching(/^[A-Za-z0-9]{32}$/),
      latest_report_id: null,
      // E9.3: no tracker until one is linked.
      tracker_connection_id: null,
      archived_at: null,
      created_at: now,
      updated_at: now,
    });
    expect(JSON.parse(row.settings)).toEqual(EMPTY_SETTINGS);
    expect(project.id).not.toBe(FOREIGN_UUID);
    expect(api_token).not.toBe(PLANTED_TOKEN);
    expect(await ctx.db.selectFrom('projects').select('id').where('id', '=', FOREIGN_UUID).executeTakeFirst()).toBeUndefined();

    // Nothing else moved: the caller's team counts exactly one more project, the rest is as it was.
    const after = await accountRows();
    const countOf = (rows: typeof before.teams) => rows.find((t) => t.id === user.teamId)!.projects_count;
    expect(countOf(after.teams)).toBe(countOf(before.teams) + 1);
    expect(after.teams.filter((t) => t.id !== user.teamId)).toEqual(before.teams.filter((t) => t.id !== user.teamId));
    expect({ ...after, teams: null }).toEqual({ ...before, teams: null });
  });

  it('PUT /projects/{project}: changes the named fields only, never ownership, token, timestamps, latest report or archive state', async ({
    ctx,
    user,
    victim,
    victimReportId,
    projectRow,
    accountRows,
  }) => {
    const { project } = await ctx.given.project(user, { name: 'Mine' });
    const before = await projectRow(project.id);
    const accountsBefore = await accountRows();
    ctx.clock.advance(1_000);
    const response = await ctx.request({
      method: 'PUT',
      url: `/api/v1/projects/${project.id}`,
      token: user.token,
      body: {
        name: 'Renamed',
        framework_version: '12',
        ...forbiddenProjectFields(victim, victimReportId),
        // Unknown settings keys are dropped too: the stored settings keep D14's five keys.
        settings: { fail_on: 'high', api_token: PLANTED_TOKEN, owner: victim.id, extra: true },
      },
    });
    expect(response.statusCode, response.body).toBe(200);

    const after = await projectRow(project.id);
    expect(after).toEqual({
      ...before,
      name: 'Renamed',
      framework_version: '12',
      settings: expect.any(String),
      updated_at: ctx.clock.now().toISOString(),
    });
    expect(JSON.parse(after.settings)).toEqual({ ...JSON.parse(before.settings), fail_on: 'high' });
    expect(await accountRows()).toEqual(accountsBefore);
  });

  it("POST /tokens: the token is the caller's, with fresh metadata, whatever the body says", async ({ ctx, user, victim }) => {
    const response = await ctx.request({
      method: 'POST',
      url: '/api/v1/tokens',
      token: user.token,
      body: {
        name: 'ci',
        abilities: ['read'],
        id: 1,
        user_id: victim.id,
        token_hash: sha256(PLANTED_TOKEN),
        plain_text_token: `service_${PLANTED_TOKEN}00000000`,
        last_used_at: LONG_AGO,
        created_at: LONG_AGO,
        expires_at: null,
        team_id: victim.teamId,
        plan: 'enterprise',
      },
    });
    expect(response.statusCode, response.body).toBe(201);
    const { token, plain_text_token } = response.json();
    const row = await ctx.db.selectFrom('personal_access_tokens').selectAll().where('id', '=', token.id).executeTakeFirstOrThrow();
    expect(row).toEqual({
      id: token.id,
      user_id: user.id,
      name: 'ci',
      token_hash: sha256(plain_text_token),
      abilities: '["read"]',
      last_used_at: null,
      expires_at: null,
      created_at: ctx.clock.now().toISOString(),
    });
    expect(plain_text_token).not.toContain(PLANTED_TOKEN);
    // The victim gained no token.
    const victimTokens = await ctx.db.selectFrom('personal_access_tokens').select('id').where('user_id', '=', victim.id).execute();
    expect(victimTokens).toHaveLength(1);
  });

  it('POST /tokens: abilities outside read/write/admin are refused (422), storing nothing', async ({ ctx, user }) => {
    const count = async () => (await ctx.db.selectFrom('personal_access_tokens').select('id').execute()).length;
    const before = await count();
    for (const abilities of [['superuser'], ['*'], ['ADMIN'], ['root'], ['read', 'owner']]) {
      const response = await ctx.request({ method: 'POST', url: '/api/v1/tokens', token: user.token, body: { name: 'x', abilities } });
      expectValidationError(response, [`abilities.${abilities.length - 1}`]);
    }
    expect(await count()).toBe(before);
  });

  it('POST /tokens: a token cannot mint one with abilities beyond its own (only admin creates tokens, D6)', async ({ ctx }) => {
    const writer = await ctx.given.user({ abilities: ['read', 'write'] });
    const before = await ctx.db.selectFrom('personal_access_tokens').select('id').where('user_id', '=', writer.id).execute();
    for (const abilities of [['admin'], ['read', 'write', 'admin'], ['read']]) {
      const response = await ctx.request({ method: 'POST', url: '/api/v1/tokens', token: writer.token, body: { name: 'up', abilities } });
      expectError(response, 403, missingAbility('admin'));
    }
    expect(await ctx.db.selectFrom('personal_access_tokens').select('id').where('user_id', '=', writer.id).execute()).toEqual(before);
  });

  it('uploads: the report gets its own id, uuid, project, timestamps and computed summary, whatever the body says', async ({
    ctx,
    user,
    victim,
    victimReportId,
    projectRow,
    accountRows,
  }) => {
    const { project, apiToken } = await ctx.given.project(user, { name: 'Uploads' });
    const projectBefore = await projectRow(project.id);
    const accountsBefore = await accountRows();
    const body = {
      ...minimalReport({ project_id: project.id }),
      id: victimReportId,
      uuid: FOREIGN_UUID,
      report_id: victimReportId,
      team_id: victim.teamId,
      api_token: PLANTED_TOKEN,
      created_at: LONG_AGO,
      score: 100,
      total: 999,
      passed: 999,
      total_issues: 0,
      issues_critical: 0,
      latest_report_id: victimReportId,
      archived_at: LONG_AGO,
    };
    const response = await upload(ctx, apiToken, body);
    expect(response.statusCode, response.body).toBe(201);
    const { report } = response.json();

    const row = await ctx.db.selectFrom('reports').selectAll().where('uuid', '=', report.uuid).executeTakeFirstOrThrow();
    expect(row).toMatchObject({
      project_id: project.id,
      created_at: ctx.clock.now().toISOString(),
      score: 50,
      total: 2,
      passed: 1,
      total_issues: 1,
    });
    expect(row.id).not.toBe(victimReportId);
    expect(row.uuid).not.toBe(FOREIGN_UUID);
    // The stored run context is what the client sent under `metadata`/`configuration`, not these fields.
    for (const stored of [JSON.stringify(decodeResults(row)), row.metadata, row.configuration ?? ''])
      expect(stored).not.toContain(PLANTED_TOKEN);
    expect(await projectRow(project.id)).toEqual({ ...projectBefore, latest_report_id: row.id });
    expect(await accountRows()).toEqual(accountsBefore);
    expect(await ctx.db.selectFrom('reports').select('id').where('uuid', '=', FOREIGN_UUID).executeTakeFirst()).toBeUndefined();
  });
});

describe('API3 no hidden properties in any answer', () => {
  const SECRET_KEY = /hash|password|secret|salt/i;
  /** Internal ids of other tables, or of people: never in an answer. */
  const FORBIDDEN_KEYS = ['user_id', 'owner_id', 'current_team_id', 'latest_report_id', 'subscription_id', 'token_id', 'email'];
  /** Where a plain-text token may appear: once, in the answer that issues it (api-v1 2.4, 2.5). */
  const TOKEN_KEYS: Record<string, string> = {
    'POST /projects': 'api_token',
    'POST /projects/{project}/regenerate-token': 'api_token',
    'POST /tokens': 'plain_text_token',
  };

  /** Every key path and leaf value of a JSON value. */
  function* walk(
    value: unknown,
    path: string[] = [],
  ): Generator<{ path: string[]; key: string; value: unknown; parent: Record<string, unknown> }> {
    if (Array.isArray(value)) {
      for (const [i, item] of value.entries()) yield* walk(item, [...path, String(i)]);
    } else if (value !== null && typeof value === 'object') {
      for (const [key, item] of Object.entries(value)) {
        yield { path: [...path, key], key, value: item, parent: value as Record<string, unknown> };
        yield* walk(item, [...path, key]);
      }
    }
  }

  /** Every 40-character alphanumeric window and every `service_…` token in a text: candidate plain-text tokens. */
  function tokenCandidates(text: string): string[] {
    const found: string[] = [...(text.match(/service_[A-Za-z0-9]{40}[0-9a-f]{8}/g) ?? [])];
    for (const run of text.match(/[A-Za-z0-9]{40,}/g) ?? []) {
      for (let i = 0; i + 40 <= run.length; i++) found.push(run.slice(i, i + 40));
    }
    return found;
  }

  /** The hashes stored right now: a candidate whose SHA-256 is one of them is a live plain-text token. */
  async function storedHashes(ctx: TestContext): Promise<Set<string>> {
    const tokens = await ctx.db.selectFrom('personal_access_tokens').select('token_hash as hash').execute();
    const projects = await ctx.db.selectFrom('projects').select('api_token_hash as hash').execute();
    return new Set([...tokens, ...projects].map((row) => row.hash));
  }

  /** What the caller may see: its teams, their projects, their reports and failed runs, its tokens, its teams' members. */
  async function visibleToCaller(ctx: TestContext, user: TestUser) {
    const teams = (await ctx.db.selectFrom('team_members').select('team_id').where('user_id', '=', user.id).execute()).map(
      (r) => r.team_id,
    );
    const projects = (await ctx.db.selectFrom('projects').select('id').where('team_id', 'in', teams).execute()).map((r) => r.id);
    const inProjects = async (table: 'reports' | 'run_failures') =>
      projects.length === 0 ? [] : await ctx.db.selectFrom(table).select(['id', 'uuid']).where('project_id', 'in', projects).execute();
    const tokens = (await ctx.db.selectFrom('personal_access_tokens').select('id').where('user_id', '=', user.id).execute()).map(
      (r) => r.id,
    );
    const people =
      teams.length === 0
        ? []
        : (await ctx.db.selectFrom('team_members').select('user_id').where('team_id', 'in', teams).execute()).map((r) => r.user_id);
    return { teams, projects, reports: await inProjects('reports'), failures: await inProjects('run_failures'), tokens, people };
  }

  /** Checks one answer; `issued` is the key that may carry a plain-text token, if any. */
  async function expectNothingHidden(
    { ctx, user }: { ctx: TestContext; user: TestUser },
    name: string,
    response: LightMyRequestResponse,
    issued?: string,
  ) {
    const body = response.json();
    const hashes = await storedHashes(ctx);
    const visible = await visibleToCaller(ctx, user);
    const where = (path: string[]) => `${name}: ${path.join('.')}`;

    for (const { path, key, value, parent } of walk(body)) {
      expect(key, where(path)).not.toMatch(SECRET_KEY);
      expect(FORBIDDEN_KEYS, where(path)).not.toContain(key);
      if (key === 'team_id') expect(visible.teams, where(path)).toContain(value);
      if (key === 'project_id' || (key === 'id' && typeof value === 'string')) expect(visible.projects, where(path)).toContain(value);
      if (key.endsWith('_id') && !['team_id', 'project_id', 'analyzer_id'].includes(key)) {
        throw new Error(`${where(path)}: an id property this test does not know; decide whether the caller may see it`);
      }
      if (key === 'id' && typeof value === 'number') {
        // An integer id names the object it sits in: a report or failed run (by its uuid), or a token of the caller.
        if (typeof parent.uuid === 'string') {
          const own = [...visible.reports, ...visible.failures].find((row) => row.uuid === parent.uuid);
          expect(own?.id, where(path)).toBe(value);
        } else if (Object.keys(parent).sort().join() === 'id,name') {
          // A person (E8.1's assignee, updated_by): someone in one of the caller's teams.
          expect(visible.people, where(path)).toContain(value);
        } else {
          expect(parent, where(path)).toHaveProperty('abilities');
          expect(visible.tokens, where(path)).toContain(value);
        }
      }
      if (typeof value === 'string') {
        // Neither a stored hash nor anything that hashes to one (a live plain-text token)...
        expect(hashes.has(value), `${where(path)} is a stored hash`).toBe(false);
        const live = tokenCandidates(value).filter((candidate) => hashes.has(sha256(candidate)));
        // ...except the one token this answer issues, under its documented key.
        if (issued !== undefined && path.length === 1 && key === issued) expect(live).toEqual([value]);
        else expect(live, `${where(path)} holds a plain-text token`).toEqual([]);
      }
    }
    if (issued !== undefined) expect(body[issued], `${name} issues its token`).toEqual(expect.any(String));
  }

  it("walks every /api/v1 endpoint's success answer (ENDPOINTS) and finds nothing hidden", async ({ ctx, user }) => {
    // The caller's project has a report, a failed run and an upload, so every shape is filled in.
    const { apiToken } = await ctx.given.project(user, { name: 'Full' });
    expect((await upload(ctx, apiToken, minimalReport())).statusCode).toBe(201);
    expect(
      (await clientCall(ctx, apiToken, { failure_reason: 'uncaught_exception', error_message: 'x' }, { url: '/api/reports/failure' }))
        .statusCode,
    ).toBe(201);
    const walked: string[] = [];
    for (const endpoint of ENDPOINTS) {
      const request = await endpoint.prepare(ctx, user);
      const response = await ctx.request({ ...request, token: user.token });
      expect(response.statusCode, `${endpoint.name}: ${response.body}`).toBe(endpoint.success);
      await expectNothingHidden({ ctx, user }, endpoint.name, response, TOKEN_KEYS[endpoint.name]);
      walked.push(endpoint.name);
    }
    // The endpoints that issue a token are in the table (else the exception above would be unused).
    for (const name of Object.keys(TOKEN_KEYS)) expect(walked).toContain(name);

    // The reads again, now that the lists, the latest report and the report detail are full.
    const projectId = (await ctx.db.selectFrom('projects').select('id').where('name', '=', 'Full').executeTakeFirstOrThrow()).id;
    const reportUuid = (await ctx.db.selectFrom('reports').select('uuid').where('project_id', '=', projectId).executeTakeFirstOrThrow())
      .uuid;
    for (const url of [
      '/api/v1/projects',
      `/api/v1/projects/${projectId}`,
      `/api/v1/projects/${projectId}/reports`,
      `/api/v1/projects/${projectId}/failures`,
      `/api/v1/reports/${reportUuid}`,
      '/api/v1/tokens',
    ]) {
      const response = await ctx.request({ method: 'GET', url, token: user.token });
      expect(response.statusCode).toBe(200);
      expect(response.body.length).toBeGreaterThan(60);
      await expectNothingHidden({ ctx, user }, `GET ${url}`, response);
    }
  });

  it('walks every client-package answer and finds nothing hidden: the project token is never echoed', async ({ ctx, user }) => {
    const { apiToken } = await ctx.given.project(user, { name: 'Client' });
    const calls: [string, Promise<LightMyRequestResponse>][] = [
      ['POST /api/reports', upload(ctx, apiToken, minimalReport())],
      ['POST /api/v1/reports', upload(ctx, apiToken, minimalReport(), { url: '/api/v1/reports' })],
      ['POST /api/reports/failure', clientCall(ctx, apiToken, { failure_reason: 'uncaught_exception' }, { url: '/api/reports/failure' })],
      ['GET /api/token/verify', clientCall(ctx, apiToken, undefined, { url: '/api/token/verify' })],
      ['GET /api/project', clientCall(ctx, apiToken, undefined, { url: '/api/project' })],
    ];
    for (const [name, pending] of calls) {
      const response = await pending;
      expect(response.statusCode, `${name}: ${response.body}`).toBeLessThan(300);
      await expectNothingHidden({ ctx, user }, name, response);
      expect(response.body).not.toContain(apiToken);
      expect(response.body).not.toContain(sha256(apiToken));
    }
  });

  it('walks error answers too: a validation error does not echo a token sent in the body', async ({ ctx, user }) => {
    const plain = user.token;
    const responses: [string, LightMyRequestResponse][] = [
      [
        'POST /tokens 422',
        await ctx.request({ method: 'POST', url: '/api/v1/tokens', token: user.token, body: { name: plain, abilities: [plain] } }),
      ],
      [
        'POST /projects 422',
        await ctx.request({
          method: 'POST',
          url: '/api/v1/projects',
          token: user.token,
          body: { name: plain.repeat(10), framework_version: plain },
        }),
      ],
    ];
    for (const [name, response] of responses) {
      expect(response.statusCode).toBe(422);
      await expectNothingHidden({ ctx, user }, name, response);
      expect(response.body).not.toContain(plain);
    }
  });

  it('is able to see a leak: the walker flags a plain-text token, a hash and an internal id', async ({
    ctx,
    user,
    victim,
    victimProjectId,
    victimReportId,
  }) => {
    // A self-check of the walker on fabricated answers, so a walker that sees nothing cannot pass.
    const fake = (body: unknown) => ({ json: () => body }) as unknown as LightMyRequestResponse;
    const hash = sha256(user.token);
    await expect(expectNothingHidden({ ctx, user }, 'fake', fake({ data: { note: `here: ${user.token}` } }))).rejects.toThrow();
    await expect(expectNothingHidden({ ctx, user }, 'fake', fake({ data: { value: hash } }))).rejects.toThrow();
    await expect(expectNothingHidden({ ctx, user }, 'fake', fake({ data: { token_hash: 'x' } }))).rejects.toThrow();
    await expect(expectNothingHidden({ ctx, user }, 'fake', fake({ data: { user_id: user.id } }))).rejects.toThrow();
    await expect(expectNothingHidden({ ctx, user }, 'fake', fake({ data: { team_id: victim.teamId } }))).rejects.toThrow();
    await expect(expectNothingHidden({ ctx, user }, 'fake', fake({ data: { id: victimProjectId } }))).rejects.toThrow();
    await expect(expectNothingHidden({ ctx, user }, 'fake', fake({ data: { id: victimReportId, uuid: FOREIGN_UUID } }))).rejects.toThrow();
    await expect(expectNothingHidden({ ctx, user }, 'fake', fake({ data: { ok: true } }))).resolves.toBeUndefined();
  });
});
