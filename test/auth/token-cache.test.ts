import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { LookupCache, sqliteAuthVersion, tokenCacheFor } from '../../src/auth/token-cache.js';
import { buildTestApp, type TestContext } from '../helpers/test-app.js';
import { onPostgres } from '../helpers/test-backend.js';

/** A version the test moves by hand. */
function manualVersion() {
  const state = { version: 1 as number | null };
  return { state, readVersion: () => state.version };
}

describe('LookupCache (issue 15)', () => {
  it('loads once, then serves from memory while the version holds', async () => {
    const { readVersion } = manualVersion();
    const cache = new LookupCache<{ n: number }>(readVersion);
    let loads = 0;
    const load = async () => ({ n: ++loads });
    expect(await cache.get('h', load)).toEqual({ n: 1 });
    expect(await cache.get('h', load)).toEqual({ n: 1 });
    expect(loads).toBe(1);
  });

  it('drops everything when the version moves', async () => {
    const { state, readVersion } = manualVersion();
    const cache = new LookupCache<{ n: number }>(readVersion);
    let loads = 0;
    const load = async () => ({ n: ++loads });
    await cache.get('h', load);
    await cache.get('other', load);
    state.version = 2;
    expect(await cache.get('h', load)).toEqual({ n: 3 });
    expect(cache.size).toBe(1);
  });

  it('neither serves nor keeps anything while the version is unknown (the counter unreadable)', async () => {
    const { state, readVersion } = manualVersion();
    const cache = new LookupCache<{ n: number }>(readVersion);
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

  it('does not keep what a lookup read while another lookup saw the version move', async () => {
    const { state, readVersion } = manualVersion();
    const cache = new LookupCache<string>(readVersion);
    let finish: (value: string) => void = () => {};
    const slowLookup = new Promise<string>((resolve) => {
      finish = resolve;
    });
    const slow = cache.get('h', () => slowLookup);
    // A change commits while the first lookup runs; a second request reads the new version.
    state.version = 2;
    expect(await cache.get('other', async () => 'other')).toBe('other');
    finish('read before the change');
    expect(await slow).toBe('read before the change');
    expect(await cache.get('h', async () => 'read after the change')).toBe('read after the change');
  });

  it('caches no unknown token', async () => {
    const { readVersion } = manualVersion();
    const cache = new LookupCache<{ n: number }>(readVersion);
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
    const { readVersion } = manualVersion();
    const cache = new LookupCache<string>(readVersion, 2);
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

  it.skipIf(onPostgres)('SQLite: the counter moves with each change of what a lookup reads, and not with last_used_at', async () => {
    ctx = await buildTestApp();
    const user = await ctx.given.user({ plan: 'solo' });
    const readVersion = sqliteAuthVersion(ctx.db)!;
    const versions = [readVersion()];
    expect(versions[0]).toBeTypeOf('number');
    const moved = () => {
      versions.push(readVersion());
      return versions.at(-1) !== versions.at(-2);
    };
    // Another process's writes (a connection of the test's own, not the app's): the next read sees each commit.
    const other = ctx.store.open();
    try {
      await other.updateTable('personal_access_tokens').set({ last_used_at: '2026-11-21T10:00:00.000Z' }).execute();
      expect(moved()).toBe(false);
      await other.updateTable('personal_access_tokens').set({ abilities: '["read"]' }).execute();
      expect(moved()).toBe(true);
      await other.updateTable('subscriptions').set({ status: 'canceled' }).where('user_id', '=', user.id).execute();
      expect(moved()).toBe(true);
      await other.updateTable('users').set({ current_team_id: null }).where('id', '=', user.id).execute();
      expect(moved()).toBe(true);
      await other.deleteFrom('users').where('id', '=', user.id).execute();
      expect(moved()).toBe(true);
    } finally {
      await other.destroy();
    }
  });

  it.runIf(onPostgres)('PostgreSQL: caches nothing, and no trigger or function of the migrations sends notifications', async () => {
    ctx = await buildTestApp();
    expect(tokenCacheFor(ctx.db)).toBeUndefined();
    const { rows } = await sql<{ name: string }>`
      select tgname as name from pg_trigger t join pg_class c on c.oid = t.tgrelid
        where c.relnamespace = current_schema()::regnamespace and tgname like '%auth_changed'
      union all
      select proname from pg_proc where pronamespace = current_schema()::regnamespace and proname = 'scoreboard_auth_changed'
    `.execute(ctx.db);
    expect(rows).toEqual([]);
  });

  it('refuses, on its next request, a token revoked through another connection, and answers by the plan another connection set (D9, D7)', async () => {
    ctx = await buildTestApp();
    const user = await ctx.given.user({ plan: 'solo' });
    const lookups: string[] = [];
    const stop = ctx.onQuery((text) => {
      if (/"t"\."token_hash" = /.test(text)) lookups.push(text);
    });
    const projects = async () => (await ctx.request({ method: 'GET', url: '/api/v1/projects', token: user.token })).statusCode;
    // Another process's writes (a connection of the test's own, not the app's).
    const other = ctx.store.open();
    try {
      expect([await projects(), await projects()]).toEqual([200, 200]);
      // SQLite answered the second from its cache; PostgreSQL looked the token up for each.
      expect(lookups).toHaveLength(onPostgres ? 2 : 1);

      await other.updateTable('subscriptions').set({ status: 'canceled' }).where('user_id', '=', user.id).execute();
      expect(await projects()).toBe(403);
      await other.updateTable('subscriptions').set({ status: 'active' }).where('user_id', '=', user.id).execute();
      expect(await projects()).toBe(200);

      await other.deleteFrom('personal_access_tokens').where('user_id', '=', user.id).execute();
      expect(await projects()).toBe(401);
    } finally {
      stop();
      await other.destroy();
    }
  });
});
