/**
 * E9.3 and E9.4 over HTTP, against provider stand-ins on 127.0.0.1 written from each provider's
 * documentation: the tracker's link and its 422s, a ticket's request exactly as each provider
 * receives it (method, path, headers, body), the ticket as every answer shows it, one ticket per
 * issue (409), a project without tickets (409), the bulk request, and provider failures as 502s
 * that never carry a credential.
 */
import { v7 as uuidv7 } from 'uuid';
import { describe, expect } from 'vitest';
import { appTest } from '../helpers/app-fixture.js';
import type { TestContext } from '../helpers/test-app.js';
import { DEBUG, SQL, type Spot, XSS, fingerprintOf, uploadSpots } from '../issues/issues-world.js';
import { addGitHubIssues } from '../stand-ins/github.js';
import { startStandIn, type StandIn } from '../stand-ins/stand-in-server.js';
import { box, bulkTickets, createTicket, givenConnection, putTracker, setTarget } from './tickets-world.js';

const GITHUB_TOKEN = 'ghp_TESTTOKENabcdefghijklmnop1234';

const it = appTest({
  user: { plan: 'business', name: 'Ada' },
  project: { repository_url: 'https://github.com/acme/shop' },
  env: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' },
  deps: { secrets: box },
})
  // biome-ignore lint/correctness/noEmptyPattern: Vitest reads a fixture's dependencies from this pattern
  .extend('standIn', async ({}, { onCleanup }) => {
    const standIn = await startStandIn();
    onCleanup(() => standIn.close());
    return standIn;
  })
  /** A report on main holding SQL, XSS and DEBUG, and their fingerprints. */
  .extend('world', async ({ ctx, user, apiToken }) => {
    const uuid = await uploadSpots(ctx, apiToken, [SQL, XSS, DEBUG]);
    const of = (spot: Spot) => fingerprintOf(ctx, user.token, uuid, spot);
    return { uuid, sql: await of(SQL), xss: await of(XSS), debug: await of(DEBUG) };
  });

/** A project linked to a GitHub connection whose target is acme/shop. */
async function githubProject(ctx: TestContext, standIn: StandIn, user: { token: string }, projectId: string, teamId: number) {
  addGitHubIssues(standIn, { token: GITHUB_TOKEN, login: 'octocat' });
  const connectionId = await givenConnection(ctx, teamId, 'github', standIn.url, { token: GITHUB_TOKEN });
  await setTarget(ctx, projectId, 'acme/shop', 'Shop');
  const linked = await putTracker(ctx, user.token, projectId, { connection_id: connectionId });
  expect(linked.statusCode, linked.body).toBe(200);
  return connectionId;
}

