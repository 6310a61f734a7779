/**
 * E8.5 and E8.1's last seen report, at upload: a state whose issue was reformatted (same analyzer,
 * file and message, another fingerprint) moves to it when there is exactly one such new issue
 * without a state and no other state wants it, with `previous_fingerprints` and the audit event
 * `issue.state_carried`; otherwise nothing moves. The states of the issues a report holds see it
 * last when it is the newest holding them, and none once it is deleted.
 */
import { describe, expect } from 'vitest';
import { appTest } from '../helpers/app-fixture.js';
import type { TestContext, TestUser } from '../helpers/test-app.js';
import {
  body,
  decide,
  fingerprintOf,
  generationOf,
  get,
  reformatted,
  reportId,
  send,
  setGate,
  SQL,
  statesOf,
  XSS,
} from './upload-world.js';

const it = appTest({ user: { plan: 'business' } });

/** The `issue.state_carried` events of the user's team, newest first. */
async function carriedEvents(ctx: TestContext, user: TestUser): Promise<Record<string, any>[]> {
  return (await get(ctx, user, `/api/v1/teams/${user.teamId}/audit-events?action=issue.state_carried`)).data;
}

const MOVED = reformatted(SQL, 'DB::select("select * from orders where id = " . $id);', 41);

describe('E8.5: decisions survive small changes', () => {
  it('moves the state to the one reformatted issue: previous_fingerprints, the audit event, the gate', async ({
    ctx,
    user,
    projectId,
    apiToken,
  }) => {
    const first = await send(ctx, apiToken, body([SQL, XSS]));
    const old = await fingerprintOf(ctx, user, first.uuid, SQL);
    await decide(ctx, user, projectId, old, 'false_positive');
    await setGate(ctx, user, projectId, { fail_on: 'critical', fail_on_new: 'critical' });
    const generation = await generationOf(ctx, projectId);

    const next = await send(ctx, apiToken, body([MOVED, XSS], undefined, '2026-11-21T09:30:00Z'));
    const moved = await fingerprintOf(ctx, user, next.uuid, MOVED);
    expect(moved).not.toBe(old);
    // The reformatted issue is new against the baseline, and still dismissed: the gate passes.
    expect(next.gate).toMatchObject({ passed: true, reasons: [], dismissed: 1 });

    const states = await statesOf(ctx, projectId);
    expect([...states.keys()]).toEqual([moved]);
    const state = states.get(moved)!;
    expect(state).toMatchObject({ status: 'false_positive', comment: 'Decided false_positive', updated_by_id: user.id, line: 41 });
    expect(JSON.parse(state.previous_fingerprints)).toEqual([old]);
    expect(state.last_seen_report_id).toBe(await reportId(ctx, next.uuid));
    expect(await generationOf(ctx, projectId)).toBeGreaterThan(generation);

    const events = await carriedEvents(ctx, user);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      action: 'issue.state_carried',
      actor: { type: 'operator', id: null, email: null, token_id: null },
      target: { type: 'issue', id: moved },
      team_id: user.teamId,
      ip: null,
      details: { project_id: projectId, from: old, to: moved, report: next.uuid },
    });

    // Reformatted again: the list of earlier fingerprints grows, oldest first.
    const again = await send(ctx, apiToken, body([reformatted(SQL, 'DB::select($sql);', 42), XSS], undefined, '2026-11-21T09:45:00Z'));
    const third = await fingerprintOf(ctx, user, again.uuid, reformatted(SQL, 'DB::select($sql);', 42));
    expect(JSON.parse((await statesOf(ctx, projectId)).get(third)!.previous_fingerprints)).toEqual([old, moved]);
    expect(await carriedEvents(ctx, user)).toHaveLength(2);
  });

  it('moves nothing when two new issues share the analyzer, file and message', async ({ ctx, user, projectId, apiToken }) => {
    const first = await send(ctx, apiToken, body([SQL]));
    const old = await fingerprintOf(ctx, user, first.uuid, SQL);
    await decide(ctx, user, projectId, old, 'wont_fix');
    await setGate(ctx, user, projectId, { fail_on: 'critical' });

    const twin = reformatted(SQL, 'DB::select($other);', 90);
    const next = await send(ctx, apiToken, body([MOVED, twin], undefined, '2026-11-21T09:30:00Z'));
    expect([...(await statesOf(ctx, projectId)).keys()]).toEqual([old]);
    expect(await carriedEvents(ctx, user)).toEqual([]);
    expect(next.gate).toMatchObject({ passed: false, dismissed: 0 });
  });

  it('moves nothing when the only candidate already has a state of its own', async ({ ctx, user, projectId, apiToken }) => {
    const first = await send(ctx, apiToken, body([SQL]));
    const old = await fingerprintOf(ctx, user, first.uuid, SQL);
    await decide(ctx, user, projectId, old, 'false_positive');
    // The reformatted issue's fingerprint, from a run on another branch that holds both, decided about there.
    const elsewhere = await send(ctx, apiToken, body([SQL, MOVED], { git_branch: 'elsewhere' }));
    const candidate = await fingerprintOf(ctx, user, elsewhere.uuid, MOVED);
    await decide(ctx, user, projectId, candidate, 'confirmed');

    await send(ctx, apiToken, body([MOVED], undefined, '2026-11-21T09:30:00Z'));
    const states = await statesOf(ctx, projectId);
    expect(new Set(states.keys())).toEqual(new Set([old, candidate]));
    expect(states.get(candidate)!.status).toBe('confirmed');
    expect(JSON.parse(states.get(old)!.previous_fingerprints)).toEqual([]);
    expect(await carriedEvents(ctx, user)).toEqual([]);
  });

  it('moves nothing when two states want the same candidate', async ({ ctx, user, projectId, apiToken }) => {
    const twin = reformatted(SQL, 'DB::select($other);', 90);
    const first = await send(ctx, apiToken, body([SQL, twin]));
    const olds = [await fingerprintOf(ctx, user, first.uuid, SQL), await fingerprintOf(ctx, user, first.uuid, twin)];
    for (const old of olds) await decide(ctx, user, projectId, old, 'accepted');

    await send(ctx, apiToken, body([MOVED], undefined, '2026-11-21T09:30:00Z'));
    expect(new Set((await statesOf(ctx, projectId)).keys())).toEqual(new Set(olds));
    expect(await carriedEvents(ctx, user)).toEqual([]);
  });

  it('moves nothing to an unchanged issue, nor when the report still holds the fingerprint', async ({ ctx, user, projectId, apiToken }) => {
    const first = await send(ctx, apiToken, body([SQL, MOVED]));
    const old = await fingerprintOf(ctx, user, first.uuid, SQL);
    await decide(ctx, user, projectId, old, 'false_positive');
    // The baseline had MOVED already: it is unchanged, not new, so not a candidate.
    await send(ctx, apiToken, body([MOVED], undefined, '2026-11-21T09:30:00Z'));
    // Holding the fingerprint again: nothing to move either.
    await send(ctx, apiToken, body([SQL, MOVED], undefined, '2026-11-21T09:45:00Z'));
    expect([...(await statesOf(ctx, projectId)).keys()]).toEqual([old]);
    expect(await carriedEvents(ctx, user)).toEqual([]);
  });

  it('without a baseline every issue is a candidate (a branch’s first run)', async ({ ctx, user, projectId, apiToken }) => {
    const first = await send(ctx, apiToken, body([SQL]));
    const old = await fingerprintOf(ctx, user, first.uuid, SQL);
    await decide(ctx, user, projectId, old, 'false_positive');
    const next = await send(ctx, apiToken, body([MOVED], { git_branch: 'fresh' }));
    expect([...(await statesOf(ctx, projectId)).keys()]).toEqual([await fingerprintOf(ctx, user, next.uuid, MOVED)]);
  });
});

