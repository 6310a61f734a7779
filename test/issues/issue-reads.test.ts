/**
 * E8.3 and E8.2's list over HTTP: every issue of the report detail and of a report's changes carries
 * its state (E8.1 without `issue`), decided or not; the stored detail answer (D28) follows a state
 * change and an acceptance's expiry without an upload; `changes?state=`; and
 * GET /projects/{project}/issues with its filters, order, pagination, branch, 422s and 404s.
 */
import { gunzipSync } from 'node:zlib';
import { describe, expect } from 'vitest';
import { appTest } from '../helpers/app-fixture.js';
import { expectApiHeaders, expectNotFound, expectValidationError } from '../helpers/contract.js';
import { servicesOn, type TestContext } from '../helpers/test-app.js';
import type { Caller } from '../../src/auth/caller.js';
import { BODY_PIECE_BYTES } from '../../src/reports/answer/stored-body.js';
import { serializerCompiler } from '../../src/wire/serialization.js';
import { ReportDetailResponse } from '../../src/reports/reports.schemas.js';
import { DEBUG, MAIN, SQL, XSS, changesOf, manySpots, ok, putState, uploadSpots, type Spot } from './issues-world.js';

const DAY = 24 * 60 * 60 * 1000;
const NOW = '2026-11-21T10:00:00.000Z';

const it = appTest({ user: { plan: 'business', name: 'Ada' } })
  .extend(
    'put',
    ({ ctx, user, projectId }) =>
      async (fingerprint: string, payload: Record<string, unknown>) =>
        ok(await putState(ctx, user.token, projectId, fingerprint, payload)).data,
  )
  .extend('detail', ({ ctx, user }) => async (uuid: string, token = user.token) => {
    const response = await ctx.request({ method: 'GET', url: `/api/v1/reports/${uuid}`, token });
    expect(response.statusCode, response.body).toBe(200);
    // The stored answer is what the route's own serialiser writes for it, byte for byte.
    expect(serializerCompiler({ schema: ReportDetailResponse })(response.json())).toBe(response.body);
    return response.json().data as Record<string, any>;
  })
  .extend('list', ({ ctx, user, projectId }) => async (query = '', token = user.token, project = projectId) => {
    const response = await ctx.request({ method: 'GET', url: `/api/v1/projects/${project}/issues${query}`, token });
    expect(response.statusCode, response.body).toBe(200);
    expectApiHeaders(response);
    return response.json() as { data: Record<string, any>[]; links: Record<string, string | null>; meta: Record<string, any> };
  })
  /** A report on main holding SQL, XSS and DEBUG; their fingerprints. */
  .extend('world', async ({ ctx, user, apiToken }) => {
    const uuid = await uploadSpots(ctx, apiToken, [SQL, XSS, DEBUG]);
    const items = await changesOf(ctx, user.token, uuid);
    const fingerprint = (spot: Spot) => items.find((item) => item.message === spot.message)!.fingerprint as string;
    return { uuid, sql: fingerprint(SQL), xss: fingerprint(XSS), debug: fingerprint(DEBUG) };
  });

/** An issue nobody decided about (E8.1). */
const open = (fingerprint: string) => ({
  fingerprint,
  status: 'open',
  comment: null,
  assignee: null,
  expires_at: null,
  updated_by: null,
  updated_at: null,
  last_seen_report: null,
  previous_fingerprints: [],
  ticket: null,
});

/** The detail's issues, by fingerprint. */
const issuesOf = (detail: Record<string, any>) =>
  new Map<string, Record<string, any>>(
    detail.results.flatMap((result: { issues: Record<string, any>[] }) => result.issues.map((issue) => [issue.fingerprint, issue])),
  );

const storedBody = (ctx: TestContext, uuid: string) =>
  ctx.db
    .selectFrom('report_bodies as b')
    .innerJoin('reports as r', 'r.id', 'b.report_id')
    .select(['b.id', 'b.states_generation', 'b.fresh_until'])
    .where('r.uuid', '=', uuid)
    .where('b.superseded_at', 'is', null)
    .executeTakeFirst();

