import type { ExpressionBuilder } from 'kysely';
import { v7 as uuidv7 } from 'uuid';
import type { Clock } from '../clock.js';
import { countAll, isPostgres } from '../db/dialect.js';
import type { Db } from '../db/database.js';
import type { AttemptOutcome, Database } from '../db/schema.js';
import { chooseFairly, type InFlightShares } from '../jobs/fair-share.js';

/**
 * The outbox of calls to other services (migration 0021): written in the transaction of the change
 * that causes a call, read and claimed by the outbox worker (outbox-worker.ts) of any instance. It
 * works as E6's webhook outbox does (webhooks/delivery-queue.ts): an attempt is claimed before it
 * is made, which counts it and holds the message until `claimed_until`; on PostgreSQL the claim
 * takes its rows `FOR UPDATE SKIP LOCKED`. What it adds is order: a message with an
 * `ordering_key` is not due while an earlier one with the same key is pending.
 */

export interface NewOutboxMessage {
  kind: string;
  project_id: string | null;
  /** D31's unit of fairness (a team id). */
  owner: string;
  /** The receiver (a connection id, a mail server), at most a few attempts in flight each. */
  target: string;
  /** Messages sharing a key are attempted one at a time, in the order they were written. */
  ordering_key: string | null;
  payload: unknown;
}

/** A message taken for one attempt. */
export interface ClaimedMessage {
  id: string;
  kind: string;
  project_id: string | null;
  owner: string;
  target: string;
  payload: string;
  /** Counting this one. */
  attempts: number;
  created_at: string;
  /** The claim: only the instance holding it may record the attempt's outcome. */
  claimed_until: string;
}

/** Writes messages to the outbox, in the caller's transaction; due at once. Returns their ids. */
export async function enqueueOutbox(trx: Db, clock: Clock, messages: readonly NewOutboxMessage[]): Promise<string[]> {
  if (messages.length === 0) return [];
  const at = clock.now().toISOString();
  const rows = messages.map((message) => ({
    ...message,
    id: uuidv7(),
    payload: JSON.stringify(message.payload),
    status: 'pending' as const,
    attempts: 0,
    response_status: null,
    error: null,
    next_attempt_at: at,
    claimed_until: null,
    created_at: at,
    delivered_at: null,
  }));
  await trx.insertInto('outbox').values(rows).execute();
  return rows.map((row) => row.id);
}