describe('E9.3 a project tracker', () => {
  it('answers no tracker until one is linked, then the connection, primary_tracker and target', async ({
    ctx,
    user,
    project,
    projectId,
    standIn,
  }) => {
    const before = await ctx.request({ method: 'GET', url: `/api/v1/projects/${projectId}/tracker`, token: user.token });
    expect(before.statusCode).toBe(200);
    expect(before.json()).toEqual({ data: { connection: null, primary_tracker: null, target: { key: null, name: null } } });

    const connectionId = await githubProject(ctx, standIn, user, projectId, project.project.team_id);
    const after = await ctx.request({ method: 'GET', url: `/api/v1/projects/${projectId}/tracker`, token: user.token });
    expect(after.json()).toEqual({
      data: {
        connection: { id: connectionId, provider: 'github', name: 'github of the team' },
        primary_tracker: 'github',
        target: { key: 'acme/shop', name: 'Shop' },
      },
    });
    const shown = await ctx.request({ method: 'GET', url: `/api/v1/projects/${projectId}`, token: user.token });
    expect(shown.json().data.settings.primary_tracker).toBe('github');
    const audit = await ctx.db.selectFrom('audit_events').select(['action', 'details']).where('action', '=', 'project.updated').execute();
    expect(audit).toHaveLength(1);
    expect(JSON.parse(audit[0]!.details)).toMatchObject({ tracker_connection_id: { old: null, new: connectionId } });

    const unlinked = await putTracker(ctx, user.token, projectId, { connection_id: null });
    expect(unlinked.json().data).toMatchObject({ connection: null, primary_tracker: 'github' });
  });

  it("refuses another team's connection, an unknown one, a provider without tickets and a missing target (422)", async ({
    ctx,
    user,
    project,
    projectId,
    standIn,
  }) => {
    const stranger = await ctx.given.user();
    const theirs = await givenConnection(ctx, stranger.teamId!, 'github', standIn.url, { token: 'x-1234' });
    const gitea = await givenConnection(ctx, project.project.team_id, 'gitea', standIn.url, { token: 'x-1234' });
    const github = await givenConnection(ctx, project.project.team_id, 'github', standIn.url, { token: 'x-1234' });
    const field = async (body: unknown) => {
      const response = await putTracker(ctx, user.token, projectId, body);
      expect(response.statusCode, response.body).toBe(422);
      return response.json().errors;
    };
    expect(await field({ connection_id: github })).toHaveProperty('connection_id');
    await setTarget(ctx, projectId, 'acme/shop');
    expect(await field({ connection_id: theirs })).toHaveProperty('connection_id');
    expect(await field({ connection_id: uuidv7() })).toHaveProperty('connection_id');
    expect((await field({ connection_id: gitea })).connection_id[0]).toContain('gitea');
    expect(await field({})).toHaveProperty('connection_id');
    // Nothing was linked.
    const row = await ctx.db.selectFrom('projects').select('tracker_connection_id').where('id', '=', projectId).executeTakeFirstOrThrow();
    expect(row.tracker_connection_id).toBeNull();
  });

  it("is a 404 to someone outside the project's team, before the body's 422", async ({ ctx, projectId }) => {
    const stranger = await ctx.given.user({ plan: 'business' });
    expect((await putTracker(ctx, stranger.token, projectId, { connection_id: 5 })).statusCode).toBe(404);
    expect((await ctx.request({ method: 'GET', url: `/api/v1/projects/${projectId}/tracker`, token: stranger.token })).statusCode).toBe(
      404,
    );
  });
});