describe("E8.1: a state's last seen report, kept at upload", () => {
  it('moves to each newer report holding the issue, with the issue as it shows there; an older one leaves it; deleting it leaves none', async ({
    ctx,
    user,
    projectId,
    apiToken,
  }) => {
    const first = await send(ctx, apiToken, body([SQL], undefined, '2026-11-21T09:00:00Z'));
    const fingerprint = await fingerprintOf(ctx, user, first.uuid, SQL);
    await decide(ctx, user, projectId, fingerprint, 'confirmed');
    const generation = await generationOf(ctx, projectId);

    // The same fingerprint at another line and severity (neither is part of it, E1.2).
    const newer = await send(ctx, apiToken, body([{ ...SQL, line: 50, severity: 'high' }], undefined, '2026-11-21T09:30:00Z'));
    let state = (await statesOf(ctx, projectId)).get(fingerprint)!;
    expect(state).toMatchObject({ last_seen_report_id: await reportId(ctx, newer.uuid), line: 50, severity: 'high', status: 'confirmed' });
    expect(await generationOf(ctx, projectId)).toBeGreaterThan(generation);

    // An older run (D19: analyzed earlier), uploaded late, is not where it was last seen.
    await send(ctx, apiToken, body([{ ...SQL, line: 60 }], { git_branch: 'late' }, '2026-11-21T08:00:00Z'));
    state = (await statesOf(ctx, projectId)).get(fingerprint)!;
    expect(state).toMatchObject({ last_seen_report_id: await reportId(ctx, newer.uuid), line: 50 });

    // A report that no longer holds it (its baseline's fixed row does not count) leaves it too.
    await send(ctx, apiToken, body([XSS], undefined, '2026-11-21T09:45:00Z'));
    expect((await statesOf(ctx, projectId)).get(fingerprint)!.last_seen_report_id).toBe(await reportId(ctx, newer.uuid));

    const before = await generationOf(ctx, projectId);
    const deleted = await ctx.request({ method: 'DELETE', url: `/api/v1/reports/${newer.uuid}`, token: user.token });
    expect(deleted.statusCode, deleted.body).toBe(200);
    expect((await statesOf(ctx, projectId)).get(fingerprint)!.last_seen_report_id).toBeNull();
    expect(await generationOf(ctx, projectId)).toBeGreaterThan(before);
  });
});
