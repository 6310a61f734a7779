import type { Db } from '../db/database.js';
import { preparedQuery } from '../db/prepared-query.js';

/** What a public badge shows (E2.3): the latest report's score and stored gate (JSON), null without a report. */
export interface BadgeData {
  score: number | null;
  gate: string | null;
}

// Every badge request runs this (README images are fetched often): compiled once (db/prepared-query.ts).
// D19: the latest report through projects.latest_report_id, one indexed read; the badge key through
// its unique index. Read from the database every time, never cached, so a regenerated key stops
// working at once on every instance (E2.2).
const findByKey = preparedQuery((db: Db, key: string) =>
  db
    .selectFrom('projects as p')
    .leftJoin('reports as r', 'r.id', 'p.latest_report_id')
    .select(['r.score', 'r.gate'])
    .where('p.badge_key', '=', key),
);

export function createBadgesRepository(db: Db) {
  return {
    /** The badge data of the project whose badge key this is; undefined when no project has it. */
    async findByKey(key: string): Promise<BadgeData | undefined> {
      const [row] = await findByKey(db, key);
      return row;
    },

    async keyOf(projectId: string): Promise<string | undefined> {
      const row = await db.selectFrom('projects').select('badge_key').where('id', '=', projectId).executeTakeFirst();
      return row?.badge_key;
    },

    /** One write replaces the key: the old one names nothing from the moment it commits. */
    async replaceKey(projectId: string, key: string, at: string): Promise<void> {
      await db.updateTable('projects').set({ badge_key: key, updated_at: at }).where('id', '=', projectId).execute();
    },
  };
}

export type BadgesRepository = ReturnType<typeof createBadgesRepository>;