export function createOutboxQueue(db: Db) {
  return {
    /**
     * Up to `limit` messages due at `now`, claimed until `until`, chosen fairly (D31,
     * jobs/fair-share.ts) within the bounds of `shares`; none while an earlier message with its
     * ordering key is pending (claimed or not); only of `kinds` when given (those this instance
     * has a handler for).
     */
    async claimDue(
      now: string,
      until: string,
      limit: number,
      shares?: InFlightShares,
      kinds?: readonly string[],
    ): Promise<ClaimedMessage[]> {
      if (limit <= 0 || kinds?.length === 0) return [];
      const unclaimed = (eb: ExpressionBuilder<Database, 'outbox'>) =>
        eb.and([
          eb('status', '=', 'pending'),
          eb('next_attempt_at', '<=', now),
          eb.or([eb('claimed_until', 'is', null), eb('claimed_until', '<=', now)]),
        ]);
      const chosen = await chooseFairly(limit, shares, (leaveOut, size) =>
        db
          .selectFrom('outbox as m')
          .select(['m.id', 'm.owner', 'm.target'])
          .where('m.status', '=', 'pending')
          .where('m.next_attempt_at', '<=', now)
          .$if(kinds !== undefined, (query) => query.where('m.kind', 'in', kinds!))
          .where((eb) => eb.or([eb('m.claimed_until', 'is', null), eb('m.claimed_until', '<=', now)]))
          .where((eb) =>
            eb.or([
              eb('m.ordering_key', 'is', null),
              eb.not(
                eb.exists(
                  eb
                    .selectFrom('outbox as earlier')
                    .select('earlier.id')
                    .whereRef('earlier.ordering_key', '=', 'm.ordering_key')
                    .where('earlier.status', '=', 'pending')
                    .where((inner) =>
                      inner.or([
                        inner('earlier.created_at', '<', inner.ref('m.created_at')),
                        inner.and([
                          inner('earlier.created_at', '=', inner.ref('m.created_at')),
                          inner('earlier.id', '<', inner.ref('m.id')),
                        ]),
                      ]),
                    ),
                ),
              ),
            ]),
          )
          .$if(leaveOut.targets.length > 0, (query) => query.where('m.target', 'not in', leaveOut.targets))
          .$if(leaveOut.owners.length > 0, (query) => query.where('m.owner', 'not in', leaveOut.owners))
          .$if(leaveOut.chosen.length > 0, (query) => query.where('m.id', 'not in', leaveOut.chosen))
          .orderBy('m.next_attempt_at')
          .orderBy('m.id')
          .limit(size)
          .execute(),
      );
      if (chosen.length === 0) return [];
      // Checked again in the claim itself: a row another claim took since the read is not taken twice.
      const claimable = db.selectFrom('outbox').select('id').where('id', 'in', chosen).where(unclaimed);
      const claimed = await db
        .updateTable('outbox')
        .set((eb) => ({ claimed_until: until, attempts: eb('attempts', '+', 1) }))
        .where('id', 'in', isPostgres(db) ? claimable.forUpdate().skipLocked() : claimable)
        .returning(['id', 'kind', 'project_id', 'owner', 'target', 'payload', 'attempts', 'created_at', 'claimed_until'])
        .execute();
      return claimed.map((row) => ({ ...row, claimed_until: row.claimed_until! }));
    },

    /** The attempt's outcome, recorded only while the claim is still this attempt's. */
    async settle(message: Pick<ClaimedMessage, 'id' | 'claimed_until'>, outcome: AttemptOutcome): Promise<boolean> {
      const result = await db
        .updateTable('outbox')
        .set({ ...outcome, claimed_until: null })
        .where('id', '=', message.id)
        .where('claimed_until', '=', message.claimed_until)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },

    /**
     * The retention job's batch: up to `limit` messages created before `cutoff` that are done
     * (succeeded or failed), oldest first; a pending one is kept whatever its age. Returns how many went.
     */
    async deleteDoneBefore(cutoff: string, limit: number): Promise<number> {
      const batch = db
        .selectFrom('outbox')
        .select('id')
        .where('created_at', '<', cutoff)
        .where('status', 'in', ['succeeded', 'failed'])
        .orderBy('created_at')
        .limit(limit);
      const result = await db.deleteFrom('outbox').where('id', 'in', batch).executeTakeFirst();
      return Number(result.numDeletedRows);
    },

    /** How many of the project's messages of `kinds` there are (its deliveries' pages). */
    async countForProject(projectId: string, kinds: readonly string[]): Promise<number> {
      const row = await db
        .selectFrom('outbox')
        .select(countAll.as('count'))
        .where('project_id', '=', projectId)
        .where('kind', 'in', kinds)
        .executeTakeFirstOrThrow();
      return Number(row.count);
    },

    /** A page of the project's messages of `kinds`, newest first, as E6's deliveries are listed. */
    async listForProject(projectId: string, kinds: readonly string[], page: { limit: number; offset: number }) {
      return db
        .selectFrom('outbox')
        .select(['id', 'kind', 'status', 'attempts', 'response_status', 'error', 'next_attempt_at', 'created_at', 'delivered_at'])
        .where('project_id', '=', projectId)
        .where('kind', 'in', kinds)
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .limit(page.limit)
        .offset(page.offset)
        .execute();
    },

    /** /metrics: messages waiting, and the creation time of the oldest (null when none). */
    async backlog(): Promise<{ pending: number; oldest: string | null }> {
      const row = await db
        .selectFrom('outbox')
        .select((eb) => [countAll.as('pending'), eb.fn.min('created_at').as('oldest')])
        .where('status', '=', 'pending')
        .executeTakeFirstOrThrow();
      return { pending: Number(row.pending), oldest: (row.oldest as string | null) ?? null };
    },
  };
}

export type OutboxQueue = ReturnType<typeof createOutboxQueue>;
