/**
 * E8.2 over HTTP: PUT /projects/{project}/issues/{fingerprint} and POST /projects/{project}/issues/bulk,
 * as a client that knows only the contract sees them: the state they answer (E8.1), that a PUT
 * replaces the state, the issue snapshotted from the newest report holding it (D19), every 422 of
 * the body (D3, D12), the 404s of the path (D4 step 7 before step 9, D15), and bulk's all or nothing.
 */
import { describe, expect } from 'vitest';
import { appTest } from '../helpers/app-fixture.js';
import {
  NOT_FOUND,
  SUBSCRIPTION_REQUIRED,
  UNAUTHENTICATED,
  expectApiHeaders,
  expectError,
  expectValidationError,
  missingAbility,
} from '../helpers/contract.js';
import { countRows, type TestContext } from '../helpers/test-app.js';
import {
  DEBUG,
  ISSUE_NOT_FOUND,
  SQL,
  TRACKED_ISSUE_KEYS,
  XSS,
  bulk,
  changesOf,
  fingerprintOf,
  manySpots,
  ok,
  putState,
  uploadSpots,
} from './issues-world.js';

const DAY = 24 * 60 * 60 * 1000;
const NOW = '2026-11-21T10:00:00.000Z';
/** 32 lowercase hex characters that no report holds. */
const UNKNOWN = 'f'.repeat(32);

/** How many `issue.updated` audit events are stored. */
const issueEvents = async (ctx: TestContext) =>
  (await ctx.db.selectFrom('audit_events').select('id').where('action', '=', 'issue.updated').execute()).length;

const it = appTest({ user: { plan: 'business', name: 'Ada' } })
  .extend(
    'put',
    ({ ctx, user, projectId }) =>
      (fingerprint: string, payload: unknown, token = user.token, project = projectId) =>
        putState(ctx, token, project, fingerprint, payload),
  )
  .extend(
    'bulkPost',
    ({ ctx, user, projectId }) =>
      (payload: unknown, token = user.token, project = projectId) =>
        bulk(ctx, token, project, payload),
  )
  /** A report on main holding SQL, XSS and DEBUG; their fingerprints. */
  .extend('world', async ({ ctx, user, apiToken }) => {
    const uuid = await uploadSpots(ctx, apiToken, [SQL, XSS, DEBUG]);
    const items = await changesOf(ctx, user.token, uuid);
    const fingerprint = (spot: typeof SQL) => items.find((item) => item.message === spot.message)!.fingerprint as string;
    return { uuid, items, sql: fingerprint(SQL), xss: fingerprint(XSS), debug: fingerprint(DEBUG) };
  });

