/**
 * The outbox of calls to other services (outbox/), with handlers of its own: order per key (a
 * message waits while an earlier one with its key is pending, and goes once that one is done,
 * failed or not); messages without a key are not held up; an instance claims only the kinds it has
 * a handler for; a handler's throw is retried, never lost; done messages go after the retention,
 * pending ones stay; attempts and the backlog on /metrics. Both backends.
 */
import { describe, expect } from 'vitest';
import { enqueueOutbox, type NewOutboxMessage } from '../../src/outbox/outbox-queue.js';
import { pruneOutbox } from '../../src/outbox/outbox-retention.js';
import { type CallOutcome, createOutboxWorker, type OutboxCall } from '../../src/outbox/outbox-worker.js';
import { appTest } from '../helpers/app-fixture.js';
import type { TestContext } from '../helpers/test-app.js';

const it = appTest({ user: { plan: 'business' } });

/** A message to a receiver of its own, of an owner of its own: D31's bounds hold nothing up here. */
const message = (kind: string, key: string | null, payload: { name: string }): NewOutboxMessage => ({
  kind,
  project_id: null,
  owner: `team of ${payload.name}`,
  target: `receiver of ${payload.name}`,
  ordering_key: key,
  payload,
});

/** A worker whose handlers answer from `answers` (by the payload's `name`), recording every call. */
function workerWith(ctx: TestContext, answers: Record<string, CallOutcome | 'throw'>, kinds = ['call']) {
  const calls: string[] = [];
  const handler = async (call: OutboxCall): Promise<CallOutcome> => {
    const name = (call.payload as { name: string }).name;
    calls.push(name);
    const answer = answers[name] ?? { ok: true, status: 200 };
    if (answer === 'throw') throw new Error('a bug in the handler');
    return answer;
  };
  const worker = createOutboxWorker({
    db: ctx.db,
    clock: ctx.clock,
    logger: ctx.app.log,
    handlers: Object.fromEntries(kinds.map((kind) => [kind, handler])),
    concurrency: 8,
    random: () => 0.5,
  });
  return { worker, calls };
}

const statuses = async (ctx: TestContext) =>
  Object.fromEntries(
    (await ctx.db.selectFrom('outbox').select(['payload', 'status']).execute()).map((row) => [
      (JSON.parse(row.payload) as { name: string }).name,
      row.status,
    ]),
  );

