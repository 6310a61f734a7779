/**
 * The suite's own store helper (test/helpers/test-backend.ts): every app starts from a store exactly
 * as a fresh migration leaves it, however the helper got it there (a copied SQLite file, or a
 * PostgreSQL schema an earlier app used and emptied). If reuse ever leaked a row, an id or a test's
 * schema change into the next app, the tests relying on a fresh store would pass or fail by order.
 */
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { onPostgres } from '../helpers/test-backend.js';
import { buildTestApp, type TestContext } from '../helpers/test-app.js';

describe('test apps start from a freshly migrated, empty store', () => {
  const open: TestContext[] = [];
  const build = async () => {
    const ctx = await buildTestApp();
    open.push(ctx);
    return ctx;
  };
  const close = async (ctx: TestContext) => {
    open.splice(open.indexOf(ctx), 1);
    await ctx.close();
  };
  afterEach(async () => {
    for (const ctx of open.splice(0)) await ctx.close();
  });

  it('has every migration applied and no rows, ids starting again at 1, after an earlier app stored data', async () => {
    const first = await build();
    const user = await first.given.user();
    const { project } = await first.given.project(user);
    await first.given.report(project.id);
    await close(first);

    const next = await build();
    const applied = await sql<{ name: string }>`select name from kysely_migration`.execute(next.db);
    expect(applied.rows.length).toBeGreaterThan(0);
    for (const table of ['users', 'teams', 'projects', 'reports', 'personal_access_tokens', 'audit_events'] as const) {
      expect(await next.db.selectFrom(table).selectAll().execute(), table).toEqual([]);
    }
    expect((await next.given.user()).id).toBe(user.id);
  });

  it.runIf(onPostgres)('does not hand on a schema a test has changed (here: a function added)', async () => {
    const changed = await build();
    await sql`create function test_store_probe() returns integer language sql as 'select 1'`.execute(changed.db);
    const changedSchema = changed.store.env.REDIS_KEY_PREFIX;
    await close(changed);

    const next = await build();
    expect(next.store.env.REDIS_KEY_PREFIX).not.toBe(changedSchema);
    const functions = await sql`select 1 from pg_proc where proname = 'test_store_probe'`.execute(next.db);
    expect(functions.rows).toEqual([]);
  });

  it.runIf(onPostgres)('does hand on an unchanged schema (the reuse the suite relies on for its speed)', async () => {
    const first = await build();
    const schema = first.store.env.REDIS_KEY_PREFIX;
    await close(first);
    const next = await build();
    expect(next.store.env.REDIS_KEY_PREFIX).toBe(schema);
  });
});