describe('PUT /projects/{project}/issues/{fingerprint} (E8.2)', () => {
  it('answers the whole state (E8.1) with the issue as the report shows it', async ({ ctx, user, put, world }) => {
    const response = await put(world.sql, { status: 'false_positive', comment: '  The id is cast to int above.  ' });
    const { data } = ok(response);
    expectApiHeaders(response);
    expect(Object.keys(data).sort()).toEqual(TRACKED_ISSUE_KEYS);
    const item = world.items.find((candidate) => candidate.fingerprint === world.sql)!;
    const analyzedAt = (await ctx.request({ method: 'GET', url: `/api/v1/reports/${world.uuid}`, token: user.token })).json().data
      .analyzed_at;
    expect(data).toEqual({
      fingerprint: world.sql,
      status: 'false_positive',
      comment: 'The id is cast to int above.',
      assignee: null,
      expires_at: null,
      updated_by: { id: user.id, name: 'Ada' },
      updated_at: NOW,
      last_seen_report: { uuid: world.uuid, analyzed_at: analyzedAt },
      previous_fingerprints: [],
      ticket: null,
      issue: {
        analyzer_id: item.analyzer_id,
        analyzer_name: item.analyzer_name,
        category: item.category,
        severity: 'critical',
        message: SQL.message,
        location: item.location,
      },
    });
    expect(data.issue.location).toMatchObject({ file: SQL.file, line: SQL.line });
  });

  it.for(['open', 'confirmed'] as const)('takes %s without a comment', async (status, { put, world }) => {
    expect(ok(await put(world.xss, { status })).data).toMatchObject({ status, comment: null });
  });

  it.for(['accepted', 'false_positive', 'wont_fix'] as const)('takes the dismissal %s with a comment', async (status, { put, world }) => {
    expect(ok(await put(world.xss, { status, comment: 'Reviewed' })).data).toMatchObject({ status, comment: 'Reviewed' });
  });

  it('replaces the state: what a PUT leaves out is cleared; an equal PUT still moves updated_by and updated_at', async ({
    ctx,
    user,
    put,
    world,
  }) => {
    const colleague = await ctx.given.inRole(user, 'member');
    const first = ok(
      await put(world.sql, { status: 'accepted', comment: 'Until the rewrite', assignee_id: user.id, expires_at: '2027-01-01' }),
    ).data;
    expect(first).toMatchObject({
      status: 'accepted',
      comment: 'Until the rewrite',
      assignee: { id: user.id, name: 'Ada' },
      expires_at: '2027-01-01T00:00:00.000Z',
    });

    ctx.clock.advance(60_000);
    const second = ok(await put(world.sql, { status: 'confirmed' }, colleague.token)).data;
    expect(second).toMatchObject({
      status: 'confirmed',
      comment: null,
      assignee: null,
      expires_at: null,
      updated_by: { id: colleague.id, name: null },
      updated_at: '2026-11-21T10:01:00.000Z',
    });

    ctx.clock.advance(60_000);
    const again = ok(await put(world.sql, { status: 'confirmed' })).data;
    expect(again).toEqual({ ...second, updated_by: { id: user.id, name: 'Ada' }, updated_at: '2026-11-21T10:02:00.000Z' });
    expect(await countRows(ctx.db, 'issue_states')).toBe(1);
  });

  it('ignores fields the body may not set (D5)', async ({ ctx, put, world }) => {
    const { data } = ok(
      await put(world.debug, {
        status: 'confirmed',
        fingerprint: UNKNOWN,
        updated_by: { id: 999 },
        updated_at: '2020-01-01T00:00:00Z',
        previous_fingerprints: [UNKNOWN],
        ticket: { id: 1 },
      }),
    );
    expect(data).toMatchObject({ fingerprint: world.debug, updated_at: NOW, previous_fingerprints: [], ticket: null });
    expect(await countRows(ctx.db, 'issue_states')).toBe(1);
  });

  it('snapshots the issue from the newest report holding it (D19), on any branch; a fixed row holds nothing', async ({
    ctx,
    user,
    apiToken,
    put,
  }) => {
    const older = await uploadSpots(ctx, apiToken, [SQL, XSS], { git_branch: 'main' }, '2026-11-21T07:00:00Z');
    // The same line of code 10 lines further down: the same fingerprint (E1.2), on another branch, newer.
    const moved = { ...SQL, line: 50, severity: 'high' as const };
    const newer = await uploadSpots(ctx, apiToken, [moved], { git_branch: 'feature/x' }, '2026-11-21T08:00:00Z');
    // The newest report of all, on main: SQL is fixed there (a row taken from its baseline, `older`).
    const newest = await uploadSpots(ctx, apiToken, [XSS], { git_branch: 'main' }, '2026-11-21T09:00:00Z');
    const sql = await fingerprintOf(ctx, user.token, older, SQL);
    expect(await fingerprintOf(ctx, user.token, newer, moved)).toBe(sql);
    expect((await changesOf(ctx, user.token, newest, 'kind=fixed&')).map((item) => item.fingerprint)).toEqual([sql]);

    const { data } = ok(await put(sql, { status: 'confirmed' }));
    expect(data.last_seen_report).toEqual({ uuid: newer, analyzed_at: '2026-11-21T08:00:00.000Z' });
    expect(data.issue).toMatchObject({ severity: 'high', location: { file: SQL.file, line: 50 } });

    // A later write refreshes the snapshot: the newer report deleted, the older one is the newest holding it.
    const newerId = (await ctx.db.selectFrom('reports').select('id').where('uuid', '=', newer).executeTakeFirstOrThrow()).id;
    await ctx.given.deleteReport(
      { id: newerId },
      (await ctx.db.selectFrom('reports').select('project_id').executeTakeFirstOrThrow()).project_id,
    );
    const { data: refreshed } = ok(await put(sql, { status: 'confirmed' }));
    expect(refreshed.last_seen_report).toEqual({ uuid: older, analyzed_at: '2026-11-21T07:00:00.000Z' });
    expect(refreshed.issue).toMatchObject({ severity: 'critical', location: { file: SQL.file, line: 40 } });
  });

  describe('404 for the path (D4 step 7, D15)', () => {
    it('answers `Issue not found.` for a fingerprint no report of the project holds, or that is not one', async ({ put, world }) => {
      for (const fingerprint of [UNKNOWN, world.sql.toUpperCase(), world.sql.slice(1), `${world.sql}0`, 'not-a-fingerprint', '%20']) {
        expectError(await put(fingerprint, { status: 'confirmed' }), 404, ISSUE_NOT_FOUND);
      }
    });

    it('answers `Issue not found.` for an issue only another project holds', async ({ ctx, user, put, world }) => {
      const other = await ctx.given.project(user, { name: 'Other' });
      await uploadSpots(ctx, other.apiToken, [SQL, { ...SQL, message: 'Only over there' }]);
      const theirs = (
        await changesOf(
          ctx,
          user.token,
          (
            await ctx.db.selectFrom('reports').select('uuid').where('project_id', '=', other.project.id).executeTakeFirstOrThrow()
          ).uuid,
        )
      ).find((item) => item.message === 'Only over there')!.fingerprint;
      expectError(await put(theirs, { status: 'confirmed' }), 404, ISSUE_NOT_FOUND);
      // The same issue in both projects is one state per project.
      expect(ok(await put(world.sql, { status: 'confirmed' }, user.token, other.project.id)).data.fingerprint).toBe(world.sql);
    });

    it('answers `Issue not found.` once the only reports holding it are gone, even with a fixed row left', async ({
      ctx,
      user,
      apiToken,
      projectId,
      put,
    }) => {
      const first = await uploadSpots(ctx, apiToken, [SQL], { git_branch: 'main' }, '2026-11-21T07:00:00Z');
      const sql = await fingerprintOf(ctx, user.token, first, SQL);
      await uploadSpots(ctx, apiToken, [XSS], { git_branch: 'main' }, '2026-11-21T08:00:00Z');
      const firstId = (await ctx.db.selectFrom('reports').select('id').where('uuid', '=', first).executeTakeFirstOrThrow()).id;
      await ctx.given.deleteReport({ id: firstId }, projectId);
      expectError(await put(sql, { status: 'confirmed' }), 404, ISSUE_NOT_FOUND);
    });

    it('answers the project 404 for another team’s project, an unknown project and a read-only member', async ({
      ctx,
      user,
      put,
      projectId,
      world,
    }) => {
      const stranger = await ctx.given.user({ plan: 'business' });
      expectError(await put(world.sql, { status: 'confirmed' }, stranger.token), 404, NOT_FOUND);
      expectError(await put(world.sql, { status: 'confirmed' }, user.token, '0190a8f4-7c1d-7a4b-9f2e-3c5d6e7f8a9b'), 404, NOT_FOUND);
      expectError(await put(world.sql, { status: 'confirmed' }, user.token, 'not-a-uuid'), 404, NOT_FOUND);
      const readonly = await ctx.given.inRole(user, 'readonly');
      expectError(await put(world.sql, { status: 'confirmed' }, readonly.token), 404, NOT_FOUND);
      for (const role of ['member', 'admin'] as const) {
        const allowed = await ctx.given.inRole(user, role);
        expect(ok(await put(world.sql, { status: 'confirmed' }, allowed.token)).data.updated_by.id).toBe(allowed.id);
      }
      expect(projectId).toBeTruthy();
      expect(await countRows(ctx.db, 'issue_states')).toBe(1);
    });

    it('answers 404 before the body’s 422, and after the ability’s 403 and the body’s 400 (D4)', async ({ ctx, user, put, world }) => {
      const invalid = { status: 'maybe', comment: 5 };
      expectError(await put(UNKNOWN, invalid), 404, ISSUE_NOT_FOUND);
      const stranger = await ctx.given.user({ plan: 'business' });
      expectError(await put(world.sql, invalid, stranger.token), 404, NOT_FOUND);
      const reader = await ctx.given.token(user, { abilities: ['read'] });
      expectError(await put(UNKNOWN, invalid, reader), 403, missingAbility('write'));
      const malformed = await ctx.request({
        method: 'PUT',
        url: `/api/v1/projects/${(await ctx.db.selectFrom('projects').select('id').executeTakeFirstOrThrow()).id}/issues/${UNKNOWN}`,
        token: user.token,
        body: '{"status": ',
      });
      expect(malformed.statusCode).toBe(400);
      expect(await countRows(ctx.db, 'issue_states')).toBe(0);
    });
  });

  describe('422 for the body (D3, D12)', () => {
    it('needs a status among the five', async ({ put, world }) => {
      expectValidationError(await put(world.sql, {}), ['status'], { status: 'The status field is required.' });
      for (const status of ['maybe', 'OPEN', 3, null, ['open']]) {
        expectValidationError(await put(world.sql, { status }), ['status'], { status: 'The selected status is invalid.' });
      }
    });

    it('needs a comment for every dismissal; a blank one counts as none (D12)', async ({ ctx, put, world }) => {
      for (const status of ['accepted', 'false_positive', 'wont_fix']) {
        for (const comment of [undefined, null, '', '   \u200b ']) {
          expectValidationError(await put(world.sql, { status, comment }), ['comment'], {
            comment: `The comment field is required when status is ${status}.`,
          });
        }
      }
      expect(await countRows(ctx.db, 'issue_states')).toBe(0);
    });

    it('takes a comment of 1 to 2000 characters (code points), as a string only', async ({ put, world }) => {
      expect(ok(await put(world.sql, { status: 'wont_fix', comment: 'x' })).data.comment).toBe('x');
      const emoji = '😀'.repeat(2000);
      expect(ok(await put(world.sql, { status: 'wont_fix', comment: emoji })).data.comment).toBe(emoji);
      expectValidationError(await put(world.sql, { status: 'wont_fix', comment: 'y'.repeat(2001) }), ['comment'], {
        comment: 'The comment may not be greater than 2000 characters.',
      });
      expectValidationError(await put(world.sql, { status: 'confirmed', comment: 12 }), ['comment'], {
        comment: 'The comment field must be a string.',
      });
    });

    it('takes an expiry only with accepted, valid, in the future and at most 365 days ahead (fake clock)', async ({ put, world }) => {
      const accepted = (expires_at: unknown) => put(world.sql, { status: 'accepted', comment: 'For now', expires_at });
      for (const status of ['confirmed', 'false_positive', 'wont_fix', 'open']) {
        expectValidationError(await put(world.sql, { status, comment: 'c', expires_at: '2027-01-01' }), ['expires_at'], {
          expires_at: 'The expires at field is only allowed when status is accepted.',
        });
      }
      for (const bad of ['tomorrow', '2027-02-30', '2027-01-01T25:00:00Z', '2027-01-01T10:00:00']) {
        expectValidationError(await accepted(bad), ['expires_at'], { expires_at: 'The expires at field must be a valid date.' });
      }
      expectValidationError(await accepted(12), ['expires_at'], { expires_at: 'The expires at field must be a string.' });
      for (const past of ['2026-11-21', NOW, '2026-11-21T09:59:59.999Z']) {
        expectValidationError(await accepted(past), ['expires_at'], { expires_at: 'The expires at field must be a date after now.' });
      }
      const limit = new Date(Date.parse(NOW) + 365 * DAY).toISOString();
      expectValidationError(await accepted(new Date(Date.parse(limit) + 1).toISOString()), ['expires_at'], {
        expires_at: 'The expires at field must be a date at most 365 days from now.',
      });
      expect(ok(await accepted(limit)).data.expires_at).toBe(limit);
      expect(ok(await accepted('2026-11-21T10:00:00.001Z')).data.expires_at).toBe('2026-11-21T10:00:00.001Z');
      expect(ok(await accepted('2027-03-01T12:00:00+02:00')).data.expires_at).toBe('2027-03-01T10:00:00.000Z');
      expect(ok(await accepted('2027-03-01')).data.expires_at).toBe('2027-03-01T00:00:00.000Z');
      expect(ok(await accepted(null)).data.expires_at).toBeNull();
    });

    it('an acceptance reads open from its expiry on, without anything written (fake clock)', async ({ ctx, put, user, world }) => {
      const expires = new Date(Date.parse(NOW) + DAY).toISOString();
      ok(await put(world.sql, { status: 'accepted', comment: 'One day', assignee_id: user.id, expires_at: expires }));
      const mine = async () => (await ctx.request({ method: 'GET', url: '/api/v1/user/issues', token: user.token })).json().data[0];
      expect(await mine()).toMatchObject({ status: 'accepted', expires_at: expires });
      ctx.clock.advance(DAY - 1);
      expect((await mine()).status).toBe('accepted');
      ctx.clock.advance(1);
      expect(await mine()).toMatchObject({ status: 'open', comment: 'One day', expires_at: expires });
    });

    it('takes an assignee of the project’s team (any role) or null; anyone else is a 422', async ({ ctx, user, put, world }) => {
      const readonly = await ctx.given.inRole(user, 'readonly');
      expect(ok(await put(world.sql, { status: 'confirmed', assignee_id: readonly.id })).data.assignee).toEqual({
        id: readonly.id,
        name: null,
      });
      expect(ok(await put(world.sql, { status: 'confirmed', assignee_id: null })).data.assignee).toBeNull();
      const stranger = await ctx.given.user({ plan: 'business' });
      for (const assignee_id of [stranger.id, 999_999, 0, -1, 2 ** 31, 1e20]) {
        expectValidationError(await put(world.sql, { status: 'confirmed', assignee_id }), ['assignee_id'], {
          assignee_id: "The selected assignee id is invalid: it must be a member of the project's team.",
        });
      }
      for (const assignee_id of ['1', 1.5, true, { id: 1 }]) {
        expectValidationError(await put(world.sql, { status: 'confirmed', assignee_id }), ['assignee_id']);
      }
      // A member removed from the team can no longer be assigned.
      const leaving = await ctx.given.inRole(user, 'member');
      expect(ok(await put(world.sql, { status: 'confirmed', assignee_id: leaving.id })).data.assignee.id).toBe(leaving.id);
      await ctx.db.deleteFrom('team_members').where('user_id', '=', leaving.id).where('team_id', '=', user.teamId!).execute();
      expectValidationError(await put(world.sql, { status: 'confirmed', assignee_id: leaving.id }), ['assignee_id']);
    });

    it('names every failing field at once, and writes nothing', async ({ ctx, put, world }) => {
      const stranger = await ctx.given.user({ plan: 'business' });
      expectValidationError(await put(world.sql, { status: 'false_positive', expires_at: '2027-01-01', assignee_id: stranger.id }), [
        'assignee_id',
        'comment',
        'expires_at',
      ]);
      expect(await countRows(ctx.db, 'issue_states')).toBe(0);
      expect(await issueEvents(ctx)).toBe(0);
    });
  });
});

