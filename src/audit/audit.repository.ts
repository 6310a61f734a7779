import type { Selectable } from 'kysely';
import type { Db } from '../db/database.js';
import { countAll } from '../db/dialect.js';
import type { AuditEventsTable } from '../db/schema.js';

export type AuditEventRow = Selectable<AuditEventsTable>;
export type NewAuditEvent = Omit<AuditEventRow, 'id'>;

/** Rows per insert: 14 columns each, well under SQLite's 32,766 and PostgreSQL's 65,535 parameters. */
const INSERT_CHUNK = 500;

/** Which events a list shows: a team's (E5, owner or admin), or those of and about one user. */
export type AuditScope = { teamId: number } | { userId: number };

/** E5: events are appended and read; only the retention job deletes them (by age). */
export function createAuditRepository(db: Db) {
  const inScope = (scope: AuditScope, action: string | undefined) =>
    db
      .selectFrom('audit_events')
      .$if('teamId' in scope, (query) => query.where('team_id', '=', (scope as { teamId: number }).teamId))
      .$if('userId' in scope, (query) => {
        const userId = (scope as { userId: number }).userId;
        // The user's own actions (as a user, not the operator acting on them), and events about them.
        return query.where((eb) =>
          eb.or([eb.and([eb('actor_type', '=', 'user'), eb('actor_id', '=', userId)]), eb('user_id', '=', userId)]),
        );
      })
      .$if(action !== undefined, (query) => query.where('action', '=', action!));

  return {
    /** Appends events, in statements of at most INSERT_CHUNK rows (each database bounds a statement's parameters). */
    async insert(events: readonly NewAuditEvent[]): Promise<void> {
      for (let start = 0; start < events.length; start += INSERT_CHUNK) {
        await db
          .insertInto('audit_events')
          .values(events.slice(start, start + INSERT_CHUNK))
          .execute();
      }
    },

    async count(scope: AuditScope, action?: string): Promise<number> {
      const row = await inScope(scope, action).select(countAll.as('n')).executeTakeFirstOrThrow();
      return Number(row.n);
    },

    /** Newest first: ids grow with time, so the id alone orders them (and breaks no tie). */
    async list(scope: AuditScope, page: { limit: number; offset: number }, action?: string): Promise<AuditEventRow[]> {
      return inScope(scope, action).selectAll().orderBy('id', 'desc').limit(page.limit).offset(page.offset).execute();
    },

    /** Deletes up to `limit` events created before `cutoff`, oldest first; returns how many. */
    async deleteOlderThan(cutoff: string, limit: number): Promise<number> {
      const result = await db
        .deleteFrom('audit_events')
        .where('id', 'in', (eb) => eb.selectFrom('audit_events').select('id').where('created_at', '<', cutoff).orderBy('id').limit(limit))
        .executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}

export type AuditRepository = ReturnType<typeof createAuditRepository>;