describe('E9.4 tickets', () => {
  it('has none while the tracker is internal or unset, or no connection is linked (409)', async ({ ctx, user, projectId, world }) => {
    const none = await createTicket(ctx, user.token, projectId, world.sql);
    expect(none.statusCode).toBe(409);
    expect(none.json().message).toContain('tracker is internal');
    const row = await ctx.db.selectFrom('projects').select('settings').where('id', '=', projectId).executeTakeFirstOrThrow();
    const settings = { ...JSON.parse(row.settings), primary_tracker: 'jira', ticket_target_project_key: 'SHOP' };
    await ctx.db
      .updateTable('projects')
      .set({ settings: JSON.stringify(settings) })
      .where('id', '=', projectId)
      .execute();
    const unlinked = await createTicket(ctx, user.token, projectId, world.sql);
    expect(unlinked.statusCode).toBe(409);
    expect(unlinked.json().message).toContain('no tracker connection');
  });

  it('creates a GitHub issue exactly as GitHub documents it, once, and shows it beside the state', async ({
    ctx,
    user,
    project,
    projectId,
    standIn,
    world,
  }) => {
    await githubProject(ctx, standIn, user, projectId, project.project.team_id);
    const response = await createTicket(ctx, user.token, projectId, world.sql);
    expect(response.statusCode, response.body).toBe(201);
    const ticket = response.json().data;
    expect(ticket).toEqual({
      provider: 'github',
      key: 'acme/shop#42',
      url: 'https://github.com/acme/shop/issues/42',
      created_at: expect.any(String),
      created_by: { id: user.id, name: 'Ada' },
      closed_at: null,
    });
    const sent = standIn.received.filter((request) => request.method === 'POST');
    expect(sent).toHaveLength(1);
    expect(sent[0]!.path).toBe('/repos/acme/shop/issues');
    expect(sent[0]!.headers.authorization).toBe(`Bearer ${GITHUB_TOKEN}`);
    expect(sent[0]!.headers['x-github-api-version']).toBe('2022-11-28');
    expect(sent[0]!.headers.accept).toBe('application/vnd.github+json');
    expect(sent[0]!.headers['user-agent']).toBeTruthy();
    const body = sent[0]!.json as { title: string; body: string };
    expect(Object.keys(body).sort()).toEqual(['body', 'title']);
    expect(body.title).toBe(`[Scoreboard] SQL Injection: ${SQL.message}`);
    expect(body.body).toContain('Severity\\: critical');
    expect(body.body).toContain(`(<https://github.com/acme/shop/blob/${'a'.repeat(40)}/app/Orders.php#L40>)`);
    expect(body.body).toContain('DB::select');
    expect(body.body).toContain(`/reports/${world.uuid}#issue-${world.sql}>)`);

    // One ticket per issue: the second is a 409 with the first, and nothing is sent.
    const again = await createTicket(ctx, user.token, projectId, world.sql);
    expect(again.statusCode).toBe(409);
    expect(again.json()).toMatchObject({ error: 'Conflict', ticket: ticket });
    expect(standIn.received.filter((request) => request.method === 'POST')).toHaveLength(1);

    // Every answer showing the issue's state shows its ticket: the issue list and the report.
    const list = await ctx.request({ method: 'GET', url: `/api/v1/projects/${projectId}/issues`, token: user.token });
    const listed = list.json().data.find((item: { fingerprint: string }) => item.fingerprint === world.sql);
    expect(listed.state).toMatchObject({ status: 'open', ticket });
    const report = await ctx.request({ method: 'GET', url: `/api/v1/reports/${world.uuid}`, token: user.token });
    expect(report.statusCode).toBe(200);
    expect(JSON.stringify(report.json())).toContain('"key":"acme/shop#42"');

    const stored = await ctx.db.selectFrom('issue_tickets').selectAll().executeTakeFirstOrThrow();
    expect(JSON.parse(stored.remote)).toEqual({ owner: 'acme', repo: 'shop', number: 42, id: 1042 });
    expect(stored.branch).toBe('main');
    const audit = await ctx.db.selectFrom('audit_events').selectAll().where('action', '=', 'ticket.created').execute();
    expect(audit).toHaveLength(1);
    expect(JSON.stringify(audit)).not.toContain(GITHUB_TOKEN);
  });

  it('creates a Jira Cloud issue with Basic auth at API v3, issue type Bug, its description in ADF', async ({
    ctx,
    user,
    project,
    projectId,
    standIn,
    world,
  }) => {
    const credentials = { email: 'ada@example.com', api_token: 'ATATT3xFfGF0jiratoken9876' };
    standIn.route('POST', '/rest/api/3/issue', () => ({
      status: 201,
      body: { id: '10000', key: 'SHOP-12', self: `${standIn.url}/rest/api/3/issue/10000` },
    }));
    const connectionId = await givenConnection(ctx, project.project.team_id, 'jira', standIn.url, credentials);
    await setTarget(ctx, projectId, 'SHOP');
    expect((await putTracker(ctx, user.token, projectId, { connection_id: connectionId })).statusCode).toBe(200);
    const response = await createTicket(ctx, user.token, projectId, world.xss);
    expect(response.statusCode, response.body).toBe(201);
    expect(response.json().data).toMatchObject({ provider: 'jira', key: 'SHOP-12', url: `${standIn.url}/browse/SHOP-12` });
    const [sent] = standIn.received;
    expect(sent!.method).toBe('POST');
    expect(sent!.path).toBe('/rest/api/3/issue');
    expect(sent!.headers.authorization).toBe(`Basic ${Buffer.from(`${credentials.email}:${credentials.api_token}`).toString('base64')}`);
    expect(sent!.headers['content-type']).toContain('application/json');
    const fields = (sent!.json as { fields: Record<string, any> }).fields;
    expect(fields.project).toEqual({ key: 'SHOP' });
    expect(fields.issuetype).toEqual({ name: 'Bug' });
    expect(fields.summary).toBe(`[Scoreboard] XSS Vulnerabilities: ${XSS.message}`);
    expect(fields.description).toMatchObject({ version: 1, type: 'doc' });
    expect(fields.description.content.map((node: { type: string }) => node.type)).toContain('codeBlock');
  });

  it('creates a Jira Data Center issue with a Bearer token at API v2, its description in wiki markup', async ({
    ctx,
    user,
    project,
    projectId,
    standIn,
    world,
  }) => {
    standIn.route('POST', '/rest/api/2/issue', () => ({
      status: 201,
      body: { id: '10001', key: 'SHOP-13', self: `${standIn.url}/rest/api/2/issue/10001` },
    }));
    const connectionId = await givenConnection(ctx, project.project.team_id, 'jira', standIn.url, { token: 'dc-pat-token-5678' });
    await setTarget(ctx, projectId, 'SHOP');
    await putTracker(ctx, user.token, projectId, { connection_id: connectionId });
    const response = await createTicket(ctx, user.token, projectId, world.xss);
    expect(response.statusCode, response.body).toBe(201);
    const [sent] = standIn.received;
    expect(sent!.path).toBe('/rest/api/2/issue');
    expect(sent!.headers.authorization).toBe('Bearer dc-pat-token-5678');
    const fields = (sent!.json as { fields: Record<string, any> }).fields;
    expect(typeof fields.description).toBe('string');
    expect(fields.description).toContain('{code}');
    expect(fields.description).toContain('* Severity: high');
  });

  it('creates a Linear issue on the team found by its key', async ({ ctx, user, project, projectId, standIn, world }) => {
    standIn.route('POST', '/graphql', (request) => {
      if (request.headers.authorization !== 'lin_api_key_4321')
        return { status: 400, body: { errors: [{ message: 'Authentication required' }] } };
      const { query, variables } = request.json as { query: string; variables: Record<string, any> };
      if (/\bteams\b/.test(query)) {
        return {
          status: 200,
          body: { data: { teams: { nodes: variables.key === 'ENG' ? [{ id: 'team-uuid-1', key: 'ENG', name: 'Engineering' }] : [] } } },
        };
      }
      if (/\bissueCreate\b/.test(query)) {
        return {
          status: 200,
          body: {
            data: {
              issueCreate: {
                success: true,
                issue: { id: 'issue-uuid-7', identifier: 'ENG-7', url: 'https://linear.app/acme/issue/ENG-7/x' },
              },
            },
          },
        };
      }
      return { status: 400, body: { errors: [{ message: 'unknown' }] } };
    });
    const connectionId = await givenConnection(ctx, project.project.team_id, 'linear', standIn.url, { api_key: 'lin_api_key_4321' });
    await setTarget(ctx, projectId, 'ENG');
    await putTracker(ctx, user.token, projectId, { connection_id: connectionId });
    const response = await createTicket(ctx, user.token, projectId, world.debug);
    expect(response.statusCode, response.body).toBe(201);
    expect(response.json().data).toMatchObject({ provider: 'linear', key: 'ENG-7', url: 'https://linear.app/acme/issue/ENG-7/x' });
    expect(standIn.received.map((request) => request.path)).toEqual(['/graphql', '/graphql']);
    const [find, create] = standIn.received.map((request) => request.json as { query: string; variables: Record<string, any> });
    expect(find!.query).toContain('teams(filter: { key: { eq: $key } })');
    expect(find!.variables).toEqual({ key: 'ENG' });
    expect(create!.query).toContain('issueCreate(input: $input)');
    expect(create!.variables.input).toMatchObject({
      teamId: 'team-uuid-1',
      title: expect.stringMatching(/^\[Scoreboard\] .+: APP_DEBUG is true$/),
    });
    expect(typeof create!.variables.input.description).toBe('string');
  });

  it('creates a GitLab issue at the url-encoded project path with PRIVATE-TOKEN', async ({
    ctx,
    user,
    project,
    projectId,
    standIn,
    world,
  }) => {
    standIn.route('POST', /^\/api\/v4\/projects\/([^/]+)\/issues$/, () => ({
      status: 201,
      body: { id: 84, iid: 7, project_id: 3, title: 't', web_url: 'https://gitlab.example/group/project/-/issues/7' },
    }));
    const connectionId = await givenConnection(ctx, project.project.team_id, 'gitlab', `${standIn.url}/api/v4`, {
      token: 'glpat-secret-0000',
    });
    await setTarget(ctx, projectId, 'group/project');
    await putTracker(ctx, user.token, projectId, { connection_id: connectionId });
    const response = await createTicket(ctx, user.token, projectId, world.sql);
    expect(response.statusCode, response.body).toBe(201);
    expect(response.json().data).toMatchObject({ provider: 'gitlab', key: 'group/project#7' });
    const [sent] = standIn.received;
    expect(sent!.path).toBe('/api/v4/projects/group%2Fproject/issues');
    expect(sent!.headers['private-token']).toBe('glpat-secret-0000');
    expect(Object.keys(sent!.json as object).sort()).toEqual(['description', 'title']);
    const stored = await ctx.db.selectFrom('issue_tickets').select('remote').executeTakeFirstOrThrow();
    expect(JSON.parse(stored.remote)).toEqual({ project_id: 3, iid: 7, id: 84 });
  });

  it("answers the provider's refusals as 502 with its message, never a credential", async ({
    ctx,
    user,
    project,
    projectId,
    standIn,
    world,
  }) => {
    await githubProject(ctx, standIn, user, projectId, project.project.team_id);
    const cases = [
      { status: 401, body: { message: `Bad credentials for ${GITHUB_TOKEN}` } },
      { status: 404, body: { message: 'Not Found' } },
      { status: 422, body: { message: 'Validation Failed', errors: [{ resource: 'Issue', code: 'missing_field', field: 'title' }] } },
      { status: 429, body: { message: 'API rate limit exceeded' }, headers: { 'retry-after': '30' } },
      { status: 503, body: { message: 'Service unavailable' } },
    ];
    for (const scripted of cases) {
      standIn.script.push(scripted);
      const response = await createTicket(ctx, user.token, projectId, world.sql);
      expect(response.statusCode, response.body).toBe(502);
      expect(response.json().message).toContain('GitHub did not create the ticket');
      expect(response.body).not.toContain(GITHUB_TOKEN);
    }
    standIn.script.push({ huge: 10 * 1024 * 1024 });
    const huge = await createTicket(ctx, user.token, projectId, world.sql);
    expect(huge.statusCode).toBe(502);
    expect(await ctx.db.selectFrom('issue_tickets').selectAll().execute()).toHaveLength(0);
    const events = await ctx.db.selectFrom('audit_events').selectAll().execute();
    expect(JSON.stringify(events)).not.toContain(GITHUB_TOKEN);
  });

  it('ends a hanging provider in a 502 within the deadline', { timeout: 40_000 }, async ({
    ctx,
    user,
    project,
    projectId,
    standIn,
    world,
  }) => {
    await githubProject(ctx, standIn, user, projectId, project.project.team_id);
    standIn.script.push('hang');
    const response = await createTicket(ctx, user.token, projectId, world.sql);
    expect(response.statusCode).toBe(502);
  });

  it('answers 404 for an issue no report holds, and to someone outside the team', async ({ ctx, user, projectId, world }) => {
    expect((await createTicket(ctx, user.token, projectId, 'f'.repeat(32))).json()).toMatchObject({ message: 'Issue not found.' });
    const stranger = await ctx.given.user({ plan: 'business' });
    expect((await createTicket(ctx, stranger.token, projectId, world.sql)).statusCode).toBe(404);
  });
});

