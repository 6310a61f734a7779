import { describe, expect } from 'vitest';
import { appTest } from '../helpers/app-fixture.js';
import { fixtureText } from '../helpers/client-wire.js';
import { CLIENT_IP, eventCount, eventsAfter, firstTokenId, requester, USER_AGENT } from './audit-world.js';

const it = appTest({ user: { name: 'Ada' } })
  .extend('tokenId', async ({ ctx, user }) => await firstTokenId(ctx, user))
  .extend('send', ({ ctx }) => requester(ctx))
  /** Runs `change` and returns the one event it wrote. */
  .extend(
    'onlyEventOf',
    ({ ctx, tokenId, user }) =>
      async function onlyEventOf(change: () => Promise<{ statusCode: number; body: string }>, status = 200) {
        const before = await eventCount(ctx);
        const response = await change();
        expect(response.statusCode, response.body).toBe(status);
        const events = await eventsAfter(ctx, before);
        expect(events, JSON.stringify(events)).toHaveLength(1);
        const [event] = events;
        // The actor is the caller as identified by the token, with the request's origin.
        expect(event).toMatchObject({
          actor_type: 'user',
          actor_id: user.id,
          actor_email: user.email,
          actor_token_id: tokenId,
          ip: CLIENT_IP,
          user_agent: USER_AGENT,
          created_at: ctx.clock.now().toISOString(),
        });
        return event!;
      },
  )
  .extend(
    'createProject',
    ({ send, user }) =>
      async function createProject() {
        const response = await send('POST', '/api/v1/projects', user.token, { name: 'Shop', framework_version: '11' });
        return response.json().project.id as string;
      },
  );

/**
 * E5: every change made through the API writes exactly one audit event, naming who made it (the
 * user, the token, the IP address and User-Agent of the request), what it was about and what
 * changed; a request that changes nothing (refused, or a no-op) writes none.
 */
