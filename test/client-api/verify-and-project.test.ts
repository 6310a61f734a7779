/**
 * CLIENT-WIRE.md "GET /api/token/verify and GET /api/project": 200 for a good project API token,
 * 401 `{success:false[, valid:false]}` otherwise; `/api/project` answers the project in the v1 GET
 * shape, settings and latest_report included.
 */
import { describe, expect } from 'vitest';
import type { TestUser } from '../helpers/test-app.js';
import { appTest } from '../helpers/app-fixture.js';
import { UUID_V7, freshAddress } from '../helpers/contract.js';
import {
  clientCall,
  expectClientAnswer,
  expectClientUnauthenticated,
  expectRateLimitHeaders,
  fixtureText,
  readProject,
  upload,
} from '../helpers/client-wire.js';
import { EMPTY_SETTINGS, expectProjectShape } from '../projects/project-expectations.js';

const it = appTest({ project: { name: 'Acme Shop', framework_version: '12', description: 'The shop' } })
  /** A GET as the client makes it (request-headers.json: User-Agent and Authorization only). */
  .extend(
    'verify',
    ({ ctx }) =>
      (token: string | null, remoteAddress?: string) =>
        clientCall(ctx, token, undefined, { url: '/api/token/verify', ...(remoteAddress && { remoteAddress }) }),
  )
  .extend(
    'getProject',
    ({ ctx }) =>
      (token: string | null, remoteAddress?: string) =>
        clientCall(ctx, token, undefined, { url: '/api/project', ...(remoteAddress && { remoteAddress }) }),
  )
  .extend(
    'v1',
    ({ ctx, projectId, user }) =>
      (method: 'POST' | 'PUT' | 'DELETE', url: string, body?: unknown) =>
        ctx.request({ method, url: `/api/v1/projects/${projectId}${url}`, token: user.token, body }),
  );

/** The refusals every client read must answer with 401; each gets its own IP (D8's 10 per IP). */
const BAD_TOKENS: { name: string; token: (user: TestUser) => string | null }[] = [
  { name: 'no Authorization header', token: () => null },
  { name: 'just "Bearer"', token: () => '' },
  { name: 'a wrong token of the right shape', token: () => 'A'.repeat(40) },
  { name: 'garbage', token: () => 'not a token at all' },
  { name: 'a personal access token', token: (user) => user.token },
];

describe('GET /api/token/verify', () => {
  it('answers 200 {success:true, message, valid:true, project:{id, name}} for the project API token', async ({
    projectId,
    apiToken,
    verify,
  }) => {
    const response = await verify(apiToken);
    expect(response.statusCode).toBe(200);
    const body = expectClientAnswer(response);
    expect(Object.keys(body).sort()).toEqual(['message', 'project', 'success', 'valid']);
    expect(body).toEqual({ success: true, message: expect.any(String), valid: true, project: { id: projectId, name: 'Acme Shop' } });
    expect(body.project.id).toMatch(UUID_V7);
    expectRateLimitHeaders(response, 60);
  });

  it('never returns the token or its hash', async ({ apiToken, verify }) => {
    const response = await verify(apiToken);
    expect(response.body).not.toContain(apiToken);
    expect(response.body).not.toMatch(/api_token|hash/);
  });

  for (const { name, token } of BAD_TOKENS) {
    it(`answers 401 {success:false, valid:false, error, message} for ${name}`, async ({ user, verify }) => {
      const response = await verify(token(user), freshAddress());
      expectClientUnauthenticated(response, { valid: false });
      expect(response.json().valid).toBe(false);
    });
  }

  it('answers 401 valid:false for a token regenerated away, and 200 for the new one', async ({ projectId, apiToken, verify, v1 }) => {
    const regenerated = await v1('POST', '/regenerate-token');
    expect(regenerated.statusCode).toBe(200);
    expectClientUnauthenticated(await verify(apiToken, freshAddress()), { valid: false });
    const fresh = await verify(regenerated.json().api_token);
    expect(fresh.statusCode).toBe(200);
    expect(fresh.json()).toMatchObject({ success: true, valid: true, project: { id: projectId } });
  });

  it('answers 401 valid:false for the token of a deleted project', async ({ apiToken, verify, v1 }) => {
    expect((await v1('DELETE', '')).statusCode).toBe(200);
    expectClientUnauthenticated(await verify(apiToken, freshAddress()), { valid: false });
  });

  it('still verifies the token of an archived project (archiving refuses uploads only)', async ({ projectId, apiToken, verify, v1 }) => {
    expect((await v1('POST', '/archive')).statusCode).toBe(200);
    const response = await verify(apiToken);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({ success: true, valid: true, project: { id: projectId, name: 'Acme Shop' } });
  });

  it("shows the project's current name after a rename", async ({ projectId, apiToken, verify, v1 }) => {
    const renamed = await v1('PUT', '', { name: 'Acme Store', framework_version: '12' });
    expect(renamed.statusCode, renamed.body).toBe(200);
    expect((await verify(apiToken)).json().project).toEqual({ id: projectId, name: 'Acme Store' });
  });

  it('identifies the right project among several', async ({ ctx, user, projectId, apiToken, verify }) => {
    const other = await ctx.given.project(user, { name: 'Other' });
    expect((await verify(other.apiToken)).json().project).toEqual({ id: other.project.id, name: 'Other' });
    expect((await verify(apiToken)).json().project).toEqual({ id: projectId, name: 'Acme Shop' });
  });
});

