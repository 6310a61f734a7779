/**
 * OWASP API Security Top 10 (2023), API1: Broken Object Level Authorization.
 *
 * Every endpoint that takes an object id in its path is driven from the ENDPOINTS table
 * (test/helpers/endpoints.ts), so an id-taking endpoint added there is attacked here too, and a path
 * parameter of a new kind fails this file until it is taught how to fill it in. The id of an object
 * the caller may not act on answers exactly like an id that never existed: 404 in the D3 envelope
 * (D11, D15; never 403, which would confirm the object exists), and nothing of the victim changes.
 *
 * Role-by-role permissions inside one team are in test/projects/permissions.test.ts; this file is
 * about ids of other teams, of other projects and of deleted objects.
 */
import { describe, expect } from 'vitest';
import { sharedAppTest } from '../helpers/app-fixture.js';
import { NOT_FOUND, expectApiHeaders, expectError } from '../helpers/contract.js';
import { clientCall, expectClientValidationError, minimalReport, storedRows, upload } from '../helpers/client-wire.js';
import { ENDPOINTS, MISSING_PROJECT, MISSING_REPORT, MISSING_TOKEN, type EndpointCase } from '../helpers/endpoints.js';
import type { TestUser } from '../helpers/test-app.js';

/** Numbers the worlds of this file's one app (names stay unique). */
let sequence = 0;

const it = sharedAppTest()
  .extend(
    'makeWorld',
    ({ ctx }) =>
      async function makeWorld(): Promise<World> {
        sequence += 1;
        // Enterprise: the attacks below never run into the user's own rate limit.
        const user = await ctx.given.user({ plan: 'enterprise' });
        const { project, apiToken } = await ctx.given.project(user, { name: `Project ${sequence}` });
        const report = await ctx.given.report(project.id);
        const failure = await clientCall(
          ctx,
          apiToken,
          { failure_reason: 'uncaught_exception', error_message: 'boom' },
          { url: '/api/reports/failure' },
        );
        expect(failure.statusCode, failure.body).toBe(201);
        const tokenName = `spare ${sequence}`;
        await ctx.given.token(user, { name: tokenName });
        const token = await ctx.db
          .selectFrom('personal_access_tokens')
          .select('id')
          .where('user_id', '=', user.id)
          .where('name', '=', tokenName)
          .executeTakeFirstOrThrow();
        return { user, apiToken, ids: { project: project.id, report: report.uuid, token: String(token.id) } };
      },
  )
  /**
   * Every row the endpoints could read or change. `last_used_at` is left out: the attacker's own
   * token records its use, which is not a change to anybody's objects.
   */
  .extend(
    'everything',
    ({ ctx }) =>
      async function everything() {
        return {
          projects: await ctx.db.selectFrom('projects').selectAll().orderBy('id').execute(),
          reports: await ctx.db.selectFrom('reports').selectAll().orderBy('id').execute(),
          failures: await ctx.db.selectFrom('run_failures').selectAll().orderBy('id').execute(),
          tokens: await ctx.db
            .selectFrom('personal_access_tokens')
            .select(['id', 'user_id', 'name', 'token_hash', 'abilities', 'expires_at', 'created_at'])
            .orderBy('id')
            .execute(),
          teams: await ctx.db.selectFrom('teams').selectAll().orderBy('id').execute(),
          members: await ctx.db.selectFrom('team_members').selectAll().orderBy('team_id').orderBy('user_id').execute(),
        };
      },
  )
  /** The request `endpoint` makes on `ids`, sent with `token` (with a body the endpoint would accept). */
  .extend(
    'attack',
    ({ ctx }) =>
      async function attack(endpoint: EndpointCase, ids: Ids, token: string) {
        return ctx.request({ method: endpoint.method, url: urlOf(endpoint, ids), token, body: endpoint.body });
      },
  )
  /** The answer is the exact 404 of D3, with D8's headers, and says no more than a missing id would. */
  .extend(
    'expectSameAsMissing',
    ({ attack }) =>
      async function expectSameAsMissing(endpoint: EndpointCase, response: Awaited<ReturnType<typeof attack>>, token: string) {
        expectError(response, 404, NOT_FOUND);
        expectApiHeaders(response);
        const missing = await attack(endpoint, MISSING, token);
        expect(missing.statusCode).toBe(404);
        expect(response.body).toBe(missing.body);
      },
  )
  /** Rows and latest reports of both projects, to show nothing of either changed. */
  .extend(
    'state',
    ({ ctx, everything }) =>
      async function state(a: World, b: World) {
        const latest = async (id: string) =>
          await ctx.db.selectFrom('projects').select(['latest_report_id', 'updated_at']).where('id', '=', id).executeTakeFirstOrThrow();
        return { rows: await storedRows(ctx), a: await latest(a.ids.project), b: await latest(b.ids.project), all: await everything() };
      },
  );

