/**
 * E9.1 over HTTP: a team's connections under /api/v1/teams/{team}/connections (owner or admin; admin
 * ability to change and check, read to list), the shapes answered, validation (credentials per
 * provider, base_url's URL and host rules), the missing key's 409, partial PUT, deletion unlinking
 * projects, audit events, and the check against each provider's stand-in: what it receives (method,
 * path, headers as documented) and every failure mode. No credential ever shows: answers, audit
 * events, the log and stored rows are searched for it.
 */
import type { LightMyRequestResponse } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createProviderHttp, type ProviderHttp } from '../../src/connections/provider-http.js';
import { createSecretBox } from '../../src/secrets/secret-box.js';
import { expectError, expectValidationError, ISO_UTC, missingAbility, NOT_FOUND, UUID_V7 } from '../helpers/contract.js';
import { LogCapture } from '../helpers/log-capture.js';
import { buildTestApp, type TestContext, type TestUser } from '../helpers/test-app.js';
import { addBitbucket } from '../stand-ins/bitbucket.js';
import { addGitea } from '../stand-ins/gitea.js';
import { addGitHub } from '../stand-ins/github.js';
import { addGitLab } from '../stand-ins/gitlab.js';
import { addJira } from '../stand-ins/jira.js';
import { addLinear } from '../stand-ins/linear.js';
import { type StandIn, startStandIn } from '../stand-ins/stand-in-server.js';

const KEYS = ['base_url', 'created_at', 'credentials_hint', 'id', 'last_used_at', 'name', 'provider', 'updated_at'];
const ROLE_403 = { error: 'Forbidden', message: 'This action requires the owner or admin role in this team.' };
const MISSING = '0190a8f4-7c1d-7a4b-9f2e-3c5d6e7f8a9d';

/** The secrets of the tests: each must never appear anywhere but in the stand-in's requests. */
const SECRETS = {
  github: 'ghp_GitHubSecretToken0001',
  gitlab: 'glpat-GitLabSecretToken02',
  gitea: 'gitea0SecretToken00000003',
  bitbucket: 'ATCTTbitbucketSecret00004',
  jiraCloud: 'ATATTjiraCloudSecret00005',
  jiraDc: 'jiraDataCenterPat00000006',
  linear: 'lin_api_linearSecretKey07',
};

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

