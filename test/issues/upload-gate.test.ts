/**
 * E8.4 over HTTP: an upload's gate leaves out the issues under a dismissal in force when it is
 * received (accepted, false_positive, wont_fix; an acceptance until its expiry), for `fail_on` and
 * `fail_on_new`; the stored gate says how many in `dismissed`, wherever it shows; score and change
 * counts stay as they were; gates stored before read `dismissed: 0`.
 */
import { describe, expect } from 'vitest';
import { DISMISSALS } from '../../src/issues/issue-vocabulary.js';
import { appTest } from '../helpers/app-fixture.js';
import { upload } from '../helpers/client-wire.js';
import { body, DEBUG, decide, fingerprintOf, get, MAIN, send, setGate, SQL, XSS } from './upload-world.js';

const it = appTest({ user: { plan: 'business' } });

const HOUR = 3_600_000;

describe('E8.4: the gate leaves dismissed issues out', () => {
  it.for(DISMISSALS)(
    'fail_on: a failed analyzer whose only blocking issue is %s passes, and dismissed counts it',
    async (status, { ctx, user, projectId, apiToken }) => {
      const first = await send(ctx, apiToken, body([SQL, XSS]));
      await decide(ctx, user, projectId, await fingerprintOf(ctx, user, first.uuid, SQL), status);
      await setGate(ctx, user, projectId, { fail_on: 'critical' });

      const next = await send(ctx, apiToken, body([SQL, XSS]));
      expect(next.gate).toEqual({ passed: true, fail_on: 'critical', fail_threshold: null, fail_on_new: null, reasons: [], dismissed: 1 });
      // The high XSS issue still counts at fail_on high: the gate fails on it alone.
      await setGate(ctx, user, projectId, { fail_on: 'high' });
      const high = await send(ctx, apiToken, body([SQL, XSS]));
      expect(high.gate).toMatchObject({ passed: false, dismissed: 1 });
      expect(high.gate.reasons).toEqual(['1 issue at or above high severity in failed analyzers: xss-vulnerabilities.']);
    },
  );

  it.for(['open', 'confirmed'] as const)(
    'an issue whose state is %s is not dismissed: it still fails the gate',
    async (status, { ctx, user, projectId, apiToken }) => {
      const first = await send(ctx, apiToken, body([SQL]));
      await decide(ctx, user, projectId, await fingerprintOf(ctx, user, first.uuid, SQL), status);
      await setGate(ctx, user, projectId, { fail_on: 'critical', fail_on_new: 'critical' });
      const next = await send(ctx, apiToken, body([SQL], { git_branch: 'other' }));
      expect(next.gate).toMatchObject({ passed: false, dismissed: 0 });
      expect(next.gate.reasons).toHaveLength(2);
    },
  );

  it('fail_on_new: a dismissed new issue passes; the score and the change counts are as without states', async ({
    ctx,
    user,
    projectId,
    apiToken,
  }) => {
    // The issue's fingerprint, from a run on another branch (states hold for the whole project).
    const elsewhere = await send(ctx, apiToken, body([SQL], { git_branch: 'elsewhere' }));
    const fingerprint = await fingerprintOf(ctx, user, elsewhere.uuid, SQL);
    const baseline = await send(ctx, apiToken, body([XSS]));
    await setGate(ctx, user, projectId, { fail_on_new: 'high' });

    const without = await send(ctx, apiToken, body([XSS, SQL], { git_branch: 'twin' }));
    await decide(ctx, user, projectId, fingerprint, 'wont_fix');
    const dismissed = await send(ctx, apiToken, body([XSS, SQL]));
    expect(dismissed.gate).toEqual({ passed: true, fail_on: null, fail_threshold: null, fail_on_new: 'high', reasons: [], dismissed: 1 });
    expect(dismissed.report.score).toBe(without.report.score);
    const item = (await get(ctx, user, `/api/v1/reports/${dismissed.uuid}`)).data;
    expect(item.changes).toMatchObject({ baseline: { uuid: baseline.uuid }, new: 1, fixed: 0, unchanged: 1 });
    expect(item.issues_by_severity).toEqual(without.report.issues_by_severity);
  });

  it('counts every issue of the report under a dismissal, also those no rule reads (a warning, an unchanged one)', async ({
    ctx,
    user,
    projectId,
    apiToken,
  }) => {
    const warned = { ...DEBUG, status: 'warning' as const };
    const first = await send(ctx, apiToken, body([SQL, XSS, warned]));
    for (const spot of [SQL, XSS, warned]) {
      await decide(ctx, user, projectId, await fingerprintOf(ctx, user, first.uuid, spot), 'false_positive');
    }
    await setGate(ctx, user, projectId, { fail_on: 'low', fail_on_new: 'low' });
    const next = await send(ctx, apiToken, body([SQL, XSS, warned]));
    expect(next.gate).toMatchObject({ passed: true, reasons: [], dismissed: 3 });
  });

  it('an acceptance counts until it expires: the next upload after its expiry fails; stored gates stay as decided', async ({
    ctx,
    user,
    projectId,
    apiToken,
  }) => {
    const first = await send(ctx, apiToken, body([SQL]));
    const expiresAt = new Date(ctx.clock.now().getTime() + HOUR).toISOString();
    await decide(ctx, user, projectId, await fingerprintOf(ctx, user, first.uuid, SQL), 'accepted', { expiresAt });
    await setGate(ctx, user, projectId, { fail_on: 'critical' });

    ctx.clock.advance(HOUR - 1);
    const before = await send(ctx, apiToken, body([SQL]));
    expect(before.gate).toMatchObject({ passed: true, dismissed: 1 });

    ctx.clock.advance(1);
    const after = await send(ctx, apiToken, body([SQL]));
    expect(after.gate).toMatchObject({ passed: false, dismissed: 0 });

    const listed = (await get(ctx, user, `/api/v1/projects/${projectId}/reports`)).data as Record<string, any>[];
    const gates = Object.fromEntries(listed.map((item) => [item.uuid, item.gate]));
    expect(gates[before.uuid]).toEqual({ passed: true, reasons: [], dismissed: 1 });
    expect(gates[after.uuid]).toEqual({ passed: false, reasons: after.gate.reasons, dismissed: 0 });
  });

  it('the stored gate shows dismissed in the list, the detail, the branches, the pull requests, the webhook event and the retry answer (D40)', async ({
    ctx,
    user,
    projectId,
    apiToken,
  }) => {
    const first = await send(ctx, apiToken, body([SQL, XSS]));
    await decide(ctx, user, projectId, await fingerprintOf(ctx, user, first.uuid, SQL), 'false_positive');
    await setGate(ctx, user, projectId, { fail_on: 'high' });
    const hook = await ctx.request({
      method: 'POST',
      url: `/api/v1/projects/${projectId}/webhooks`,
      token: user.token,
      body: { url: 'https://hooks.example.com/scoreboard', events: ['report.created'] },
    });
    expect(hook.statusCode, hook.body).toBe(201);
    const pull = body([SQL, XSS], { ...MAIN, git_branch: 'feature', pr_number: '7', base_branch: 'main' }, '2026-11-21T09:30:00Z');
    const stored = await send(ctx, apiToken, pull);
    const gate = { passed: false, reasons: stored.gate.reasons, dismissed: 1 };
    expect(stored.gate).toMatchObject(gate);

    expect((await get(ctx, user, `/api/v1/reports/${stored.uuid}`)).data.gate).toEqual(gate);
    const listed = (await get(ctx, user, `/api/v1/projects/${projectId}/reports`)).data as Record<string, any>[];
    expect(listed.find((item) => item.uuid === stored.uuid)!.gate).toEqual(gate);
    const branches = (await get(ctx, user, `/api/v1/projects/${projectId}/branches`)).data as Record<string, any>[];
    expect(branches.find((branch) => branch.name === 'feature')!.latest_report.gate).toEqual(gate);
    const pulls = (await get(ctx, user, `/api/v1/projects/${projectId}/pull-requests`)).data as Record<string, any>[];
    expect(pulls[0]!.latest_report.gate).toEqual(gate);

    // E6: the report.created event's report, as the list shows it.
    const deliveries = await ctx.db.selectFrom('webhook_deliveries').select('payload').where('event', '=', 'report.created').execute();
    expect(deliveries.map((row) => JSON.parse(row.payload).data.report.gate)).toEqual([gate]);

    // The same upload again is answered with the first answer's gate (D40), dismissed included.
    const again = await upload(ctx, apiToken, pull);
    expect(again.statusCode).toBe(201);
    expect(again.json().gate).toEqual(stored.gate);
  });

  it('gates stored before E8.4 read dismissed: 0, in the list, the detail and a retry answer', async ({
    ctx,
    user,
    projectId,
    apiToken,
  }) => {
    const payload = body([SQL]);
    const old = await send(ctx, apiToken, payload);
    await ctx.db.updateTable('reports').set({ gate: '{"passed":true,"reasons":[]}' }).where('uuid', '=', old.uuid).execute();
    await ctx.db
      .updateTable('upload_receipts')
      .set({ gate: JSON.stringify({ passed: true, fail_on: null, fail_threshold: null, fail_on_new: null, reasons: [] }) })
      .where('project_id', '=', projectId)
      .execute();
    await ctx.db.deleteFrom('report_bodies').execute();

    const gate = { passed: true, reasons: [], dismissed: 0 };
    expect((await get(ctx, user, `/api/v1/reports/${old.uuid}`)).data.gate).toEqual(gate);
    expect((await get(ctx, user, `/api/v1/projects/${projectId}/reports`)).data[0].gate).toEqual(gate);
    const again = await upload(ctx, apiToken, payload);
    expect(again.statusCode).toBe(201);
    expect(again.json().gate).toEqual({ passed: true, fail_on: null, fail_threshold: null, fail_on_new: null, reasons: [], dismissed: 0 });
  });

  it('a project without states costs two statements more per upload, whatever its issues', async ({ ctx, apiToken }) => {
    await send(ctx, apiToken, body([SQL, XSS, DEBUG]));
    ctx.queries.length = 0;
    await send(ctx, apiToken, body([SQL, XSS, DEBUG]));
    // The gate's look for states in the upload's transaction; the stored answer's generation after it.
    const statements = ctx.queries.filter((query) => query.includes('issue_states') || query.includes('issue_state_changes'));
    expect(statements).toHaveLength(2);
    expect(statements.filter((query) => query.includes('issue_state_changes'))).toHaveLength(1);
  });
});