/** The endpoints whose path names an object: `/projects/:project`, `/reports/:report`, `/tokens/:token`... */
const ID_ENDPOINTS = ENDPOINTS.filter((endpoint) => endpoint.path.includes(':'));

/** The ids a path parameter can take, for one owner's objects. */
type Ids = Record<'project' | 'report' | 'token', string>;

/** One user's objects: a project with a report and a failed run, and a spare personal access token. */
interface World {
  user: TestUser;
  apiToken: string;
  ids: Ids;
}

/** The endpoint's URL with its path parameters replaced; an unknown parameter fails the test. */
function urlOf(endpoint: EndpointCase, ids: Ids): string {
  const path = endpoint.path.replace(/:([A-Za-z_]+)/g, (_match, name: string) => {
    if (!(name in ids)) throw new Error(`${endpoint.name}: teach this file the path parameter :${name}`);
    return ids[name as keyof Ids];
  });
  return `/api/v1${path}${endpoint.query ?? ''}`;
}

const MISSING: Ids = { project: MISSING_PROJECT, report: MISSING_REPORT, token: MISSING_TOKEN };

describe('API1 broken object level authorization', () => {
  it('covers every id-taking endpoint of the table, each path parameter known to this file', () => {
    // A new `/:thing` endpoint in ENDPOINTS lands here; an unknown parameter fails `urlOf`.
    expect(ID_ENDPOINTS.length).toBeGreaterThanOrEqual(11);
    for (const endpoint of ID_ENDPOINTS) expect(urlOf(endpoint, MISSING)).not.toContain(':');
  });

  describe.each(ID_ENDPOINTS.map((e) => [e.name, e] as const))('%s', (_name, endpoint) => {
    it("answers 404 to a user of another team using the victim's ids, and changes nothing", async ({
      makeWorld,
      everything,
      attack,
      expectSameAsMissing,
    }) => {
      const victim = await makeWorld();
      // The attacker has objects of their own and every ability: only ownership stands in the way.
      const attacker = await makeWorld();
      const before = await everything();

      const response = await attack(endpoint, victim.ids, attacker.user.token);

      await expectSameAsMissing(endpoint, response, attacker.user.token);
      expect(await everything()).toEqual(before);
    });

    it('answers the owner the same request with success (control: the ids are live)', async ({ makeWorld, attack }) => {
      const owner = await makeWorld();
      const response = await attack(endpoint, owner.ids, owner.user.token);
      expect(response.statusCode, response.body).toBe(endpoint.success);
    });

    it('answers 404 for ids of deleted objects (deleted project, deleted report, revoked token)', async ({
      ctx,
      makeWorld,
      everything,
      attack,
      expectSameAsMissing,
    }) => {
      const owner = await makeWorld();
      // Delete exactly what the path names, through the API, as the owner.
      const deletions: Record<keyof Ids, string> = {
        project: `/api/v1/projects/${owner.ids.project}`,
        report: `/api/v1/reports/${owner.ids.report}`,
        token: `/api/v1/tokens/${owner.ids.token}`,
      };
      for (const [name, url] of Object.entries(deletions)) {
        if (!endpoint.path.includes(`:${name}`)) continue;
        const deleted = await ctx.request({ method: 'DELETE', url, token: owner.user.token });
        expect(deleted.statusCode, deleted.body).toBe(200);
      }
      const before = await everything();

      const response = await attack(endpoint, owner.ids, owner.user.token);

      await expectSameAsMissing(endpoint, response, owner.user.token);
      expect(await everything()).toEqual(before);
    });
  });

  describe('reports of other projects', () => {
    const REPORT_ENDPOINTS = ID_ENDPOINTS.filter((e) => e.path.includes(':report'));
    const PROJECT_ENDPOINTS = ID_ENDPOINTS.filter((e) => e.path.includes(':project'));

    it.for(REPORT_ENDPOINTS.map((e) => [e.name, e] as const))(
      "%s: 404 once the report's project is deleted, even for the owner",
      async ([_name, endpoint], { ctx, makeWorld, attack, expectSameAsMissing }) => {
        const owner = await makeWorld();
        const deleted = await ctx.request({ method: 'DELETE', url: `/api/v1/projects/${owner.ids.project}`, token: owner.user.token });
        expect(deleted.statusCode).toBe(200);
        await expectSameAsMissing(endpoint, await attack(endpoint, owner.ids, owner.user.token), owner.user.token);
      },
    );

    it.for(PROJECT_ENDPOINTS.map((e) => [e.name, e] as const))(
      '%s: 404 for a report id in place of a project id (both are UUID v7), nothing changes',
      async ([_name, endpoint], { makeWorld, everything, attack, expectSameAsMissing }) => {
        const owner = await makeWorld();
        const before = await everything();
        const response = await attack(endpoint, { ...owner.ids, project: owner.ids.report }, owner.user.token);
        await expectSameAsMissing(endpoint, response, owner.user.token);
        expect(await everything()).toEqual(before);
      },
    );

    it.for(REPORT_ENDPOINTS.map((e) => [e.name, e] as const))(
      '%s: 404 for a project id in place of a report id, nothing changes',
      async ([_name, endpoint], { makeWorld, everything, attack, expectSameAsMissing }) => {
        const owner = await makeWorld();
        const before = await everything();
        const response = await attack(endpoint, { ...owner.ids, report: owner.ids.project }, owner.user.token);
        await expectSameAsMissing(endpoint, response, owner.user.token);
        expect(await everything()).toEqual(before);
      },
    );

    it("lists only the named project's reports and failed runs, never those of the team's other projects", async ({ ctx, makeWorld }) => {
      const owner = await makeWorld();
      // A second project of the same team, with its own report and failed run.
      const sibling = await ctx.given.project(owner.user, { name: 'Sibling' });
      const siblingReport = await ctx.given.report(sibling.project.id);
      const siblingFailure = await clientCall(
        ctx,
        sibling.apiToken,
        { failure_reason: 'no_analyzers_ran', error_message: 'sibling' },
        { url: '/api/reports/failure' },
      );
      expect(siblingFailure.statusCode, siblingFailure.body).toBe(201);
      // And another team's project, with a report.
      const stranger = await makeWorld();

      const reports = await ctx.request({ method: 'GET', url: `/api/v1/projects/${owner.ids.project}/reports`, token: owner.user.token });
      expect(reports.statusCode).toBe(200);
      expect(reports.json().data.map((r: { uuid: string }) => r.uuid)).toEqual([owner.ids.report]);
      expect(reports.body).not.toContain(siblingReport.uuid);
      expect(reports.body).not.toContain(stranger.ids.report);

      const failures = await ctx.request({ method: 'GET', url: `/api/v1/projects/${owner.ids.project}/failures`, token: owner.user.token });
      expect(failures.statusCode).toBe(200);
      expect(failures.json().data.map((f: { error_message: string }) => f.error_message)).toEqual(['boom']);
    });

    it("lists only the caller's current team's projects", async ({ ctx, makeWorld }) => {
      const owner = await makeWorld();
      const stranger = await makeWorld();
      const response = await ctx.request({ method: 'GET', url: '/api/v1/projects', token: owner.user.token });
      expect(response.statusCode).toBe(200);
      expect(response.json().data.map((p: { id: string }) => p.id)).toEqual([owner.ids.project]);
      expect(response.body).not.toContain(stranger.ids.project);
      expect(response.body).not.toContain(stranger.ids.report);
    });
  });

  describe('client-package endpoints: project token A never reaches project B', () => {
    // CLIENT-WIRE.md: "When project_id is a UUID that is not the token's project, answers 422".
    it.for(['/api/reports', '/api/v1/reports'])(
      "refuses an upload to %s with token A naming another team's project B (422 project_id), storing nothing",
      async (url, { ctx, makeWorld, state }) => {
        const a = await makeWorld();
        const b = await makeWorld();
        const before = await state(a, b);
        const response = await upload(ctx, a.apiToken, minimalReport({ project_id: b.ids.project }), { url });
        expectClientValidationError(response, ['project_id']);
        expect(await state(a, b)).toEqual(before);
      },
    );

    it("refuses the same with B's id in upper case (the comparison is not fooled by case)", async ({ ctx, makeWorld, state }) => {
      const a = await makeWorld();
      const b = await makeWorld();
      const before = await state(a, b);
      const response = await upload(ctx, a.apiToken, minimalReport({ project_id: b.ids.project.toUpperCase() }));
      expectClientValidationError(response, ['project_id']);
      expect(await state(a, b)).toEqual(before);
    });

    it('refuses a failure notice with token A naming project B (422 project_id), storing nothing', async ({ ctx, makeWorld, state }) => {
      const a = await makeWorld();
      const b = await makeWorld();
      const before = await state(a, b);
      const response = await clientCall(
        ctx,
        a.apiToken,
        { project_id: b.ids.project, failure_reason: 'uncaught_exception', error_message: 'into B' },
        { url: '/api/reports/failure' },
      );
      expectClientValidationError(response, ['project_id']);
      expect(await state(a, b)).toEqual(before);
    });

    it("stores an upload naming no project (`unknown`) against the token's project only", async ({ ctx, makeWorld }) => {
      const a = await makeWorld();
      const b = await makeWorld();
      const response = await upload(ctx, a.apiToken, minimalReport({ project_id: 'unknown' }));
      expect(response.statusCode, response.body).toBe(201);
      const stored = await ctx.db
        .selectFrom('reports')
        .select('project_id')
        .where('uuid', '=', response.json().report.uuid)
        .executeTakeFirstOrThrow();
      expect(stored.project_id).toBe(a.ids.project);
      expect(await ctx.db.selectFrom('reports').select('uuid').where('project_id', '=', b.ids.project).execute()).toEqual([
        { uuid: b.ids.report },
      ]);
    });

    it.for(['/api/project', '/api/token/verify'])(
      "reads only the token's project on %s, whatever the query or headers name",
      async (path, { ctx, makeWorld }) => {
        const a = await makeWorld();
        const b = await makeWorld();
        const urls = [path, `${path}?project_id=${b.ids.project}`, `${path}?project=${b.ids.project}`, `${path}?id=${b.ids.project}`];
        for (const url of urls) {
          const response = await clientCall(ctx, a.apiToken, undefined, { url, headers: { 'x-project-id': b.ids.project } });
          expect(response.statusCode, response.body).toBe(200);
          const body = response.json();
          expect((body.data ?? body.project).id).toBe(a.ids.project);
          expect(response.body).not.toContain(b.ids.project);
        }
      },
    );
  });
});