describe('E9.4 bulk tickets', () => {
  it('checks every fingerprint first (422 naming each, nothing sent) and allows at most 50', async ({
    ctx,
    user,
    project,
    projectId,
    standIn,
    world,
  }) => {
    await githubProject(ctx, standIn, user, projectId, project.project.team_id);
    const unknown = await bulkTickets(ctx, user.token, projectId, { fingerprints: [world.sql, 'e'.repeat(32)] });
    expect(unknown.statusCode).toBe(422);
    expect(unknown.json().errors).toHaveProperty(['fingerprints.1']);
    const many = Array.from({ length: 51 }, (_, i) => i.toString(16).padStart(32, '0'));
    expect((await bulkTickets(ctx, user.token, projectId, { fingerprints: many })).statusCode).toBe(422);
    expect((await bulkTickets(ctx, user.token, projectId, { fingerprints: [] })).statusCode).toBe(422);
    expect(standIn.received.filter((request) => request.method === 'POST')).toHaveLength(0);
  });

  it('creates the rest in order, answers an existing ticket as it is, and stops at a provider failure keeping those made', async ({
    ctx,
    user,
    project,
    projectId,
    standIn,
    world,
  }) => {
    await githubProject(ctx, standIn, user, projectId, project.project.team_id);
    expect((await createTicket(ctx, user.token, projectId, world.xss)).statusCode).toBe(201);
    // The first bulk creation succeeds, the second fails.
    standIn.script.push(
      { status: 201, body: { id: 1, number: 100, html_url: 'https://github.com/acme/shop/issues/100' } },
      { status: 500, body: { message: 'boom' } },
    );
    const failed = await bulkTickets(ctx, user.token, projectId, { fingerprints: [world.sql, world.xss, world.debug] });
    expect(failed.statusCode).toBe(502);
    expect(failed.json().message).toContain('1 ticket was created before');
    expect(failed.json().data.map((item: { created: boolean }) => item.created)).toEqual([true, false]);
    const again = await bulkTickets(ctx, user.token, projectId, { fingerprints: [world.sql, world.xss, world.debug] });
    expect(again.statusCode, again.body).toBe(200);
    expect(again.json().data.map((item: { fingerprint: string; created: boolean }) => [item.fingerprint, item.created])).toEqual([
      [world.sql, false],
      [world.xss, false],
      [world.debug, true],
    ]);
    expect(again.json().message).toBe('1 ticket created; 2 issues had their tickets already.');
    expect(await ctx.db.selectFrom('issue_tickets').selectAll().execute()).toHaveLength(3);
  });
});

