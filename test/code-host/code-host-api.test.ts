/**
 * E10.1 over HTTP: linking a project to a repository through a connection of its team, reading the
 * link (any member), changing and removing it (owner or admin, else 404), the 422s of a connection
 * that is not a code host or of another team and of a repository name the host would not take, the
 * audit event, and E10.4's deliveries list (empty before any report).
 */
import { describe, expect } from 'vitest';
import { appTest } from '../helpers/app-fixture.js';
import type { TestContext } from '../helpers/test-app.js';
import { box, givenConnection } from '../tickets/tickets-world.js';

const it = appTest({ user: { plan: 'business', name: 'Ada' }, deps: { secrets: box } });

const url = (projectId: string) => `/api/v1/projects/${projectId}/code-host`;
const put = (ctx: TestContext, token: string, projectId: string, body: unknown) =>
  ctx.request({ method: 'PUT', url: url(projectId), token, body });
const NOT_LINKED = { error: 'Not Found', message: 'This project is not linked to a code host.' };

describe('E10.1 a project linked to a repository', () => {
  it('links, answers the link to any member, changes it and unlinks it, each change audited', async ({ ctx, user, project, projectId }) => {
    const teamId = project.project.team_id;
    const github = await givenConnection(ctx, teamId, 'github', 'https://api.github.com', { token: 'ghp_link1234' });
    const gitlab = await givenConnection(ctx, teamId, 'gitlab', 'https://gitlab.com/api/v4', { token: 'glpat-link' });

    const none = await ctx.request({ method: 'GET', url: url(projectId), token: user.token });
    expect(none.statusCode).toBe(404);
    expect(none.json()).toEqual(NOT_LINKED);

    const linked = await put(ctx, user.token, projectId, { connection_id: github, repository: 'acme/shop' });
    expect(linked.statusCode, linked.body).toBe(200);
    const data = linked.json().data;
    expect(data).toEqual({
      connection: { id: github, provider: 'github', name: 'github of the team' },
      repository: 'acme/shop',
      commit_status: true,
      pull_request_comment: true,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });

    const member = await ctx.given.inRole(user, 'member');
    const shown = await ctx.request({ method: 'GET', url: url(projectId), token: member.token });
    expect(shown.statusCode).toBe(200);
    expect(shown.json()).toEqual({ data });

    const changed = await put(ctx, user.token, projectId, {
      connection_id: gitlab,
      repository: 'acme/backend/shop',
      commit_status: false,
      pull_request_comment: true,
    });
    expect(changed.statusCode, changed.body).toBe(200);
    expect(changed.json().data).toMatchObject({
      connection: { id: gitlab, provider: 'gitlab' },
      repository: 'acme/backend/shop',
      commit_status: false,
      pull_request_comment: true,
      created_at: data.created_at,
    });

    const removed = await ctx.request({ method: 'DELETE', url: url(projectId), token: user.token });
    expect(removed.statusCode).toBe(200);
    expect(removed.json()).toEqual({ message: 'Code host unlinked successfully.' });
    expect((await ctx.request({ method: 'GET', url: url(projectId), token: user.token })).json()).toEqual(NOT_LINKED);
    const again = await ctx.request({ method: 'DELETE', url: url(projectId), token: user.token });
    expect(again.statusCode).toBe(404);
    expect(again.json()).toEqual(NOT_LINKED);

    const events = await ctx.db
      .selectFrom('audit_events')
      .select(['action', 'details'])
      .where('action', '=', 'project.updated')
      .orderBy('id')
      .execute();
    expect(events.map((event) => JSON.parse(event.details).code_host)).toEqual([
      { old: null, new: { connection_id: github, repository: 'acme/shop', commit_status: true, pull_request_comment: true } },
      {
        old: { connection_id: github, repository: 'acme/shop', commit_status: true, pull_request_comment: true },
        new: { connection_id: gitlab, repository: 'acme/backend/shop', commit_status: false, pull_request_comment: true },
      },
      { old: { connection_id: gitlab, repository: 'acme/backend/shop', commit_status: false, pull_request_comment: true }, new: null },
    ]);
    // No credential of the connection in any event.
    expect(JSON.stringify(events)).not.toContain('ghp_link1234');
  });

  it("takes each host's repository names and refuses the others (422 naming the field)", async ({ ctx, user, project, projectId }) => {
    const teamId = project.project.team_id;
    const cases: [string, string, string[], string[]][] = [
      ['github', 'https://api.github.com', ['acme/shop', 'a.b/c_d-e'], ['acme', 'acme/shop/extra', '../shop', 'acme/ shop', 'acme/..']],
      ['gitlab', 'https://gitlab.com/api/v4', ['acme/shop', 'acme/backend/shop', '278964'], ['shop', '0', 'acme//shop', 'acme/shop?x']],
      ['gitea', 'https://gitea.example.com/api/v1', ['acme/shop'], ['acme/shop/x']],
      ['bitbucket', 'https://api.bitbucket.org/2.0', ['acme/shop'], ['acme']],
    ];
    for (const [provider, base, good, bad] of cases) {
      const connection = await givenConnection(ctx, teamId, provider, base, { token: `${provider}-token-1` });
      for (const repository of good) {
        const response = await put(ctx, user.token, projectId, { connection_id: connection, repository });
        expect(response.statusCode, `${provider} ${repository}: ${response.body}`).toBe(200);
      }
      for (const repository of bad) {
        const response = await put(ctx, user.token, projectId, { connection_id: connection, repository });
        expect(response.statusCode, `${provider} ${repository}`).toBe(422);
        expect(Object.keys(response.json().errors)).toEqual(['repository']);
      }
    }
  });

  it("refuses another team's connection, an unknown one and one that is not a code host (422), changing nothing", async ({
    ctx,
    user,
    project,
    projectId,
  }) => {
    const jira = await givenConnection(ctx, project.project.team_id, 'jira', 'https://acme.atlassian.net', { token: 'dc-token' });
    const stranger = await ctx.given.user({ plan: 'business' });
    const foreign = await givenConnection(ctx, stranger.teamId!, 'github', 'https://api.github.com', { token: 'ghp_foreign' });
    for (const connection_id of [foreign, '0190a8f4-7c1d-7a4b-9f2e-3c5d6e7f8a9b', 'not-a-uuid', jira]) {
      const response = await put(ctx, user.token, projectId, { connection_id, repository: 'acme/shop' });
      expect(response.statusCode, connection_id).toBe(422);
      expect(Object.keys(response.json().errors)).toEqual(['connection_id']);
    }
    expect(JSON.stringify((await put(ctx, user.token, projectId, { connection_id: jira, repository: 'acme/shop' })).json())).toContain(
      'jira connection',
    );
    expect(await ctx.db.selectFrom('project_code_hosts').selectAll().execute()).toEqual([]);
    const missing = await put(ctx, user.token, projectId, { repository: 'acme/shop' });
    expect(missing.statusCode).toBe(422);
    expect(missing.json().errors).toHaveProperty('connection_id');
  });

  it('lets only the owner or an admin link or unlink (a member or readonly gets 404); any member reads', async ({
    ctx,
    user,
    project,
    projectId,
  }) => {
    const github = await givenConnection(ctx, project.project.team_id, 'github', 'https://api.github.com', { token: 'ghp_roles' });
    const body = { connection_id: github, repository: 'acme/shop' };
    for (const role of ['member', 'readonly'] as const) {
      const someone = await ctx.given.inRole(user, role);
      expect((await put(ctx, someone.token, projectId, body)).statusCode, role).toBe(404);
      expect((await ctx.request({ method: 'DELETE', url: url(projectId), token: someone.token })).statusCode).toBe(404);
      expect((await ctx.request({ method: 'GET', url: `${url(projectId)}/deliveries`, token: someone.token })).statusCode).toBe(200);
    }
    const admin = await ctx.given.inRole(user, 'admin');
    expect((await put(ctx, admin.token, projectId, body)).statusCode).toBe(200);
    const outsider = await ctx.given.user({ plan: 'business' });
    expect((await ctx.request({ method: 'GET', url: url(projectId), token: outsider.token })).statusCode).toBe(404);
    expect((await ctx.request({ method: 'DELETE', url: url(projectId), token: admin.token })).statusCode).toBe(200);
  });

  it('deletes the link with its connection', async ({ ctx, user, project, projectId }) => {
    const github = await givenConnection(ctx, project.project.team_id, 'github', 'https://api.github.com', { token: 'ghp_gone' });
    expect((await put(ctx, user.token, projectId, { connection_id: github, repository: 'acme/shop' })).statusCode).toBe(200);
    const deleted = await ctx.request({
      method: 'DELETE',
      url: `/api/v1/teams/${project.project.team_id}/connections/${github}`,
      token: user.token,
    });
    expect(deleted.statusCode).toBe(200);
    expect((await ctx.request({ method: 'GET', url: url(projectId), token: user.token })).statusCode).toBe(404);
  });
});

describe('E10.4 the deliveries list', () => {
  it('is empty, paginated like D16, before any report', async ({ ctx, user, projectId }) => {
    const response = await ctx.request({ method: 'GET', url: `${url(projectId)}/deliveries`, token: user.token });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({ data: [], meta: { current_page: 1, total: 0 } });
  });
});