describe('states in the report detail (E8.3)', () => {
  it('shows each issue its state after its change: decided ones in full, the others open', async ({ ctx, user, detail, put, world }) => {
    const before = issuesOf(await detail(world.uuid));
    expect(before.get(world.sql)!.state).toEqual(open(world.sql));
    // `state` follows `change`.
    const keys = Object.keys(before.get(world.sql)!);
    expect(keys.indexOf('state')).toBe(keys.indexOf('change') + 1);

    const decided = await put(world.sql, { status: 'false_positive', comment: 'Cast to int above.', assignee_id: user.id });
    const { issue: _issue, ...state } = decided;
    const after = issuesOf(await detail(world.uuid));
    expect(after.get(world.sql)!.state).toEqual(state);
    expect(after.get(world.sql)!.state).toMatchObject({
      status: 'false_positive',
      comment: 'Cast to int above.',
      assignee: { id: user.id, name: 'Ada' },
      updated_by: { id: user.id, name: 'Ada' },
      updated_at: NOW,
      last_seen_report: { uuid: world.uuid },
    });
    expect(after.get(world.xss)!.state).toEqual(open(world.xss));
    expect(after.get(world.debug)!.state).toEqual(open(world.debug));
    // Readable as gzip too, the same text.
    const zipped = await ctx.request({
      method: 'GET',
      url: `/api/v1/reports/${world.uuid}`,
      token: user.token,
      headers: { 'accept-encoding': 'gzip' },
    });
    expect(zipped.headers['content-encoding']).toBe('gzip');
    expect(JSON.parse(gunzipSync(zipped.rawPayload).toString('utf8')).data.results).toEqual((await detail(world.uuid)).results);
  });

  it('stores the answer again, under a new id, once a state changed (generation), and not otherwise', async ({
    ctx,
    detail,
    put,
    world,
  }) => {
    await detail(world.uuid);
    const first = (await storedBody(ctx, world.uuid))!;
    await detail(world.uuid);
    expect(await storedBody(ctx, world.uuid)).toEqual(first);

    await put(world.xss, { status: 'confirmed' });
    expect(issuesOf(await detail(world.uuid)).get(world.xss)!.state.status).toBe('confirmed');
    const second = (await storedBody(ctx, world.uuid))!;
    expect(second.id).not.toBe(first.id);
    expect(second.states_generation).toBeGreaterThan(first.states_generation);
    // Read again: the stored one, unchanged.
    expect(issuesOf(await detail(world.uuid)).get(world.xss)!.state.status).toBe('confirmed');
    expect(await storedBody(ctx, world.uuid)).toEqual(second);

    await put(world.xss, { status: 'open' });
    expect(issuesOf(await detail(world.uuid)).get(world.xss)!.state).toMatchObject({ status: 'open', updated_at: NOW });
  });

  it('lets a client reading the replaced answer in pieces read all of it; replaced answers are forgotten later', async ({
    ctx,
    user,
    apiToken,
    detail,
    put,
  }) => {
    const uuid = await uploadSpots(ctx, apiToken, manySpots(4000));
    const items = await changesOf(ctx, user.token, uuid, 'severity=low&');
    const [first, second] = [items[0]!.fingerprint as string, items[1]!.fingerprint as string];
    const reports = servicesOn(ctx.db, ctx.clock).reports;
    const row = await reports.resolveReport({ userId: user.id } as Caller, uuid, 'view');
    const old = await reports.detailBody(row);
    expect(old.length).toBeGreaterThan(BODY_PIECE_BYTES);
    // The first piece read; the rest when the client reads on.
    const stream = old.stream();
    const pieces: Buffer[] = [];
    const firstPiece = await new Promise<Buffer>((resolve, reject) => {
      stream.once('data', resolve);
      stream.once('error', reject);
    });
    stream.pause();
    pieces.push(firstPiece);

    await put(first, { status: 'confirmed' });
    expect(issuesOf(await detail(uuid)).get(first)!.state.status).toBe('confirmed');
    const bodies = () => ctx.db.selectFrom('report_bodies').select(['id', 'superseded_at']).orderBy('id').execute();
    expect((await bodies()).map((body) => body.superseded_at)).toEqual([NOW, null]);

    for await (const piece of stream) pieces.push(piece as Buffer);
    const text = gunzipSync(Buffer.concat(pieces)).toString('utf8');
    // The whole of the old answer: as it was, the state before the change.
    expect(issuesOf(JSON.parse(text).data).get(first)!.state.status).toBe('open');

    // A replaced answer is kept ten minutes, then forgotten at the next replacement.
    ctx.clock.advance(11 * 60 * 1000);
    await put(second, { status: 'confirmed' });
    expect(issuesOf(await detail(uuid)).get(second)!.state.status).toBe('confirmed');
    expect((await bodies()).map((body) => body.superseded_at)).toEqual([new Date(Date.parse(NOW) + 11 * 60 * 1000).toISOString(), null]);
  });

  it('shows an acceptance open again once it expires, without an upload or a change (fresh_until)', async ({ ctx, detail, put, world }) => {
    const expiresAt = new Date(Date.parse(NOW) + 2 * DAY).toISOString();
    await put(world.sql, { status: 'accepted', comment: 'Until the refactoring lands.', expires_at: expiresAt });
    expect(issuesOf(await detail(world.uuid)).get(world.sql)!.state).toMatchObject({ status: 'accepted', expires_at: expiresAt });
    expect((await storedBody(ctx, world.uuid))!.fresh_until).toBe(expiresAt);

    ctx.clock.advance(DAY);
    expect(issuesOf(await detail(world.uuid)).get(world.sql)!.state.status).toBe('accepted');
    ctx.clock.advance(DAY);
    const expired = issuesOf(await detail(world.uuid)).get(world.sql)!.state;
    // Open again, the decision still on record (E8.1).
    expect(expired).toMatchObject({ status: 'open', comment: 'Until the refactoring lands.', expires_at: expiresAt });
    expect((await storedBody(ctx, world.uuid))!.fresh_until).toBeNull();
  });

  it('stores an upload’s answer with the states of its time, read after its transaction', async ({ ctx, apiToken, detail, put, world }) => {
    await put(world.debug, { status: 'wont_fix', comment: 'Local only.' });
    const second = await uploadSpots(ctx, apiToken, [SQL, DEBUG], MAIN, '2026-11-21T09:30:00Z');
    const generation = await ctx.db.selectFrom('issue_state_changes').select('generation').executeTakeFirstOrThrow();
    const stored = (await storedBody(ctx, second))!;
    // Stored at upload with the current generation: the first read sends it as it is.
    expect(stored.states_generation).toBe(generation.generation);
    const issues = issuesOf(await detail(second));
    expect(issues.get(world.debug)!.state).toMatchObject({ status: 'wont_fix', comment: 'Local only.' });
    expect(issues.get(world.sql)!.state).toEqual(open(world.sql));
    expect(await storedBody(ctx, second)).toEqual(stored);
  });

  it('builds an answer stored before E8 (generation -1) again, with its states', async ({ ctx, detail, put, world }) => {
    await put(world.sql, { status: 'confirmed' });
    await detail(world.uuid);
    await ctx.db.updateTable('report_bodies').set({ states_generation: -1 }).execute();
    expect(issuesOf(await detail(world.uuid)).get(world.sql)!.state.status).toBe('confirmed');
    expect((await storedBody(ctx, world.uuid))!.states_generation).toBeGreaterThan(0);
  });
});