describe('the connections API (E9.1)', () => {
  let ctx: TestContext;
  let owner: TestUser;
  let teamId: number;
  let standIn: StandIn;
  let providerHttp: ProviderHttp;
  let log: LogCapture;
  const answers: string[] = [];

  beforeEach(async () => {
    log = new LogCapture();
    providerHttp = createProviderHttp({ allowPrivateNetworks: true, timeoutMs: 400, maxResponseBytes: 1_048_576 });
    ctx = await buildTestApp({
      env: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', LOG_LEVEL: 'trace' },
      deps: { providerHttp, logStream: log },
    });
    owner = await ctx.given.user({ plan: 'business' });
    teamId = owner.teamId!;
    standIn = await startStandIn();
    answers.length = 0;
  });
  afterEach(async () => {
    await ctx.close();
    await providerHttp.close();
    await standIn.close();
  });

  const listUrl = (team = teamId) => `/api/v1/teams/${team}/connections`;
  const api = async (method: Method, url: string, body?: unknown, token: string = owner.token): Promise<LightMyRequestResponse> => {
    const response = await ctx.request({ method, url, token, body });
    answers.push(response.body);
    return response;
  };
  const create = async (body: Record<string, unknown>, team = teamId) => {
    const response = await api('POST', listUrl(team), body);
    expect(response.statusCode, response.body).toBe(201);
    return response.json().data as Record<string, any>;
  };
  const check = async (id: string) => {
    const response = await api('POST', `${listUrl()}/${id}/check`);
    expect(response.statusCode, response.body).toBe(200);
    return response.json() as { data: { ok: boolean; message: string } };
  };

  describe('each provider, checked against its stand-in', () => {
    it('github: GET /user with Bearer, the GitHub media type, the API version and a User-Agent', async () => {
      const base = addGitHub(standIn, { token: SECRETS.github, login: 'octocat' });
      const connection = await create({ provider: 'github', name: 'GitHub', base_url: base, credentials: { token: SECRETS.github } });
      expect(Object.keys(connection).sort()).toEqual(KEYS);
      expect(connection).toMatchObject({
        id: expect.stringMatching(UUID_V7),
        provider: 'github',
        name: 'GitHub',
        base_url: base,
        credentials_hint: '0001',
        created_at: expect.stringMatching(ISO_UTC),
        last_used_at: null,
      });
      expect(await check(connection.id)).toEqual({ data: { ok: true, message: 'Connected as octocat.' } });
      expect(standIn.received).toHaveLength(1);
      const [request] = standIn.received;
      expect(request).toMatchObject({ method: 'GET', path: '/user', body: '' });
      expect(request!.headers).toMatchObject({
        authorization: `Bearer ${SECRETS.github}`,
        accept: 'application/vnd.github+json',
        'x-github-api-version': '2022-11-28',
      });
      expect(request!.headers['user-agent']).toBeTruthy();
      const shown = (await api('GET', `${listUrl()}/${connection.id}`)).json().data;
      expect(shown.last_used_at).toMatch(ISO_UTC);
    });

    it('gitlab: GET /user under /api/v4 with PRIVATE-TOKEN', async () => {
      const base = addGitLab(standIn, { token: SECRETS.gitlab, username: 'gitlabber' });
      const connection = await create({ provider: 'gitlab', name: 'GitLab', base_url: base, credentials: { token: SECRETS.gitlab } });
      expect(await check(connection.id)).toEqual({ data: { ok: true, message: 'Connected as gitlabber.' } });
      expect(standIn.received[0]).toMatchObject({ method: 'GET', path: '/api/v4/user' });
      expect(standIn.received[0]!.headers['private-token']).toBe(SECRETS.gitlab);
      expect(standIn.received[0]!.headers.authorization).toBeUndefined();
    });

    it('gitea: GET /user under the /api/v1 root with "Authorization: token T"', async () => {
      const base = addGitea(standIn, { token: SECRETS.gitea, login: 'teatime' });
      const connection = await create({ provider: 'gitea', name: 'Gitea', base_url: `${base}/`, credentials: { token: SECRETS.gitea } });
      expect(connection.base_url).toBe(base); // stored without the trailing slash
      expect(await check(connection.id)).toEqual({ data: { ok: true, message: 'Connected as teatime.' } });
      expect(standIn.received[0]).toMatchObject({ method: 'GET', path: '/api/v1/user' });
      expect(standIn.received[0]!.headers.authorization).toBe(`token ${SECRETS.gitea}`);
    });

    it('bitbucket: GET /2.0/user with Bearer', async () => {
      const base = addBitbucket(standIn, { token: SECRETS.bitbucket, display_name: 'Bucket Person' });
      const connection = await create({
        provider: 'bitbucket',
        name: 'Bitbucket',
        base_url: base,
        credentials: { token: SECRETS.bitbucket },
      });
      expect(await check(connection.id)).toEqual({ data: { ok: true, message: 'Connected as Bucket Person.' } });
      expect(standIn.received[0]).toMatchObject({ method: 'GET', path: '/2.0/user' });
      expect(standIn.received[0]!.headers.authorization).toBe(`Bearer ${SECRETS.bitbucket}`);
    });

    it('jira Cloud: GET /rest/api/3/myself with Basic email:api_token; Data Center: /rest/api/2/myself with Bearer', async () => {
      const site = addJira(standIn, { email: 'ada@example.com', api_token: SECRETS.jiraCloud, displayName: 'Ada' });
      const cloud = await create({
        provider: 'jira',
        name: 'Jira',
        base_url: site,
        credentials: { email: 'ada@example.com', api_token: SECRETS.jiraCloud },
      });
      expect(cloud.credentials_hint).toBe('0005');
      expect(await check(cloud.id)).toEqual({ data: { ok: true, message: 'Connected as Ada.' } });
      expect(standIn.received[0]).toMatchObject({ method: 'GET', path: '/rest/api/3/myself' });
      expect(standIn.received[0]!.headers.authorization).toBe(
        `Basic ${Buffer.from(`ada@example.com:${SECRETS.jiraCloud}`).toString('base64')}`,
      );

      const dcStandIn = await startStandIn();
      try {
        const dcSite = addJira(dcStandIn, { token: SECRETS.jiraDc, displayName: 'Data Center Dan' });
        const dc = await create({ provider: 'jira', name: 'Jira DC', base_url: dcSite, credentials: { token: SECRETS.jiraDc } });
        expect(await check(dc.id)).toEqual({ data: { ok: true, message: 'Connected as Data Center Dan.' } });
        expect(dcStandIn.received[0]).toMatchObject({ method: 'GET', path: '/rest/api/2/myself' });
        expect(dcStandIn.received[0]!.headers.authorization).toBe(`Bearer ${SECRETS.jiraDc}`);
      } finally {
        await dcStandIn.close();
      }
    });

    it('linear: POST /graphql with the key as Authorization and the viewer query', async () => {
      const base = addLinear(standIn, { api_key: SECRETS.linear, name: 'Lin Ear' });
      const connection = await create({ provider: 'linear', name: 'Linear', base_url: base, credentials: { api_key: SECRETS.linear } });
      expect(await check(connection.id)).toEqual({ data: { ok: true, message: 'Connected as Lin Ear.' } });
      const [request] = standIn.received;
      expect(request).toMatchObject({ method: 'POST', path: '/graphql', json: { query: '{ viewer { id name } }' } });
      expect(request!.headers.authorization).toBe(SECRETS.linear);
      expect(request!.headers['content-type']).toBe('application/json');
    });

    it('takes the documented default base URLs when none is given', async () => {
      const defaults = {
        github: ['https://api.github.com', { token: SECRETS.github }],
        gitlab: ['https://gitlab.com/api/v4', { token: SECRETS.gitlab }],
        bitbucket: ['https://api.bitbucket.org/2.0', { token: SECRETS.bitbucket }],
        linear: ['https://api.linear.app', { api_key: SECRETS.linear }],
      } as const;
      for (const [provider, [base, credentials]] of Object.entries(defaults)) {
        expect((await create({ provider, name: provider, credentials })).base_url).toBe(base);
      }
      const list = (await api('GET', listUrl())).json().data as { provider: string }[];
      expect(list.map((c) => c.provider)).toEqual(['github', 'gitlab', 'bitbucket', 'linear']); // oldest first
    });
  });

  describe('a failed check is ok: false with the provider’s words or the failure’s', () => {
    let id: string;
    beforeEach(async () => {
      const base = addGitHub(standIn, { token: SECRETS.github, login: 'octocat' });
      id = (await create({ provider: 'github', name: 'GitHub', base_url: base, credentials: { token: SECRETS.github } })).id;
    });

    it('401, 403, 404, 429 and 5xx', async () => {
      standIn.script.push({ status: 401, body: { message: 'Bad credentials', documentation_url: 'https://docs.github.com/rest' } });
      expect(await check(id)).toEqual({ data: { ok: false, message: 'Bad credentials' } });
      standIn.script.push({ status: 403, body: { message: 'Resource not accessible by personal access token' } });
      expect(await check(id)).toEqual({ data: { ok: false, message: 'Resource not accessible by personal access token' } });
      standIn.script.push({ status: 404, rawBody: '<html>nothing here</html>', headers: { 'content-type': 'text/html' } });
      expect(await check(id)).toEqual({ data: { ok: false, message: 'The provider answered 404 (not found: check the base URL).' } });
      standIn.script.push({ status: 429, body: { message: 'API rate limit exceeded for user ID 1.' }, headers: { 'retry-after': '60' } });
      expect(await check(id)).toEqual({ data: { ok: false, message: 'API rate limit exceeded for user ID 1.' } });
      standIn.script.push({ status: 502, rawBody: '' });
      expect(await check(id)).toEqual({ data: { ok: false, message: 'The provider answered 502 (a provider error).' } });
    });

    it('a provider that never answers is a timeout, one that floods 10 MiB is too large', async () => {
      standIn.script.push('hang');
      expect((await check(id)).data).toEqual({ ok: false, message: 'timed out after 400 ms' });
      standIn.script.push({ huge: 10 * 1024 * 1024 });
      expect((await check(id)).data).toEqual({ ok: false, message: "The provider's answer exceeded 1024 KiB and was not read." });
    });

    it('a provider that is down is a network failure; an echoed credential is scrubbed', async () => {
      standIn.script.push({ status: 401, body: { message: `token ${SECRETS.github} was revoked` } });
      expect((await check(id)).data).toEqual({ ok: false, message: 'token [redacted] was revoked' });
      // Port 1 of loopback: nothing listens there.
      expect((await api('PUT', `${listUrl()}/${id}`, { base_url: 'http://127.0.0.1:1' })).statusCode).toBe(200);
      expect((await check(id)).data).toEqual({ ok: false, message: 'connection refused' });
    });
  });

  describe('validation (422)', () => {
    it('names each credential field missing or extra, per provider', async () => {
      expectValidationError(await api('POST', listUrl(), { provider: 'github', name: 'G', credentials: {} }), ['credentials.token']);
      expectValidationError(
        await api('POST', listUrl(), { provider: 'github', name: 'G', credentials: { token: 't0ken', scope: 'repo' } }),
        ['credentials.scope'],
      );
      expectValidationError(await api('POST', listUrl(), { provider: 'linear', name: 'L', credentials: { token: 'lin_api_x' } }), [
        'credentials.api_key',
        'credentials.token',
      ]);
      expectValidationError(
        await api('POST', listUrl(), {
          provider: 'jira',
          name: 'J',
          base_url: 'https://shop.atlassian.net',
          credentials: { email: 'a@b.c' },
        }),
        ['credentials.api_token'],
      );
      expectValidationError(
        await api('POST', listUrl(), {
          provider: 'jira',
          name: 'J',
          base_url: 'https://shop.atlassian.net',
          credentials: { email: 'a@b.c', api_token: 'x1234', token: 'y1234' },
        }),
        ['credentials.token'],
      );
      expectValidationError(await api('POST', listUrl(), { provider: 'gitlab', name: 'G', credentials: { token: '  ' } }), [
        'credentials.token',
      ]);
      expectValidationError(await api('POST', listUrl(), { provider: 'svn', name: 'S', credentials: { token: 'abcd' } }), ['provider']);
      expectValidationError(await api('POST', listUrl(), { provider: 'github', credentials: { token: 'abcd' } }), ['name']);
      expect(await ctx.db.selectFrom('connections').selectAll().execute()).toEqual([]);
    });

    it('requires a base_url for gitea and jira', async () => {
      expectValidationError(await api('POST', listUrl(), { provider: 'gitea', name: 'G', credentials: { token: 'abcd' } }), ['base_url'], {
        base_url: 'The base_url is required for gitea (for example https://gitea.example.com/api/v1).',
      });
      expectValidationError(
        await api('POST', listUrl(), { provider: 'jira', name: 'J', credentials: { email: 'a@b.c', api_token: 'abcd' } }),
        ['base_url'],
      );
    });

    it('holds base_url to the webhook URL rules', async () => {
      for (const base_url of [
        'ftp://gitlab.example.com',
        'not a url',
        'https://user:pass@gitlab.example.com',
        'https://gitlab.example.com/api?x=1',
      ]) {
        expectValidationError(await api('POST', listUrl(), { provider: 'gitlab', name: 'G', base_url, credentials: { token: 'abcd' } }), [
          'base_url',
        ]);
      }
    });
  });

  describe('who may', () => {
    it('owner and admin may; a member gets 403, a stranger 404, a token without admin 403', async () => {
      const base = addGitHub(standIn, { token: SECRETS.github, login: 'octocat' });
      const body = { provider: 'github', name: 'GitHub', base_url: base, credentials: { token: SECRETS.github } };
      const id = (await create(body)).id;
      const admin = await ctx.given.user();
      const member = await ctx.given.user();
      const stranger = await ctx.given.user({ plan: 'business' });
      await ctx.given.member(teamId, admin, 'admin');
      await ctx.given.member(teamId, member, 'member');
      expect((await api('POST', listUrl(), body, admin.token)).statusCode).toBe(201);
      expect((await api('GET', listUrl(), undefined, admin.token)).json().data).toHaveLength(2);
      for (const [method, url] of [
        ['POST', listUrl()],
        ['GET', listUrl()],
        ['GET', `${listUrl()}/${id}`],
        ['PUT', `${listUrl()}/${id}`],
        ['DELETE', `${listUrl()}/${id}`],
        ['POST', `${listUrl()}/${id}/check`],
      ] as const) {
        // D4: the role's 403 and the team's 404 come before the body's 422 (an empty body here).
        expectError(await api(method, url, method === 'GET' || method === 'DELETE' ? undefined : {}, member.token), 403, ROLE_403);
        expectError(await api(method, url, method === 'GET' || method === 'DELETE' ? undefined : {}, stranger.token), 404, NOT_FOUND);
      }
      const writer = await ctx.given.token(owner, { abilities: ['read', 'write'] });
      expectError(await api('POST', listUrl(), body, writer), 403, missingAbility('admin'));
      expectError(await api('POST', `${listUrl()}/${id}/check`, undefined, writer), 403, missingAbility('admin'));
      expect((await api('GET', listUrl(), undefined, writer)).statusCode).toBe(200);
      expect(standIn.received).toHaveLength(0);
    });

    it('another team’s connection, or none, is a 404', async () => {
      const otherTeam = await ctx.given.team(owner, 'Other');
      const id = (await create({ provider: 'gitlab', name: 'G', credentials: { token: 'abcd' } }, otherTeam)).id;
      for (const method of ['GET', 'PUT', 'DELETE'] as const) {
        expectError(await api(method, `${listUrl()}/${id}`, method === 'PUT' ? { name: 'X' } : undefined), 404, NOT_FOUND);
        expectError(await api(method, `${listUrl()}/${MISSING}`, method === 'PUT' ? { name: 'X' } : undefined), 404, NOT_FOUND);
      }
      expectError(await api('POST', `${listUrl()}/${id}/check`), 404, NOT_FOUND);
      expectError(await api('GET', `${listUrl()}/not-a-uuid`), 404, NOT_FOUND);
      // A NUL byte cannot reach PostgreSQL's text (it would fail there, a 500): the id is no UUID, a 404.
      for (const method of ['GET', 'PUT', 'DELETE'] as const) {
        expectError(await api(method, `${listUrl()}/${MISSING}%00`, method === 'PUT' ? { name: 'X' } : undefined), 404, NOT_FOUND);
      }
      // An id in capitals is the same connection.
      expect(
        (
          await api(
            'GET',
            `${listUrl()}/${(await create({ provider: 'gitlab', name: 'U', credentials: { token: 'abcd' } })).id.toUpperCase()}`,
          )
        ).statusCode,
      ).toBe(200);
    });
  });

  describe('changes', () => {
    it('PUT changes what it is given; credentials are replaced only when given', async () => {
      const base = addGitHub(standIn, { token: SECRETS.github, login: 'octocat' });
      const created = await create({ provider: 'github', name: 'GitHub', base_url: base, credentials: { token: 'ghp_oldTokenValueAAAA' } });
      ctx.clock.advance(60_000);
      const renamed = await api('PUT', `${listUrl()}/${created.id}`, { name: 'GitHub (work)' });
      expect(renamed.json().data).toMatchObject({ name: 'GitHub (work)', credentials_hint: 'AAAA', base_url: base });
      expect(renamed.json().data.updated_at).not.toBe(created.updated_at);
      expect((await check(created.id)).data.ok).toBe(false); // still the old token
      const replaced = await api('PUT', `${listUrl()}/${created.id}`, { credentials: { token: SECRETS.github } });
      expect(replaced.json().data).toMatchObject({ name: 'GitHub (work)', credentials_hint: '0001' });
      expect((await check(created.id)).data).toEqual({ ok: true, message: 'Connected as octocat.' });
      // The stored provider decides the credentials' shape; the provider itself never changes.
      expectValidationError(await api('PUT', `${listUrl()}/${created.id}`, { credentials: { api_key: 'lin_api_x' } }), [
        'credentials.api_key',
        'credentials.token',
      ]);
      expectValidationError(await api('PUT', `${listUrl()}/${created.id}`, { base_url: 'gopher://x' }), ['base_url']);
      const moved = await api('PUT', `${listUrl()}/${created.id}`, { base_url: 'https://github.example.com/api/v3', provider: 'gitlab' });
      expect(moved.json().data).toMatchObject({ provider: 'github', base_url: 'https://github.example.com/api/v3' });
    });

    it('DELETE removes it and unlinks the projects whose tracker it was', async () => {
      const created = await create({ provider: 'gitlab', name: 'G', credentials: { token: 'abcd' } });
      const { project } = await ctx.given.project(owner, { name: 'Linked' });
      await ctx.db.updateTable('projects').set({ tracker_connection_id: created.id }).where('id', '=', project.id).execute();
      const deleted = await api('DELETE', `${listUrl()}/${created.id}`);
      expect(deleted.statusCode).toBe(200);
      expect(deleted.json()).toEqual({ message: 'Connection deleted successfully.' });
      expectError(await api('GET', `${listUrl()}/${created.id}`), 404, NOT_FOUND);
      const row = await ctx.db
        .selectFrom('projects')
        .select('tracker_connection_id')
        .where('id', '=', project.id)
        .executeTakeFirstOrThrow();
      expect(row.tracker_connection_id).toBeNull();
    });

    it('writes connection.created, .updated and .deleted, with no credential', async () => {
      const created = await create({ provider: 'gitlab', name: 'G', credentials: { token: SECRETS.gitlab } });
      await api('PUT', `${listUrl()}/${created.id}`, { name: 'H', credentials: { token: 'glpat-AnotherSecret9999' } });
      await api('DELETE', `${listUrl()}/${created.id}`);
      const events = await ctx.db
        .selectFrom('audit_events')
        .select(['action', 'target_type', 'target_id', 'team_id', 'actor_id', 'details'])
        .where('action', 'like', 'connection.%')
        .orderBy('id')
        .execute();
      expect(events.map((e) => ({ ...e, details: JSON.parse(e.details) }))).toEqual([
        {
          action: 'connection.created',
          target_type: 'connection',
          target_id: created.id,
          team_id: teamId,
          actor_id: owner.id,
          details: { provider: 'gitlab', name: 'G', base_url: 'https://gitlab.com/api/v4' },
        },
        {
          action: 'connection.updated',
          target_type: 'connection',
          target_id: created.id,
          team_id: teamId,
          actor_id: owner.id,
          details: { name: { old: 'G', new: 'H' }, credentials_replaced: true },
        },
        {
          action: 'connection.deleted',
          target_type: 'connection',
          target_id: created.id,
          team_id: teamId,
          actor_id: owner.id,
          details: { provider: 'gitlab', name: 'H' },
        },
      ]);
      const listed = await api('GET', `/api/v1/teams/${teamId}/audit-events?action=connection.updated`);
      expect(listed.statusCode).toBe(200);
      expect(listed.body).not.toContain('AnotherSecret');
    });
  });

  it('keeps every credential out of answers, audit events, the log and stored rows', async () => {
    const ids: string[] = [];
    const githubBase = addGitHub(standIn, { token: SECRETS.github, login: 'octocat' });
    const site = addJira(standIn, { email: 'ada@example.com', api_token: SECRETS.jiraCloud, displayName: 'Ada' });
    ids.push((await create({ provider: 'github', name: 'G', base_url: githubBase, credentials: { token: SECRETS.github } })).id);
    ids.push(
      (
        await create({
          provider: 'jira',
          name: 'J',
          base_url: site,
          credentials: { email: 'ada@example.com', api_token: SECRETS.jiraCloud },
        })
      ).id,
    );
    ids.push((await create({ provider: 'linear', name: 'L', base_url: standIn.url, credentials: { api_key: SECRETS.linear } })).id);
    for (const id of ids) await check(id);
    standIn.script.push({ status: 401, body: { message: `Bad credentials: ${SECRETS.github}` } });
    await check(ids[0]!);
    await api('PUT', `${listUrl()}/${ids[0]}`, { credentials: { token: SECRETS.gitea } });
    await api('POST', listUrl(), { provider: 'github', name: 'Bad', base_url: 'ftp://x', credentials: { token: SECRETS.bitbucket } });
    await api('GET', listUrl());
    await api('GET', `/api/v1/teams/${teamId}/audit-events`);
    const audit = JSON.stringify(await ctx.db.selectFrom('audit_events').selectAll().execute());
    const rows = JSON.stringify(await ctx.db.selectFrom('connections').selectAll().execute());
    expect(log.text).toMatch(/request completed/);
    const secrets = [SECRETS.github, SECRETS.jiraCloud, SECRETS.linear, SECRETS.gitea, SECRETS.bitbucket];
    const basic = Buffer.from(`ada@example.com:${SECRETS.jiraCloud}`).toString('base64');
    for (const secret of [...secrets, basic]) {
      for (const fragment of [secret, secret.slice(0, -4)]) {
        expect(answers.join('\n'), 'answers').not.toContain(fragment);
        expect(audit, 'audit events').not.toContain(fragment);
        expect(log.text, 'log').not.toContain(fragment);
        expect(rows, 'connection rows').not.toContain(fragment);
      }
    }
  });
});