describe('the order of checks on both routes (D4, D7)', () => {
  it('401 without a token, 403 Subscription Required before the ability, the path and the body, then 403 for the ability', async ({
    ctx,
    user,
    projectId,
    world,
  }) => {
    const lapsed = await ctx.given.user({ plan: null });
    const lapsedProject = (await ctx.given.project(lapsed)).project.id;
    const weak = await ctx.given.token(lapsed, { abilities: ['read'] });
    const requests = (token: string | undefined, project: string, fingerprint: string, payload: unknown) => [
      ctx.request({ method: 'PUT', url: `/api/v1/projects/${project}/issues/${fingerprint}`, token, body: payload }),
      ctx.request({ method: 'POST', url: `/api/v1/projects/${project}/issues/bulk`, token, body: payload }),
    ];
    for (const response of await Promise.all(requests(undefined, projectId, world.sql, { status: 'confirmed' }))) {
      expectError(response, 401, UNAUTHENTICATED);
    }
    for (const response of await Promise.all(requests(weak, lapsedProject, UNKNOWN, { status: 'maybe' }))) {
      expectError(response, 403, SUBSCRIPTION_REQUIRED);
    }
    const reader = await ctx.given.token(user, { abilities: ['read'] });
    for (const response of await Promise.all(requests(reader, '0190a8f4-7c1d-7a4b-9f2e-3c5d6e7f8a9b', UNKNOWN, { status: 'maybe' }))) {
      expectError(response, 403, missingAbility('write'));
    }
    expect(await countRows(ctx.db, 'issue_states')).toBe(0);
  });
});

