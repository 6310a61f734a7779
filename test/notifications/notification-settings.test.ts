/**
 * E11.2 over HTTP: `GET /api/v1/user/notifications` (read) and `PUT` (write): the defaults, a PUT
 * that changes only what it names, the 422s, muted projects limited to the caller's teams (and
 * leaving the list when deleted), abilities, the audit event, and E11.1's `email_available`.
 */
import { describe, expect } from 'vitest';
import { appTest } from '../helpers/app-fixture.js';
import { expectValidationError, missingAbility } from '../helpers/contract.js';
import { countRows, type TestContext, type TestUser } from '../helpers/test-app.js';

const it = appTest();
const URL = '/api/v1/user/notifications';

const DEFAULTS = { gate_failed: true, new_issues: 'critical', weekly_digest: false, assigned: true, muted_projects: [] };
const NOT_A_PROJECT = 'The selected muted projects are invalid: each must be a project of one of your teams.';

const read = (ctx: TestContext, user: TestUser) => ctx.request({ method: 'GET', url: URL, token: user.token });
const change = (ctx: TestContext, user: TestUser, body: unknown, token = user.token) =>
  ctx.request({ method: 'PUT', url: URL, token, body });

async function eventsOf(ctx: TestContext, userId: number) {
  const rows = await ctx.db
    .selectFrom('audit_events')
    .selectAll()
    .where('action', '=', 'user.updated')
    .where('user_id', '=', userId)
    .orderBy('id')
    .execute();
  return rows.map((row) => ({ ...row, details: JSON.parse(row.details) }));
}

describe('GET /api/v1/user/notifications', () => {
  it('answers the defaults to a user who never chose, and says email is not available without SMTP', async ({ ctx, user }) => {
    const response = await read(ctx, user);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toEqual({ data: { ...DEFAULTS, email_available: false } });
    expect(await countRows(ctx.db, 'user_notification_settings')).toBe(0);
  });

  it('is open to a read-only token and to a user without a subscription', async ({ ctx }) => {
    const lapsed = await ctx.given.user({ plan: null, abilities: ['read'] });
    const response = await read(ctx, lapsed);
    expect(response.statusCode, response.body).toBe(200);
  });

  it('answers 401 without a credential', async ({ ctx }) => {
    expect((await ctx.request({ method: 'GET', url: URL })).statusCode).toBe(401);
  });
});

