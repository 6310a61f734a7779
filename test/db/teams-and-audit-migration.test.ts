import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createMigrator, type Db } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/migrate.js';
import { createTestStore, type TestStore } from '../helpers/test-backend.js';

/**
 * Migration 0007 marks the personal teams of a database made before it: the team `users:create`
 * made with a user, named "<name or email>'s team" and owned by them. Other teams stay shared, even
 * when their owner has no other team.
 */
describe('migration 0007 on a database made before it', () => {
  let dir: string;
  let store: TestStore;
  let db: Db;
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'scoreboard-migration-'));
    store = await createTestStore(dir);
    db = store.open();
    const { error } = await (await createMigrator(db)).migrateTo('0006-compressed-results');
    expect(error).toBeUndefined();
  });
  afterEach(async () => {
    await db.destroy();
    await store.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  const at = '2026-11-01T10:00:00.000Z';
  async function userWithTeam(
    email: string,
    name: string | null,
    teamName: string,
    role = 'owner',
  ): Promise<{ userId: number; teamId: number }> {
    const user = await db
      .insertInto('users')
      .values({ email, name, current_team_id: null, created_at: at })
      .returning('id')
      .executeTakeFirstOrThrow();
    // Before 0007 the column does not exist: insert through a query that names only the old columns.
    const team = await (db as unknown as Db)
      .insertInto('teams')
      .values({ name: teamName, created_at: at } as never)
      .returning('id')
      .executeTakeFirstOrThrow();
    await db
      .insertInto('team_members')
      .values({ team_id: team.id, user_id: user.id, role: role as 'owner', created_at: at })
      .execute();
    return { userId: user.id, teamId: team.id };
  }

  it("marks each user's own team as personal, and nothing else", async () => {
    const ada = await userWithTeam('ada@example.com', 'Ada', "Ada's team");
    const bob = await userWithTeam('bob@example.com', null, "bob@example.com's team");
    const shared = await userWithTeam('carol@example.com', 'Carol', 'Acme');
    const notOwned = await userWithTeam('dan@example.com', 'Dan', "Dan's team", 'admin');

    await migrateToLatest(db);

    const teams = await db.selectFrom('teams').select(['id', 'personal_team']).orderBy('id').execute();
    expect(teams.map((t) => [t.id, Number(t.personal_team)])).toEqual([
      [ada.teamId, 1],
      [bob.teamId, 1],
      [shared.teamId, 0],
      [notOwned.teamId, 0],
    ]);
    expect(await db.selectFrom('team_invitations').selectAll().execute()).toEqual([]);
    // 0007 writes no event; 0013 (D34) gives Dan's ownerless team its one member as owner, and says so.
    const events = await db.selectFrom('audit_events').select(['action', 'team_id', 'user_id']).execute();
    expect(events).toEqual([{ action: 'team.transferred', team_id: notOwned.teamId, user_id: notOwned.userId }]);
  });
});
