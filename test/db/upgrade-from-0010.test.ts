import { describe, expect } from 'vitest';
import { it } from '../helpers/app-fixture.js';
import { addWebhook, downToAndBack, expectTokenVerifies, givenReleaseData, readsOf } from './upgrade-world.js';

/**
 * Migration 0011 (E7's sessions) on a live database: what the release before it wrote (a database at
 * 0010) reads the same after `scoreboard migrate` — tokens, users, projects with their settings,
 * reports, webhooks, the audit log — and its users, who have no password yet, are refused by the
 * sign-in until the operator sets one, while their tokens go on working.
 */
describe('migration 0011 on a database written by the release before it', () => {
  it('reads everything the same after the upgrade; users sign in once the operator gives them a password', async ({ ctx }) => {
    const { user, projectId, apiToken, uuids } = await givenReleaseData(ctx, ['report-small', 'report-full'], ({ user, projectId }) =>
      addWebhook(ctx, user, projectId),
    );
    const readAll = readsOf(ctx, user, [
      '/api/v1/user',
      '/api/v1/tokens',
      `/api/v1/projects/${projectId}`,
      '/api/v1/projects',
      `/api/v1/projects/${projectId}/reports`,
      `/api/v1/projects/${projectId}/webhooks`,
      '/api/v1/user/audit-events',
      ...uuids.flatMap((uuid) => [`/api/v1/reports/${uuid}`, `/api/v1/reports/${uuid}/changes`]),
    ]);
    const before = await readAll();

    // Back to the previous release's schema: no password column, no sessions.
    await downToAndBack(ctx, '0010-webhooks');

    expect(await readAll()).toEqual(before);
    expect(await ctx.db.selectFrom('users').select('password_hash').execute()).toEqual([{ password_hash: null }]);
    expect(await ctx.db.selectFrom('sessions').select('id').execute()).toEqual([]);
    await expectTokenVerifies(ctx, apiToken, projectId);

    // A user of the previous release has no password: the sign-in refuses them like a wrong one...
    const refused = await ctx.request({
      method: 'POST',
      url: '/api/v1/session',
      body: { email: user.email, password: 'anything long enough' },
    });
    expect(refused.statusCode).toBe(401);
    // ... until the operator sets one (users:password); then their session reads what their token reads.
    await ctx.given.password(user, 'a password for the dashboard');
    const signIn = await ctx.request({
      method: 'POST',
      url: '/api/v1/session',
      body: { email: user.email, password: 'a password for the dashboard' },
    });
    expect(signIn.statusCode, signIn.body).toBe(201);
    const cookie = `scoreboard_session=${signIn.cookies[0]!.value}`;
    const viaSession = await ctx.request({ method: 'GET', url: `/api/v1/projects/${projectId}`, headers: { cookie } });
    expect(viaSession.body).toBe(before[2]);
  });
});
