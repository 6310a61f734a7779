import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { type CacheFreshness, freshnessFor, LookupCache, type PostgresFreshness } from '../../src/auth/token-cache.js';
import { buildTestApp, type TestContext } from '../helpers/test-app.js';
import { onPostgres } from '../helpers/test-backend.js';

/** A freshness whose version the test moves by hand. */
function manualFreshness() {
  const state = { version: 1 as number | null };
  const freshness: CacheFreshness = {
    current: () => state.version,
    unchanged: (version) => state.version === version,
    close: async () => {},
  };
  return { state, freshness };
}

describe('LookupCache (issue 15)', () => {
  it('loads once, then serves from memory while the version holds', async () => {
    const { freshness } = manualFreshness();
    const cache = new LookupCache<{ n: number }>(freshness);
    let loads = 0;
    const load = async () => ({ n: ++loads });
    expect(await cache.get('h', load)).toEqual({ n: 1 });
    expect(await cache.get('h', load)).toEqual({ n: 1 });
    expect(loads).toBe(1);
  });

  it('drops everything when the version moves', async () => {
    const { state, freshness } = manualFreshness();
    const cache = new LookupCache<{ n: number }>(freshness);
    let loads = 0;
    const load = async () => ({ n: ++loads });
    await cache.get('h', load);
    await cache.get('other', load);
    state.version = 2;
    expect(await cache.get('h', load)).toEqual({ n: 3 });
    expect(cache.size).toBe(1);
  });

  it('neither serves nor keeps anything while the version is unknown (listener down)', async () => {
    const { state, freshness } = manualFreshness();
    const cache = new LookupCache<{ n: number }>(freshness);
    let loads = 0;
    const load = async () => ({ n: ++loads });
    await cache.get('h', load);
    state.version = null;
    expect(await cache.get('h', load)).toEqual({ n: 2 });
    expect(await cache.get('h', load)).toEqual({ n: 3 });
    expect(cache.size).toBe(0);
    state.version = 5;
    expect(await cache.get('h', load)).toEqual({ n: 4 });
    expect(await cache.get('h', load)).toEqual({ n: 4 });
  });

  it('does not keep what a lookup read while the version moved under it', async () => {
    const { state, freshness } = manualFreshness();
    const cache = new LookupCache<{ n: number }>(freshness);
    let loads = 0;
    const racing = async () => {
      state.version = 2; // a revocation's notification arrives while the lookup runs
      return { n: ++loads };
    };
    expect(await cache.get('h', racing)).toEqual({ n: 1 });
    expect(cache.size).toBe(0);
  });

  it('caches no unknown token', async () => {
    const { freshness } = manualFreshness();
    const cache = new LookupCache<{ n: number }>(freshness);
    let loads = 0;
    const missing = async () => {
      loads += 1;
      return undefined;
    };
    expect(await cache.get('h', missing)).toBeUndefined();
    expect(await cache.get('h', missing)).toBeUndefined();
    expect(loads).toBe(2);
  });

  it('is bounded: the least recently used entry goes first', async () => {
    const { freshness } = manualFreshness();
    const cache = new LookupCache<string>(freshness, 2);
    const loaded: string[] = [];
    const load = (key: string) => async () => {
      loaded.push(key);
      return key;
    };
    await cache.get('a', load('a'));
    await cache.get('b', load('b'));
    await cache.get('a', load('a')); // a is now the most recent
    await cache.get('c', load('c')); // b goes
    await cache.get('a', load('a'));
    await cache.get('b', load('b'));
    expect(loaded).toEqual(['a', 'b', 'c', 'b']);
    expect(cache.size).toBe(2);
  });
});

describe('the token cache against the database', () => {
  let ctx: TestContext;
  afterEach(async () => ctx?.close());

  it('moves its version with each change of what a lookup reads, and not with last_used_at', async () => {
    ctx = await buildTestApp();
    const user = await ctx.given.user({ plan: 'solo' });
    const freshness = await freshnessFor(ctx.db);
    try {
      const versions = [await freshness.current()];
      const next = async () => {
        // PostgreSQL's notification comes back through its own connection.
        for (let i = 0; i < 100 && (await freshness.current()) === versions.at(-1); i++) await new Promise((r) => setTimeout(r, 10));
        versions.push(await freshness.current());
        return versions.at(-1) !== versions.at(-2);
      };
      // Another process's writes (a connection of the test's own, not the app's).
      const other = ctx.store.open();
      try {
        await other.updateTable('personal_access_tokens').set({ last_used_at: '2026-11-21T10:00:00.000Z' }).execute();
        expect(await next()).toBe(false);
        await other.updateTable('personal_access_tokens').set({ abilities: '["read"]' }).execute();
        expect(await next()).toBe(true);
        await other.updateTable('subscriptions').set({ status: 'canceled' }).where('user_id', '=', user.id).execute();
        expect(await next()).toBe(true);
        await other.updateTable('users').set({ current_team_id: null }).where('id', '=', user.id).execute();
        expect(await next()).toBe(true);
        await other.deleteFrom('users').where('id', '=', user.id).execute();
        expect(await next()).toBe(true);
      } finally {
        await other.destroy();
      }
    } finally {
      await freshness.close();
    }
  });

  it.skipIf(!onPostgres)('stops serving when its listening connection is lost, and starts again empty once it listens', async () => {
    ctx = await buildTestApp();
    const freshness = (await freshnessFor(ctx.db)) as PostgresFreshness;
    try {
      expect(freshness.isListening).toBe(true);
      const admin = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
      await admin.connect();
      try {
        const pid = freshness.backendPid;
        expect(pid).toBeTypeOf('number');
        await admin.query('select pg_terminate_backend($1)', [pid]);
      } finally {
        await admin.end();
      }
      for (let i = 0; i < 100 && freshness.isListening; i++) await new Promise((r) => setTimeout(r, 10));
      expect(freshness.current()).toBeNull();
      // It connects again after a second.
      for (let i = 0; i < 300 && !freshness.isListening; i++) await new Promise((r) => setTimeout(r, 10));
      expect(freshness.isListening).toBe(true);
    } finally {
      await freshness.close();
    }
  });
});