describe('without a key to seal with (E9.2)', () => {
  let ctx: TestContext;
  let owner: TestUser;
  beforeEach(async () => {
    // A box with no key: what a PostgreSQL deployment without SECRET_KEY has.
    ctx = await buildTestApp({ env: { SECRET_KEY: '' }, deps: { secrets: createSecretBox(null) } });
    owner = await ctx.given.user({ plan: 'business' });
  });
  afterEach(async () => ctx.close());

  it('refuses to store a connection or new credentials (409 naming SECRET_KEY), after the 404 and 403, before the 422', async () => {
    const url = `/api/v1/teams/${owner.teamId}/connections`;
    const refused = await ctx.request({
      method: 'POST',
      url,
      token: owner.token,
      body: { provider: 'gitlab', name: 'G', credentials: { token: 'abcd' } },
    });
    expect(refused.statusCode).toBe(409);
    expect(refused.json()).toEqual({ error: 'Conflict', message: expect.stringContaining('SECRET_KEY') });
    expect((await ctx.request({ method: 'POST', url, token: owner.token, body: {} })).statusCode).toBe(409);
    const stranger = await ctx.given.user();
    expectError(await ctx.request({ method: 'POST', url, token: stranger.token, body: {} }), 404, NOT_FOUND);
    expect(await ctx.db.selectFrom('connections').selectAll().execute()).toEqual([]);
    expect((await ctx.request({ method: 'GET', url, token: owner.token })).json()).toEqual({ data: [] });
  });
});

describe('base_url hosts without WEBHOOK_ALLOW_PRIVATE_NETWORKS (D32)', () => {
  let ctx: TestContext;
  beforeEach(async () => {
    ctx = await buildTestApp();
  });
  afterEach(async () => ctx.close());

  it('refuses loopback and private hosts at once', async () => {
    const owner = await ctx.given.user({ plan: 'business' });
    for (const base_url of ['http://127.0.0.1:8080/api/v1', 'https://localhost/api/v1', 'http://10.1.2.3/api/v1', 'http://[::1]/api/v1']) {
      const response = await ctx.request({
        method: 'POST',
        url: `/api/v1/teams/${owner.teamId}/connections`,
        token: owner.token,
        body: { provider: 'gitea', name: 'G', base_url, credentials: { token: 'abcd' } },
      });
      expectValidationError(response, ['base_url']);
      expect(response.json().errors.base_url[0]).toMatch(/WEBHOOK_ALLOW_PRIVATE_NETWORKS/);
    }
  });
});