describe('audit events of project, report, badge and token changes (E5)', () => {
  it('project.created holds the fields given', async ({ user, send, onlyEventOf }) => {
    const event = await onlyEventOf(
      () =>
        send('POST', '/api/v1/projects', user.token, {
          name: 'Shop',
          framework_version: 12,
          repository_url: 'https://github.com/acme/shop',
        }),
      201,
    );
    expect(event).toMatchObject({ action: 'project.created', target_type: 'project', team_id: user.teamId });
    expect(event.target_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(event.details).toEqual({
      name: 'Shop',
      description: null,
      repository_url: 'https://github.com/acme/shop',
      framework_version: '12',
    });
  });

  it('project.updated holds the old and new value of each changed field only; a PUT that changes nothing writes no event', async ({
    ctx,
    user,
    send,
    onlyEventOf,
    createProject,
  }) => {
    const id = await createProject();
    const event = await onlyEventOf(() =>
      send('PUT', `/api/v1/projects/${id}`, user.token, { name: 'Shop 2', framework_version: '11', settings: { fail_on: 'high' } }),
    );
    expect(event).toMatchObject({ action: 'project.updated', target_type: 'project', target_id: id, team_id: user.teamId });
    expect(Object.keys(event.details).sort()).toEqual(['name', 'settings']);
    expect(event.details.name).toEqual({ old: 'Shop', new: 'Shop 2' });
    expect(event.details.settings).toMatchObject({ old: { fail_on: null }, new: { fail_on: 'high' } });

    const before = await eventCount(ctx);
    const same = await send('PUT', `/api/v1/projects/${id}`, user.token, { name: 'Shop 2', framework_version: '11' });
    expect(same.statusCode).toBe(200);
    expect(await eventCount(ctx)).toBe(before);
  });

  it('project.archived and project.unarchived, once per actual change', async ({ ctx, user, send, onlyEventOf, createProject }) => {
    const id = await createProject();
    expect((await onlyEventOf(() => send('POST', `/api/v1/projects/${id}/archive`, user.token))).action).toBe('project.archived');
    const before = await eventCount(ctx);
    expect((await send('POST', `/api/v1/projects/${id}/archive`, user.token)).statusCode).toBe(200);
    expect(await eventCount(ctx)).toBe(before);
    expect((await onlyEventOf(() => send('POST', `/api/v1/projects/${id}/unarchive`, user.token))).action).toBe('project.unarchived');
  });

  it('project.token_regenerated and project.badge_regenerated say nothing of the new secrets', async ({
    user,
    send,
    onlyEventOf,
    createProject,
  }) => {
    const id = await createProject();
    let secret = '';
    const regenerated = await onlyEventOf(async () => {
      const response = await send('POST', `/api/v1/projects/${id}/regenerate-token`, user.token);
      secret = response.json().api_token;
      return response;
    });
    expect(regenerated).toMatchObject({ action: 'project.token_regenerated', target_id: id, team_id: user.teamId, details: {} });
    expect(JSON.stringify(regenerated)).not.toContain(secret);

    let badgeUrl = '';
    const badge = await onlyEventOf(async () => {
      const response = await send('POST', `/api/v1/projects/${id}/badges/regenerate`, user.token);
      badgeUrl = response.json().data.score_svg;
      return response;
    });
    const key = /\/badges\/([^/]+)\//.exec(badgeUrl)![1]!;
    expect(badge).toMatchObject({ action: 'project.badge_regenerated', target_id: id, team_id: user.teamId, details: {} });
    expect(JSON.stringify(badge)).not.toContain(key);
  });

  it('project.deleted names the project', async ({ user, send, onlyEventOf, createProject }) => {
    const id = await createProject();
    const event = await onlyEventOf(() => send('DELETE', `/api/v1/projects/${id}`, user.token));
    expect(event).toMatchObject({
      action: 'project.deleted',
      target_type: 'project',
      target_id: id,
      team_id: user.teamId,
      details: { name: 'Shop' },
    });
  });

  it('report.deleted names the report by its uuid, with its project and analysis time', async ({ ctx, user, send, onlyEventOf }) => {
    const { project, apiToken } = await ctx.given.project(user);
    const upload = await ctx.request({
      method: 'POST',
      url: '/api/reports',
      token: apiToken,
      body: fixtureText('report-small', project.id),
    });
    expect(upload.statusCode).toBe(201);
    const [report] = (await send('GET', `/api/v1/projects/${project.id}/reports`, user.token)).json().data;
    const event = await onlyEventOf(() => send('DELETE', `/api/v1/reports/${report.uuid}`, user.token));
    expect(event).toMatchObject({
      action: 'report.deleted',
      target_type: 'report',
      target_id: report.uuid,
      team_id: user.teamId,
      details: { project_id: project.id, analyzed_at: report.analyzed_at },
    });
  });

  it('token.created and token.revoked carry the token metadata, never the token', async ({ ctx, user, send, onlyEventOf }) => {
    let plain = '';
    const created = await onlyEventOf(async () => {
      const response = await send('POST', '/api/v1/tokens', user.token, { name: 'CI', abilities: ['read'], expires_at: '2027-01-01' });
      plain = response.json().plain_text_token;
      return response;
    }, 201);
    const id = (await ctx.db.selectFrom('personal_access_tokens').select('id').where('name', '=', 'CI').executeTakeFirstOrThrow()).id;
    expect(created).toMatchObject({
      action: 'token.created',
      target_type: 'token',
      target_id: String(id),
      team_id: null,
      user_id: user.id,
      details: { name: 'CI', abilities: ['read'], expires_at: '2027-01-01T00:00:00.000Z' },
    });
    expect(JSON.stringify(created)).not.toContain(plain.slice(8, 48));
    const revoked = await onlyEventOf(() => send('DELETE', `/api/v1/tokens/${id}`, user.token));
    expect(revoked).toMatchObject({
      action: 'token.revoked',
      target_id: String(id),
      user_id: user.id,
      details: { name: 'CI', abilities: ['read'] },
    });
  });

  it('a refused change writes no event', async ({ ctx, user, send, createProject }) => {
    const id = await createProject();
    const readonly = await ctx.given.token(user, { abilities: ['read'] });
    const before = await eventCount(ctx);
    expect((await send('PUT', `/api/v1/projects/${id}`, user.token, { name: '', framework_version: '11' })).statusCode).toBe(422);
    expect((await send('DELETE', `/api/v1/projects/${id}`, readonly)).statusCode).toBe(403);
    expect((await send('DELETE', '/api/v1/tokens/999999', user.token)).statusCode).toBe(404);
    expect(await eventCount(ctx)).toBe(before);
  });

  it('the operator command acts as `operator`: the first token of users:create', async ({ ctx, user, tokenId }) => {
    const row = await ctx.db
      .selectFrom('audit_events')
      .selectAll()
      .where('action', '=', 'token.created')
      .where('user_id', '=', user.id)
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({
      actor_type: 'operator',
      actor_id: null,
      actor_email: null,
      actor_token_id: null,
      ip: null,
      user_agent: null,
      target_id: String(tokenId),
    });
  });
});