describe('PUT /api/v1/user/notifications', () => {
  it('changes only the fields it names; the others keep their value', async ({ ctx, user }) => {
    let response = await change(ctx, user, { weekly_digest: true });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json().data).toEqual({ ...DEFAULTS, weekly_digest: true, email_available: false });

    response = await change(ctx, user, { new_issues: 'high', gate_failed: false });
    expect(response.json().data).toEqual({
      ...DEFAULTS,
      weekly_digest: true,
      new_issues: 'high',
      gate_failed: false,
      email_available: false,
    });

    response = await change(ctx, user, { assigned: false, new_issues: 'none' });
    const expected = {
      gate_failed: false,
      new_issues: 'none',
      weekly_digest: true,
      assigned: false,
      muted_projects: [],
      email_available: false,
    };
    expect(response.json().data).toEqual(expected);
    expect((await read(ctx, user)).json().data).toEqual(expected);
  });

  it('answers the stored settings to an empty body, and records nothing', async ({ ctx, user }) => {
    const response = await change(ctx, user, {});
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json().data).toEqual({ ...DEFAULTS, email_available: false });
    expect(await eventsOf(ctx, user.id)).toEqual([]);
  });

  it.for([
    ['gate_failed', 'yes'],
    ['gate_failed', null],
    ['new_issues', 'info'],
    ['new_issues', 'CRITICAL'],
    ['weekly_digest', 1],
    ['assigned', 'false'],
    ['muted_projects', 'not a list'],
    ['muted_projects', null],
    ['muted_projects', ['not-a-uuid']],
    ['muted_projects', [42]],
  ] as const)('refuses %s = %j with a 422 naming the field, and stores nothing', async ([field, value], { ctx, user }) => {
    const response = await change(ctx, user, { weekly_digest: true, [field]: value });
    expect(response.statusCode, response.body).toBe(422);
    const fields = Object.keys(response.json().errors);
    expect(
      fields.every((name) => name === field || name.startsWith(`${field}.`)),
      response.body,
    ).toBe(true);
    expect(await countRows(ctx.db, 'user_notification_settings')).toBe(0);
  });

  it('refuses more than 1000 muted projects', async ({ ctx, user }) => {
    const ids = Array.from({ length: 1001 }, (_, i) => `0190a8f4-7c1d-7a4b-9f2e-${String(i).padStart(12, '0')}`);
    expectValidationError(await change(ctx, user, { muted_projects: ids }), ['muted_projects']);
  });

  it('refuses a project of another team, and an unknown one, naming muted_projects; stores nothing', async ({ ctx, user, project }) => {
    const stranger = await ctx.given.user();
    const theirs = await ctx.given.project(stranger, { name: 'Theirs' });
    for (const ids of [[project.project.id, theirs.project.id], ['0190a8f4-7c1d-7a4b-9f2e-3c5d6e7f8a9b']]) {
      const response = await change(ctx, user, { gate_failed: false, muted_projects: ids });
      expectValidationError(response, ['muted_projects'], { muted_projects: NOT_A_PROJECT });
    }
    expect(await countRows(ctx.db, 'notification_mutes')).toBe(0);
    expect(await countRows(ctx.db, 'user_notification_settings')).toBe(0);
    expect((await read(ctx, user)).json().data).toEqual({ ...DEFAULTS, email_available: false });
  });

  it("mutes projects of each of the caller's teams; duplicates and capitals count once; the list replaces the stored one", async ({
    ctx,
    user,
    project,
  }) => {
    const owner = await ctx.given.user();
    const teamId = await ctx.given.team(owner, 'Platform');
    await ctx.given.member(teamId, user, 'readonly');
    const shared = (await ctx.given.project(teamId, { name: 'Shared' })).project.id;
    const own = project.project.id;

    let response = await change(ctx, user, { muted_projects: [shared, own.toUpperCase(), own, shared] });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json().data.muted_projects).toEqual([own, shared].sort());
    expect((await read(ctx, user)).json().data.muted_projects).toEqual([own, shared].sort());

    response = await change(ctx, user, { muted_projects: [shared] });
    expect(response.json().data.muted_projects).toEqual([shared]);
    response = await change(ctx, user, { assigned: false });
    expect(response.json().data.muted_projects).toEqual([shared]);
    response = await change(ctx, user, { muted_projects: [] });
    expect(response.json().data.muted_projects).toEqual([]);
    expect(await countRows(ctx.db, 'notification_mutes')).toBe(0);
  });

  it('keeps a muted project of a team the user left, and takes it back in a later list', async ({ ctx, user, project }) => {
    const owner = await ctx.given.user();
    const teamId = await ctx.given.team(owner, 'Platform');
    await ctx.given.member(teamId, user, 'member');
    const shared = (await ctx.given.project(teamId, { name: 'Shared' })).project.id;
    expect((await change(ctx, user, { muted_projects: [shared] })).statusCode).toBe(200);

    const left = await ctx.request({ method: 'DELETE', url: `/api/v1/teams/${teamId}/members/${user.id}`, token: user.token });
    expect(left.statusCode, left.body).toBe(200);
    expect((await read(ctx, user)).json().data.muted_projects).toEqual([shared]);
    // The dashboard sends the whole list back with one more project.
    const response = await change(ctx, user, { muted_projects: [shared, project.project.id] });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json().data.muted_projects).toEqual([shared, project.project.id].sort());
  });

  it('drops a deleted project from the list', async ({ ctx, user, project }) => {
    const other = (await ctx.given.project(user, { name: 'Other' })).project.id;
    await change(ctx, user, { muted_projects: [project.project.id, other] });
    const deleted = await ctx.request({ method: 'DELETE', url: `/api/v1/projects/${project.project.id}`, token: user.token });
    expect(deleted.statusCode, deleted.body).toBe(200);
    expect((await read(ctx, user)).json().data.muted_projects).toEqual([other]);
  });

  it('needs the write ability: a read-only token gets 403 and changes nothing', async ({ ctx, user }) => {
    const readOnly = await ctx.given.token(user, { abilities: ['read'], name: 'read only' });
    const response = await change(ctx, user, { weekly_digest: true }, readOnly);
    expect(response.statusCode, response.body).toBe(403);
    expect(response.json()).toEqual(missingAbility('write'));
    expect((await read(ctx, user)).json().data.weekly_digest).toBe(false);
  });

  it('records one user.updated event with what changed, and none when nothing did', async ({ ctx, user, project }) => {
    const response = await change(ctx, user, { weekly_digest: true, new_issues: 'critical', muted_projects: [project.project.id] });
    expect(response.statusCode, response.body).toBe(200);
    const [event, ...more] = await eventsOf(ctx, user.id);
    expect(more).toEqual([]);
    expect(event).toMatchObject({ actor_id: user.id, target_type: 'user', target_id: String(user.id), team_id: null });
    expect(event!.details).toEqual({
      notifications: { weekly_digest: { old: false, new: true }, muted_projects: { added: [project.project.id], removed: [] } },
    });

    await change(ctx, user, { weekly_digest: true, muted_projects: [project.project.id] });
    expect(await eventsOf(ctx, user.id)).toHaveLength(1);

    await change(ctx, user, { muted_projects: [] });
    const events = await eventsOf(ctx, user.id);
    expect(events).toHaveLength(2);
    expect(events[1]!.details).toEqual({ notifications: { muted_projects: { added: [], removed: [project.project.id] } } });
  });
});

describe('email_available (E11.1)', () => {
  const withEmail = appTest({ env: { SMTP_URL: 'smtp://mailer:s3cret@127.0.0.1:2525', MAIL_FROM: 'Scoreboard <scoreboard@example.com>' } });
  const withoutSender = appTest({ env: { SMTP_URL: 'smtps://smtp.example.com:465' } });
  const withoutServer = appTest({ env: { MAIL_FROM: 'scoreboard@example.com' } });

  withEmail('is true when both SMTP_URL and MAIL_FROM are set', async ({ ctx, user }) => {
    expect((await read(ctx, user)).json().data.email_available).toBe(true);
    expect((await change(ctx, user, { assigned: false })).json().data.email_available).toBe(true);
  });

  withoutSender('is false with SMTP_URL alone', async ({ ctx, user }) => {
    expect((await read(ctx, user)).json().data.email_available).toBe(false);
  });

  withoutServer('is false with MAIL_FROM alone', async ({ ctx, user }) => {
    expect((await read(ctx, user)).json().data.email_available).toBe(false);
  });
});