describe('states in a report’s changes (E8.3)', () => {
  it('adds each item its state, fixed ones included, and filters by a dismissal in force now', async ({
    ctx,
    user,
    apiToken,
    put,
    world,
  }) => {
    await put(world.sql, { status: 'false_positive', comment: 'Cast to int above.' });
    await put(world.debug, { status: 'accepted', comment: 'For now.', expires_at: new Date(Date.parse(NOW) + DAY).toISOString() });
    await put(world.xss, { status: 'confirmed' });
    // The second run no longer has DEBUG: it is listed as fixed, with its state.
    const second = await uploadSpots(ctx, apiToken, [SQL, XSS, { ...XSS, message: 'Another output' }], MAIN, '2026-11-21T09:30:00Z');
    const all = await changesOf(ctx, user.token, second);
    const byFingerprint = new Map(all.map((item) => [item.fingerprint, item]));
    expect(byFingerprint.get(world.debug)).toMatchObject({ change: 'fixed', state: { status: 'accepted', comment: 'For now.' } });
    expect(byFingerprint.get(world.sql)!.state).toMatchObject({ status: 'false_positive' });
    expect(byFingerprint.get(world.xss)!.state).toMatchObject({ status: 'confirmed' });
    const fresh = all.find((item) => item.message === 'Another output')!;
    expect(fresh.state).toEqual(open(fresh.fingerprint));
    expect(Object.keys(all[0]!).at(-1)).toBe('state');

    const fingerprints = (items: Record<string, any>[]) => items.map((item) => item.fingerprint).sort();
    expect(fingerprints(await changesOf(ctx, user.token, second, 'state=dismissed&'))).toEqual([world.sql, world.debug].sort());
    expect(fingerprints(await changesOf(ctx, user.token, second, 'state=open&'))).toEqual([world.xss, fresh.fingerprint].sort());
    // With the other filters.
    expect(fingerprints(await changesOf(ctx, user.token, second, 'state=dismissed&kind=fixed&'))).toEqual([world.debug]);

    // The acceptance expires: open again, at once.
    ctx.clock.advance(DAY);
    expect(fingerprints(await changesOf(ctx, user.token, second, 'state=dismissed&'))).toEqual([world.sql]);
    expect(fingerprints(await changesOf(ctx, user.token, second, 'state=open&'))).toEqual(
      [world.xss, fresh.fingerprint, world.debug].sort(),
    );
  });

  it('keeps the state filter in the pagination links', async ({ ctx, user, apiToken }) => {
    const uuid = await uploadSpots(ctx, apiToken, manySpots(25));
    const response = await ctx.request({
      method: 'GET',
      url: `/api/v1/reports/${uuid}/changes?state=open&severity=low`,
      token: user.token,
    });
    const answer = ok(response);
    expect(answer.meta.total).toBe(25);
    expect(answer.links.next).toMatch(/\/changes\?severity=low&state=open&page=2$/);
  });

  it('refuses any other state like a bad kind (422)', async ({ ctx, user, world }) => {
    for (const state of ['dismissal', 'accepted', 'OPEN', '']) {
      const response = await ctx.request({
        method: 'GET',
        url: `/api/v1/reports/${world.uuid}/changes?state=${state}`,
        token: user.token,
      });
      expectValidationError(response, ['state']);
    }
  });
});