describe('the outbox', () => {
  it('attempts the messages of one key one at a time, in order; a failed one no longer holds the next', async ({ ctx }) => {
    await enqueueOutbox(ctx.db, ctx.clock, [
      message('call', 'pr-1', { name: 'first' }),
      message('call', 'pr-1', { name: 'second' }),
      message('call', 'pr-2', { name: 'other key' }),
      message('call', null, { name: 'no key' }),
    ]);
    await enqueueOutbox(ctx.db, ctx.clock, [message('call', 'pr-1', { name: 'third' })]);
    const { worker, calls } = workerWith(ctx, {
      first: { ok: false, status: 503, error: 'busy', retry: true },
      second: { ok: false, status: 404, error: 'gone', retry: false },
    });

    expect(await worker.runOnce()).toBe(3);
    expect(calls.sort()).toEqual(['first', 'no key', 'other key']);
    // "first" waits for its retry, and holds "second" and "third" meanwhile.
    expect(await worker.runOnce()).toBe(0);
    ctx.clock.advance(66_000);
    calls.length = 0;
    expect(await worker.runOnce()).toBe(1);
    expect(calls).toEqual(['first']);
    expect(await statuses(ctx)).toMatchObject({ first: 'pending' });

    // Succeeds on its next attempt; then "second" fails for good, and "third" goes after it.
    ctx.clock.advance(300_000);
    const answers = workerWith(ctx, { second: { ok: false, status: 404, error: 'gone', retry: false } });
    expect(await answers.worker.runOnce()).toBe(1);
    expect(await answers.worker.runOnce()).toBe(1);
    expect(await answers.worker.runOnce()).toBe(1);
    expect(answers.calls).toEqual(['first', 'second', 'third']);
    expect(await statuses(ctx)).toEqual({
      first: 'succeeded',
      second: 'failed',
      third: 'succeeded',
      'other key': 'succeeded',
      'no key': 'succeeded',
    });
  });

  it('claims only the kinds it has a handler for: an older instance leaves newer kinds to the others', async ({ ctx }) => {
    await enqueueOutbox(ctx.db, ctx.clock, [message('newer', null, { name: 'newer' }), message('call', null, { name: 'known' })]);
    const older = workerWith(ctx, {});
    expect(await older.worker.runOnce()).toBe(1);
    expect(older.calls).toEqual(['known']);
    expect(await statuses(ctx)).toEqual({ newer: 'pending', known: 'succeeded' });
    const newer = workerWith(ctx, {}, ['newer']);
    expect(await newer.worker.runOnce()).toBe(1);
    expect(await statuses(ctx)).toEqual({ newer: 'succeeded', known: 'succeeded' });
  });

  it("retries a handler's throw on the schedule, and records it as an internal error", async ({ ctx }) => {
    await enqueueOutbox(ctx.db, ctx.clock, [message('call', null, { name: 'buggy' })]);
    const { worker } = workerWith(ctx, { buggy: 'throw' });
    expect(await worker.runOnce()).toBe(1);
    const row = await ctx.db.selectFrom('outbox').selectAll().executeTakeFirstOrThrow();
    expect(row).toMatchObject({ status: 'pending', attempts: 1, error: 'internal error; it will be tried again' });
    expect(Date.parse(row.next_attempt_at!)).toBe(ctx.clock.now().getTime() + 60_000);
  });

  it('fails a message after the last attempt of the schedule', async ({ ctx }) => {
    await enqueueOutbox(ctx.db, ctx.clock, [message('call', null, { name: 'down' })]);
    const { worker } = workerWith(ctx, { down: { ok: false, status: 502, error: 'bad gateway', retry: true } });
    for (let attempt = 1; attempt <= 7; attempt++) {
      expect(await worker.runOnce()).toBe(1);
      const row = await ctx.db.selectFrom('outbox').selectAll().executeTakeFirstOrThrow();
      expect(row.attempts).toBe(attempt);
      if (attempt < 7) ctx.clock.set(row.next_attempt_at!);
      else expect(row).toMatchObject({ status: 'failed', next_attempt_at: null, error: 'bad gateway', response_status: 502 });
    }
  });

  it('deletes done messages past the retention and keeps pending ones', async ({ ctx }) => {
    await enqueueOutbox(ctx.db, ctx.clock, [message('call', null, { name: 'old done' }), message('call', null, { name: 'old pending' })]);
    await ctx.db.updateTable('outbox').set({ status: 'succeeded' }).where('payload', 'like', '%old done%').execute();
    ctx.clock.advance(31 * 24 * 60 * 60 * 1000);
    await enqueueOutbox(ctx.db, ctx.clock, [message('call', null, { name: 'recent done' })]);
    await ctx.db.updateTable('outbox').set({ status: 'failed' }).where('payload', 'like', '%recent done%').execute();
    expect(await pruneOutbox({ db: ctx.db, clock: ctx.clock, retentionDays: 30 })).toBe(1);
    expect(await statuses(ctx)).toEqual({ 'old pending': 'pending', 'recent done': 'failed' });
  });

  it("shows the app worker's attempts and the backlog on /metrics", async ({ ctx }) => {
    await enqueueOutbox(ctx.db, ctx.clock, [message('ticket_comment', null, { name: 'waiting' })]);
    ctx.clock.advance(90_000);
    const metrics = await ctx.request({ method: 'GET', url: '/metrics' });
    expect(metrics.body).toMatch(/^scoreboard_outbox_queue_depth 1$/m);
    expect(metrics.body).toMatch(/^scoreboard_outbox_oldest_pending_age_seconds 90$/m);
  });
});
