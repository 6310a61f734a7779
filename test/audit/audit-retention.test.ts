import { afterEach, describe, expect, vi } from 'vitest';
import { test as appTest } from '../helpers/app-fixture.js';
import { pruneAuditEvents, startAuditRetention } from '../../src/audit/audit-retention.js';
import type { NewAuditEvent } from '../../src/audit/audit.repository.js';
import { eventually, nextTurn } from '../helpers/eventually.js';

const it = appTest
  /** `count` events created `daysAgo` days before the fake clock's now. */
  .extend(
    'eventsAged',
    ({ ctx }) =>
      async function eventsAged(daysAgo: number, count: number, action = 'project.updated') {
        const created_at = new Date(ctx.clock.now().getTime() - daysAgo * DAY).toISOString();
        const row: NewAuditEvent = {
          action,
          actor_type: 'operator',
          actor_id: null,
          actor_email: null,
          actor_token_id: null,
          target_type: 'project',
          target_id: null,
          team_id: null,
          user_id: null,
          ip: null,
          user_agent: null,
          details: '{}',
          created_at,
        };
        // In chunks: one insert of thousands of rows would pass SQLite's bound-parameter limit.
        for (let i = 0; i < count; i += 500) {
          await ctx.db
            .insertInto('audit_events')
            .values(Array.from({ length: Math.min(500, count - i) }, () => row))
            .execute();
        }
      },
  )
  .extend(
    'remaining',
    ({ ctx }) =>
      async () =>
        (await ctx.db.selectFrom('audit_events').select(['action', 'created_at']).execute()).map((row) => row.action).sort(),
  );

const DAY = 24 * 60 * 60 * 1000;

/** E5 / AUDIT_RETENTION_DAYS: events past the retention are deleted, and only those. */
describe('audit retention (E5)', () => {
  it.beforeEach(async ({ ctx }) => {
    await ctx.db.deleteFrom('audit_events').execute();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('deletes what is older than the retention, in batches, and keeps the rest', async ({ ctx, eventsAged, remaining }) => {
    await eventsAged(400, 2_345, 'old');
    await eventsAged(366, 1, 'just-past');
    await eventsAged(364, 1, 'just-within');
    await eventsAged(0, 3, 'new');
    expect(await pruneAuditEvents({ db: ctx.db, clock: ctx.clock, retentionDays: 365 })).toBe(2_346);
    expect(await remaining()).toEqual(['just-within', 'new', 'new', 'new']);
    // Time passes: what was within the retention falls out of it.
    ctx.clock.advance(2 * DAY);
    expect(await pruneAuditEvents({ db: ctx.db, clock: ctx.clock, retentionDays: 365 })).toBe(1);
    expect(await pruneAuditEvents({ db: ctx.db, clock: ctx.clock, retentionDays: 365 })).toBe(0);
  });

  it('is safe when several instances run it at once: the work is shared, nothing fails', async ({ ctx, eventsAged, remaining }) => {
    await eventsAged(30, 3_000, 'old');
    await eventsAged(1, 5, 'new');
    const runs = await Promise.all([1, 2, 3].map(() => pruneAuditEvents({ db: ctx.db, clock: ctx.clock, retentionDays: 7 })));
    expect(runs.reduce((sum, n) => sum + n, 0)).toBe(3_000);
    expect(await remaining()).toEqual(['new', 'new', 'new', 'new', 'new']);
  });

  it('runs soon after start and then at every interval, until stopped', async ({ ctx, eventsAged, remaining }) => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'setInterval', 'clearTimeout', 'clearInterval'] });
    const logger = { info: vi.fn(), warn: vi.fn() } as unknown as Parameters<typeof startAuditRetention>[0]['logger'];
    await eventsAged(10, 2, 'old');
    const stop = startAuditRetention({ db: ctx.db, clock: ctx.clock, retentionDays: 7, logger, intervalMs: 60_000 });
    const settled = async (expected: string[]) => {
      // The run is database work, on real I/O: let it finish before looking.
      await eventually(async () => JSON.stringify(await remaining()) === JSON.stringify(expected), { pause: nextTurn });
      expect(await remaining()).toEqual(expected);
    };
    await settled(['old', 'old']); // nothing before the first run
    vi.advanceTimersByTime(1_000);
    await settled([]);
    expect(logger.info).toHaveBeenCalledWith({ deleted: 2, retentionDays: 7 }, expect.any(String));

    await eventsAged(8, 1, 'old');
    vi.advanceTimersByTime(60_000);
    await settled([]);

    stop();
    await eventsAged(8, 1, 'old');
    vi.advanceTimersByTime(10 * 60_000);
    // A run would have finished within these round trips (the ones above took one or two).
    for (let i = 0; i < 20; i++) await remaining();
    expect(await remaining()).toEqual(['old']);
  });
});