describe('GET /api/project', () => {
  it('answers 200 {success:true, message, data} with exactly the v1 GET shape of the project', async ({
    ctx,
    user,
    projectId,
    apiToken,
    getProject,
  }) => {
    const response = await getProject(apiToken);
    expect(response.statusCode).toBe(200);
    const body = expectClientAnswer(response);
    expect(Object.keys(body).sort()).toEqual(['data', 'message', 'success']);
    expect(body.success).toBe(true);
    expectProjectShape(body.data);
    expect(body.data).toEqual(await readProject(ctx, user, projectId));
    expect(body.data).toMatchObject({
      id: projectId,
      name: 'Acme Shop',
      description: 'The shop',
      framework_version: '12',
      team_id: user.teamId,
      archived_at: null,
      latest_report: null,
      settings: EMPTY_SETTINGS,
    });
    expectRateLimitHeaders(response, 60);
  });

  it('never returns the project API token', async ({ apiToken, getProject }) => {
    const response = await getProject(apiToken);
    expect(response.body).not.toContain(apiToken);
    expect(response.json().data).not.toHaveProperty('api_token');
  });

  it('shows the quality-gate settings set through PUT /api/v1/projects/{id} (so a CI job can read them)', async ({
    apiToken,
    getProject,
    v1,
  }) => {
    const updated = await v1('PUT', '', { name: 'Acme Shop', framework_version: '12', settings: { fail_on: 'high', fail_threshold: 80 } });
    expect(updated.statusCode, updated.body).toBe(200);
    const data = (await getProject(apiToken)).json().data;
    expect(data.settings).toEqual({ ...EMPTY_SETTINGS, fail_on: 'high', fail_threshold: 80 });
    expect(data).toEqual(updated.json().data);
  });

  it('shows latest_report after an upload, equal to the report the upload answered', async ({
    ctx,
    user,
    projectId,
    apiToken,
    getProject,
  }) => {
    const uploaded = await upload(ctx, apiToken, fixtureText('report-small', projectId));
    expect(uploaded.statusCode).toBe(201);
    const data = (await getProject(apiToken)).json().data;
    expect(data.latest_report).toEqual(uploaded.json().report);
    expect(data).toEqual(await readProject(ctx, user, projectId));
  });

  it('still answers for an archived project, with archived_at set', async ({ ctx, user, projectId, apiToken, getProject, v1 }) => {
    expect((await v1('POST', '/archive')).statusCode).toBe(200);
    const response = await getProject(apiToken);
    expect(response.statusCode).toBe(200);
    const data = response.json().data;
    expect(data.archived_at).toBe('2026-11-21T10:00:00.000Z');
    expect(data).toEqual(await readProject(ctx, user, projectId));
  });

  for (const { name, token } of BAD_TOKENS) {
    it(`answers 401 {success:false, error:"Unauthenticated"} (no valid key) for ${name}`, async ({ user, getProject }) => {
      const response = await getProject(token(user), freshAddress());
      expectClientUnauthenticated(response);
    });
  }

  it('answers 401 for a token regenerated away', async ({ apiToken, getProject, v1 }) => {
    expect((await v1('POST', '/regenerate-token')).statusCode).toBe(200);
    expectClientUnauthenticated(await getProject(apiToken, freshAddress()));
  });
});