describe('E9.4 a ticket follows its issue', () => {
  it("moves with the state to a reformatted line's new fingerprint (E8.5)", async ({
    ctx,
    user,
    project,
    projectId,
    apiToken,
    standIn,
    world,
  }) => {
    await githubProject(ctx, standIn, user, projectId, project.project.team_id);
    const created = await createTicket(ctx, user.token, projectId, world.sql);
    expect(created.statusCode, created.body).toBe(201);
    const reformatted = { ...SQL, code: 'DB::select( "select * from orders where id = $id" );' };
    const uuid = await uploadSpots(ctx, apiToken, [reformatted, XSS, DEBUG], undefined, '2026-11-21T09:30:00Z');
    const moved = await fingerprintOf(ctx, user.token, uuid, reformatted);
    expect(moved).not.toBe(world.sql);
    const rows = await ctx.db.selectFrom('issue_tickets').select('fingerprint').execute();
    expect(rows).toEqual([{ fingerprint: moved }]);
    const list = await ctx.request({ method: 'GET', url: `/api/v1/projects/${projectId}/issues`, token: user.token });
    const item = list.json().data.find((candidate: { fingerprint: string }) => candidate.fingerprint === moved);
    expect(item.state.ticket).toMatchObject({ key: 'acme/shop#42' });
    expect(item.state.previous_fingerprints).toEqual([world.sql]);
  });
});
