/**
 * The harness's own property 4 (a rejected request changes no stored row), on a change made on
 * purpose: it must see a row that differs from the seeded world whenever a statement could have
 * written one, even though it reads the tables back only after such statements (harness.ts,
 * `changedRows`), and put the world back for the next request.
 */
import { describe, expect, it } from 'vitest';
import { FuzzServer } from './harness.js';

describe('the fuzz harness', () => {
  it('fails a rejected request after which a stored row differs, then restores the seeded world', async () => {
    const fuzz = await FuzzServer.start();
    try {
      const anonymous = { method: 'GET', target: '/api/v1/projects' } as const;
      expect((await fuzz.exchange(anonymous)).status).toBe(401);
      await fuzz.ctx.db.updateTable('projects').set({ name: 'Changed' }).where('id', '=', fuzz.world.projectId).execute();
      await expect(fuzz.exchange(anonymous)).rejects.toThrow(/stored data changed by a rejected request/);
      // Restored after the failure: the same request passes again, on the seeded row.
      expect((await fuzz.exchange(anonymous)).status).toBe(401);
      const row = await fuzz.ctx.db.selectFrom('projects').select('name').where('id', '=', fuzz.world.projectId).executeTakeFirstOrThrow();
      expect(row.name).not.toBe('Changed');
    } finally {
      await fuzz.close();
    }
  });
});
