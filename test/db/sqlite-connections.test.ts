/**
 * D28 on SQLite (db/sqlite-driver.ts): reads outside a transaction go to a connection of their own,
 * so that a long write transaction (a 75,000-issue upload, stored in batches) does not hold every
 * other request's reads; writes still take turns. On PostgreSQL the pool has always done this.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createDatabase, type Db } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/migrate.js';
import { onPostgres } from '../helpers/test-backend.js';

describe.skipIf(onPostgres)('SQLite: reads on their own connection', () => {
  let dir: string;
  let db: Db;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'scoreboard-sqlite-'));
    db = createDatabase(`sqlite:${join(dir, 'store.db')}`);
    await migrateToLatest(db);
  });
  afterEach(async () => {
    await db.destroy();
    rmSync(dir, { recursive: true, force: true });
  });

  const insertUser = (on: Db, email: string) =>
    on.insertInto('users').values({ email, name: null, created_at: '2026-11-25T00:00:00.000Z' }).execute();
  const emails = async () => (await db.selectFrom('users').select('email').orderBy('email').execute()).map((row) => row.email);

  /** A write transaction that stays open until `release` is called. */
  function openTransaction() {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let begun!: () => void;
    const inside = new Promise<void>((resolve) => (begun = resolve));
    const done = db.transaction().execute(async (trx) => {
      await insertUser(trx, 'inside@example.com');
      begun();
      await released;
    });
    return { inside, release, done };
  }

  it('answers a read while a write transaction is open, with what was committed before it', async () => {
    await insertUser(db, 'before@example.com');
    const transaction = openTransaction();
    await transaction.inside;
    // Would wait for the transaction forever on one connection: the test holds it until this read is back.
    expect(await emails()).toEqual(['before@example.com']);
    transaction.release();
    await transaction.done;
    expect(await emails()).toEqual(['before@example.com', 'inside@example.com']);
  });

  it('makes a write outside the transaction wait for it, then apply', async () => {
    const transaction = openTransaction();
    await transaction.inside;
    let written = false;
    const write = insertUser(db, 'outside@example.com').then(() => (written = true));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(written).toBe(false);
    transaction.release();
    await Promise.all([transaction.done, write]);
    expect(await emails()).toEqual(['inside@example.com', 'outside@example.com']);
  });

  it('releases the write connection when a transaction fails, for the next writer', async () => {
    await expect(
      db.transaction().execute(async (trx) => {
        await insertUser(trx, 'rolled-back@example.com');
        throw new Error('no');
      }),
    ).rejects.toThrow('no');
    await insertUser(db, 'after@example.com');
    expect(await emails()).toEqual(['after@example.com']);
  });
});