describe('GET /projects/{project}/issues (E8.2)', () => {
  it('lists the latest report’s issues (not the fixed ones) with their states, most severe first', async ({
    ctx,
    user,
    apiToken,
    list,
    put,
    world,
  }) => {
    await put(world.xss, { status: 'confirmed' });
    // The latest report (D19) has SQL and XSS, and a second high issue of another analyzer.
    const other = { ...XSS, analyzer: 'a-first-analyzer', message: 'Also high' };
    const latest = await uploadSpots(ctx, apiToken, [XSS, SQL, other], MAIN, '2026-11-21T09:30:00Z');
    const answer = await list();
    expect(answer.data.map((item) => [item.severity, item.analyzer_id, item.change])).toEqual([
      ['critical', 'sql-injection', 'unchanged'],
      ['high', 'a-first-analyzer', 'new'],
      ['high', 'xss-vulnerabilities', 'unchanged'],
    ]);
    expect(answer.data[2]!.state).toMatchObject({ fingerprint: world.xss, status: 'confirmed' });
    expect(answer.data[0]!.state).toEqual(open(world.sql));
    // DEBUG is the latest report's fixed row (its baseline's issue): not one of its issues.
    const latestChanges = await changesOf(ctx, user.token, latest);
    expect(latestChanges.find((item) => item.fingerprint === world.debug)?.change).toBe('fixed');
    expect(answer.data.map((item) => item.fingerprint)).not.toContain(world.debug);
    expect(answer.meta).toMatchObject({ total: 3, current_page: 1 });
  });

  it('filters by status (open: no state, open, an expired acceptance), severity and assignee', async ({ ctx, user, list, put, world }) => {
    const colleague = await ctx.given.user({ name: 'Grace' });
    await ctx.given.member(user.teamId!, colleague, 'member');
    await put(world.sql, { status: 'confirmed', assignee_id: colleague.id });
    await put(world.xss, { status: 'accepted', comment: 'Reviewed.', expires_at: new Date(Date.parse(NOW) + DAY).toISOString() });
    await put(world.debug, { status: 'open', assignee_id: user.id });
    const fingerprints = async (query: string, token = user.token) => (await list(query, token)).data.map((item) => item.fingerprint);

    expect(await fingerprints('?status=open')).toEqual([world.debug]);
    expect(await fingerprints('?status=accepted')).toEqual([world.xss]);
    expect(await fingerprints('?status=confirmed')).toEqual([world.sql]);
    expect(await fingerprints('?status=false_positive')).toEqual([]);
    expect(await fingerprints('?severity=high')).toEqual([world.xss]);
    expect(await fingerprints('?assignee=me')).toEqual([world.debug]);
    expect(await fingerprints('?assignee=me', colleague.token)).toEqual([world.sql]);
    expect(await fingerprints(`?assignee=${colleague.id}`)).toEqual([world.sql]);
    expect(await fingerprints('?assignee=none')).toEqual([world.xss]);
    expect(await fingerprints('?status=confirmed&assignee=me')).toEqual([]);

    ctx.clock.advance(DAY);
    expect(await fingerprints('?status=open')).toEqual([world.xss, world.debug]);
    expect(await fingerprints('?status=accepted')).toEqual([]);
    const expired = (await list('?status=open')).data[0]!.state;
    expect(expired).toMatchObject({ status: 'open', comment: 'Reviewed.' });
  });

  it('pages like D16, the links keeping the filters', async ({ ctx, apiToken, list, projectId }) => {
    await uploadSpots(ctx, apiToken, manySpots(45));
    const first = await list('?status=open&severity=low');
    expect(first.data).toHaveLength(20);
    expect(first.meta).toMatchObject({ total: 45, last_page: 3, current_page: 1 });
    expect(first.links.next).toMatch(new RegExp(`/projects/${projectId}/issues\\?status=open&severity=low&page=2$`));
    const third = await list('?status=open&severity=low&page=3');
    expect(third.data).toHaveLength(5);
    // The changes list's order: analyzer id, then file, then line, for one severity.
    const all = [...first.data, ...(await list('?page=2')).data, ...third.data];
    const keys = all.map((item) => [item.location.file, item.location.line]);
    const sorted = [...keys].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] - b[1]));
    expect(keys).toEqual(sorted);
    expect((await list('?page=4')).data).toEqual([]);
  });

  it('takes a branch’s latest report, the reports without a branch with `?branch=`, and is empty without a report', async ({
    ctx,
    apiToken,
    list,
  }) => {
    expect(await list()).toMatchObject({ data: [], meta: { total: 0 } });
    await uploadSpots(ctx, apiToken, [SQL], MAIN, '2026-11-21T08:00:00Z');
    await uploadSpots(ctx, apiToken, [XSS], { git_branch: 'develop' }, '2026-11-21T09:00:00Z');
    await uploadSpots(ctx, apiToken, [DEBUG], {}, '2026-11-21T07:00:00Z');
    const messages = async (query: string) => (await list(query)).data.map((item) => item.message);
    expect(await messages('')).toEqual([XSS.message]);
    expect(await messages('?branch=main')).toEqual([SQL.message]);
    expect(await messages('?branch=develop')).toEqual([XSS.message]);
    expect(await messages('?branch=')).toEqual([DEBUG.message]);
    expect(await messages('?branch=nowhere')).toEqual([]);
    expect((await list('?branch=main')).links.first).toMatch(/\?branch=main&page=1$/);
  });

  it('refuses a bad status, severity, assignee or page (422)', async ({ ctx, user, projectId }) => {
    const cases: [string, string][] = [
      ['status=closed', 'status'],
      ['status=', 'status'],
      ['severity=urgent', 'severity'],
      ['assignee=someone', 'assignee'],
      ['assignee=0', 'assignee'],
      ['assignee=-3', 'assignee'],
      ['assignee=1.5', 'assignee'],
      // More than an id column holds: no user's id, like 0.
      ['assignee=999999999999999', 'assignee'],
      ['page=0', 'page'],
    ];
    for (const [query, field] of cases) {
      const response = await ctx.request({ method: 'GET', url: `/api/v1/projects/${projectId}/issues?${query}`, token: user.token });
      expectValidationError(response, [field]);
    }
  });

  it('answers any member, readonly too, and 404 to anyone else', async ({ ctx, user, list, projectId, world }) => {
    const reader = await ctx.given.inRole(user, 'readonly');
    expect((await list('', reader.token)).data.map((item) => item.fingerprint)).toContain(world.sql);
    const stranger = await ctx.given.user({ plan: 'business' });
    const response = await ctx.request({ method: 'GET', url: `/api/v1/projects/${projectId}/issues`, token: stranger.token });
    expectNotFound(response);
    // The stranger's own project is theirs to read; this one is not, whatever its id.
    const { project } = await ctx.given.project(stranger);
    expect((await list('', stranger.token, project.id)).data).toEqual([]);
  });
});
