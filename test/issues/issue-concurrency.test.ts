/**
 * E8.2 under concurrency (D26, D22), on both backends: parallel PUTs on one issue end in exactly
 * one of the sent states, whole, with every change counted; a bulk change racing an upload is
 * wholly before or wholly after it (both lock the project row), so the states it writes agree.
 */
import { describe, expect } from 'vitest';
import { appTest } from '../helpers/app-fixture.js';
import { uploadOk } from '../helpers/client-wire.js';
import { body, bulk, changesOf, manySpots, ok, putState, SQL, uploadSpots, XSS } from './issues-world.js';

const it = appTest({ user: { plan: 'business' } });

describe('concurrent changes of issue states', () => {
  it('parallel PUTs on one issue: each answers 200, the row is exactly one of them, whole; every change is counted', async ({
    ctx,
    user,
    apiToken,
    projectId,
  }) => {
    const uuid = await uploadSpots(ctx, apiToken, [SQL, XSS]);
    const fingerprint = (await changesOf(ctx, user.token, uuid)).find((item) => item.message === SQL.message)!.fingerprint as string;
    const members = await Promise.all([0, 1, 2].map(() => ctx.given.inRole(user, 'member')));
    const people = [user, ...members];
    const statuses = ['confirmed', 'accepted', 'false_positive', 'wont_fix', 'open'] as const;
    const sent = Array.from({ length: 10 }, (_, i) => ({
      status: statuses[i % statuses.length]!,
      comment: `Decision ${i}`,
      assignee_id: people[(i + 1) % people.length]!.id,
      ...(statuses[i % statuses.length] === 'accepted' && { expires_at: `2027-0${1 + (i % 9)}-01` }),
    }));
    const answers = await Promise.all(
      sent.map((payload, i) => putState(ctx, people[i % people.length]!.token, projectId, fingerprint, payload)),
    );
    for (const answer of answers) expect(answer.statusCode, answer.body).toBe(200);

    const rows = await ctx.db.selectFrom('issue_states').selectAll().execute();
    expect(rows).toHaveLength(1);
    const [row] = rows;
    const index = sent.findIndex((payload) => payload.comment === row!.comment);
    expect(index).toBeGreaterThanOrEqual(0);
    const winner = sent[index]!;
    expect(row).toMatchObject({
      status: winner.status,
      comment: winner.comment,
      assignee_id: winner.assignee_id,
      expires_at: 'expires_at' in winner ? `${winner.expires_at}T00:00:00.000Z` : null,
      updated_by_id: people[index % people.length]!.id,
      analyzer_id: SQL.analyzer,
      message: SQL.message,
    });
    // Each change counted once: the audit log and the stored answers' generation (D28) saw all ten.
    const events = await ctx.db.selectFrom('audit_events').select('id').where('action', '=', 'issue.updated').execute();
    expect(events).toHaveLength(10);
    const generation = await ctx.db
      .selectFrom('issue_state_changes')
      .select('generation')
      .where('project_id', '=', projectId)
      .executeTakeFirst();
    expect(generation?.generation).toBe(10);
  });

  it('a bulk change racing an upload is all before or all after it: the states agree on the newest report', async ({
    ctx,
    user,
    apiToken,
    projectId,
  }) => {
    const spots = manySpots(60);
    const first = await uploadSpots(ctx, apiToken, spots, { git_branch: 'main' }, '2026-11-21T05:00:00Z');
    const fingerprints = (await changesOf(ctx, user.token, first)).map((item) => item.fingerprint as string);
    expect(fingerprints).toHaveLength(60);

    for (let round = 0; round < 4; round++) {
      const analyzedAt = `2026-11-21T0${6 + round}:00:00.000Z`;
      const [changed, uploaded] = await Promise.all([
        bulk(ctx, user.token, projectId, { fingerprints, status: round % 2 === 0 ? 'confirmed' : 'wont_fix', comment: `Round ${round}` }),
        uploadOk(ctx, apiToken, body(spots, { git_branch: 'main' }, analyzedAt)),
      ]);
      const states = ok(changed).data as Record<string, any>[];
      const seen = new Set(states.map((state) => state.last_seen_report.uuid));
      // Every state of the bulk change saw the same reports: the new one (the upload came first) or none of it.
      expect(seen.size).toBe(1);
      expect([uploaded.report.uuid, ...seen].length).toBe(2);
      const stored = await ctx.db
        .selectFrom('issue_states')
        .select(['comment', 'last_seen_report_id'])
        .where('project_id', '=', projectId)
        .execute();
      expect(stored).toHaveLength(60);
      expect(new Set(stored.map((row) => row.comment))).toEqual(new Set([`Round ${round}`]));
      expect(new Set(stored.map((row) => row.last_seen_report_id)).size).toBe(1);
    }
  });
});