describe('POST /projects/{project}/issues/bulk (E8.2)', () => {
  it('changes every listed issue; answers their states in the request’s order and how many', async ({ ctx, user, bulkPost, world }) => {
    const fingerprints = [world.debug, world.sql, world.xss];
    const answer = ok(await bulkPost({ fingerprints, status: 'wont_fix', comment: 'Legacy module', assignee_id: user.id }));
    expect(answer.message).toBe('3 issues updated.');
    expect(answer.data.map((state: Record<string, unknown>) => state.fingerprint)).toEqual(fingerprints);
    for (const state of answer.data) {
      expect(Object.keys(state).sort()).toEqual(TRACKED_ISSUE_KEYS);
      expect(state).toMatchObject({
        status: 'wont_fix',
        comment: 'Legacy module',
        assignee: { id: user.id, name: 'Ada' },
        expires_at: null,
        updated_by: { id: user.id, name: 'Ada' },
        updated_at: NOW,
        last_seen_report: { uuid: world.uuid },
      });
    }
    expect(answer.data.map((state: Record<string, any>) => state.issue.message)).toEqual([DEBUG.message, SQL.message, XSS.message]);
    expect(await countRows(ctx.db, 'issue_states')).toBe(3);
    expect(ok(await bulkPost({ fingerprints: [world.sql], status: 'open' })).message).toBe('1 issue updated.');
  });

  it('is all or nothing: one fingerprint no report holds is a 422 naming it, and nothing is written', async ({ ctx, bulkPost, world }) => {
    const response = await bulkPost({ fingerprints: [world.sql, UNKNOWN, world.xss], status: 'confirmed' });
    expectValidationError(response, ['fingerprints.1'], {
      'fingerprints.1': `The selected fingerprints.1 is invalid: no report of the project holds the issue ${UNKNOWN}.`,
    });
    expect(await countRows(ctx.db, 'issue_states')).toBe(0);
    expect(await issueEvents(ctx)).toBe(0);
    expect(await countRows(ctx.db, 'issue_state_changes')).toBe(0);
    // A body rule failing after the fingerprints are found rolls everything back too.
    const stranger = await ctx.given.user({ plan: 'business' });
    expectValidationError(await bulkPost({ fingerprints: [world.sql, world.xss], status: 'confirmed', assignee_id: stranger.id }), [
      'assignee_id',
    ]);
    expect(await countRows(ctx.db, 'issue_states')).toBe(0);
  });

  it('refuses a list that is empty, too long, repeated, malformed or not a list (422)', async ({ bulkPost, world }) => {
    expectValidationError(await bulkPost({ status: 'confirmed' }), ['fingerprints'], {
      fingerprints: 'The fingerprints field is required.',
    });
    expectValidationError(await bulkPost({ fingerprints: [], status: 'confirmed' }), ['fingerprints'], {
      fingerprints: 'The fingerprints field must have at least 1 item.',
    });
    const tooMany = Array.from({ length: 501 }, (_, i) => i.toString(16).padStart(32, '0'));
    expectValidationError(await bulkPost({ fingerprints: tooMany, status: 'confirmed' }), ['fingerprints'], {
      fingerprints: 'The fingerprints field may not have more than 500 items.',
    });
    expectValidationError(await bulkPost({ fingerprints: [world.sql, world.xss, world.sql], status: 'confirmed' }), ['fingerprints'], {
      fingerprints: 'The fingerprints field has a duplicate value: items 0 and 2 are equal.',
    });
    expectValidationError(await bulkPost({ fingerprints: [world.sql, world.xss.toUpperCase(), 7], status: 'confirmed' }), [
      'fingerprints.1',
      'fingerprints.2',
    ]);
    expectValidationError(await bulkPost({ fingerprints: world.sql, status: 'confirmed' }), ['fingerprints']);
    expectValidationError(await bulkPost({ fingerprints: [world.sql], status: 'accepted' }), ['comment']);
  });

  it('answers 404 for another team’s project and a read-only member, 403 for a read-only token', async ({ ctx, user, bulkPost, world }) => {
    const payload = { fingerprints: [world.sql], status: 'confirmed' };
    const stranger = await ctx.given.user({ plan: 'business' });
    expectError(await bulkPost(payload, stranger.token), 404, NOT_FOUND);
    expectError(await bulkPost({ fingerprints: [] }, stranger.token), 404, NOT_FOUND);
    const readonly = await ctx.given.inRole(user, 'readonly');
    expectError(await bulkPost(payload, readonly.token), 404, NOT_FOUND);
    const reader = await ctx.given.token(user, { abilities: ['read'] });
    expectError(await bulkPost(payload, reader), 403, missingAbility('write'));
    expect(await countRows(ctx.db, 'issue_states')).toBe(0);
  });

  it('finds issues of older reports and other branches, each from the newest report holding it', async ({
    ctx,
    user,
    apiToken,
    bulkPost,
  }) => {
    const old = await uploadSpots(ctx, apiToken, [SQL], { git_branch: 'release' }, '2026-11-21T06:00:00Z');
    const other = await uploadSpots(ctx, apiToken, [XSS], { git_branch: 'feature/y' }, '2026-11-21T07:00:00Z');
    const latest = await uploadSpots(ctx, apiToken, [DEBUG], { git_branch: 'main' }, '2026-11-21T08:00:00Z');
    const fingerprints = [
      await fingerprintOf(ctx, user.token, old, SQL),
      await fingerprintOf(ctx, user.token, latest, DEBUG),
      await fingerprintOf(ctx, user.token, other, XSS),
    ];
    const { data } = ok(await bulkPost({ fingerprints, status: 'confirmed' }));
    expect(data.map((state: Record<string, any>) => state.last_seen_report.uuid)).toEqual([old, latest, other]);
  });

  it('takes 500 issues in a bounded number of statements', async ({ ctx, user, apiToken, projectId, bulkPost }) => {
    const spots = manySpots(500);
    const uuid = await uploadSpots(ctx, apiToken, spots);
    const fingerprints = (await changesOf(ctx, user.token, uuid)).map((item) => item.fingerprint as string);
    expect(fingerprints).toHaveLength(500);
    const hook = await ctx.request({
      method: 'POST',
      url: `/api/v1/projects/${projectId}/webhooks`,
      token: user.token,
      body: { url: 'https://hooks.example.com/issues', events: ['issue.updated'] },
    });
    expect(hook.statusCode).toBe(201);
    ctx.queries.length = 0;
    const answer = ok(await bulkPost({ fingerprints, status: 'accepted', comment: 'Bulk', expires_at: '2027-01-01' }));
    expect(answer.data).toHaveLength(500);
    expect(answer.message).toBe('500 issues updated.');
    // Identification, the lock, the probe of the latest report, one upsert, the counter, the states
    // read back, one insert of audit events and one of deliveries: a few dozen at most, not 500s.
    expect(ctx.queries.length).toBeLessThan(40);
    expect(await issueEvents(ctx)).toBe(500);
    expect(await countRows(ctx.db, 'webhook_deliveries')).toBe(500);
  });
});
