import type { ExpressionBuilder } from 'kysely';
import type { Db } from '../db/database.js';
import type { AttemptOutcome, Database } from '../db/schema.js';
import { countAll, isPostgres } from '../db/dialect.js';
import { chooseFairly, type InFlightShares } from '../jobs/fair-share.js';

/** A delivery taken for one attempt, with what sending it needs from its webhook. */
export interface ClaimedDelivery {
  id: string;
  webhook_id: string;
  /** D31: the team the delivery's project belongs to, the unit of fairness (as a string). */
  owner: string;
  event: string;
  payload: string;
  /** Counting this one. */
  attempts: number;
  created_at: string;
  /** The claim: only the instance holding it may record the attempt's outcome. */
  claimed_until: string;
  url: string;
  /** E11.5: the body it is sent in, as stored (webhook-formats.ts reads it). */
  format: string;
  /** As stored: sealed (E9.2), or plain when stored before it or without a key; the worker opens them. */
  secret: string;
  previous_secret: string | null;
  previous_secret_until: string | null;
}

/**
 * E6's outbox as the delivery worker reads it. An attempt is claimed before it is made: the claim
 * counts the attempt and holds the delivery until `claimed_until`, so no other instance makes it
 * meanwhile; an instance that dies mid-attempt leaves the claim to expire, and the attempt is made
 * again (never lost). On PostgreSQL the claim takes its rows with `FOR UPDATE SKIP LOCKED`, so
 * instances claiming at once take different deliveries instead of waiting for each other.
 */
export function createDeliveryQueue(db: Db) {
  return {
    /**
     * Up to `limit` deliveries due at `now`, claimed until `until`, chosen fairly (D31, jobs/fair-share.ts):
     * round-robin across teams, oldest due first in each, within the bounds of `shares` (what this
     * instance has in flight; no bounds when absent). The due ones are read a few times `limit` at a
     * time, leaving out the teams and webhooks already at their bound, then claimed, skipping any
     * another instance is claiming at this moment.
     */
    async claimDue(now: string, until: string, limit: number, shares?: InFlightShares): Promise<ClaimedDelivery[]> {
      if (limit <= 0) return [];
      const unclaimed = (eb: ExpressionBuilder<Database, 'webhook_deliveries'>) =>
        eb.and([
          eb('status', '=', 'pending'),
          eb('next_attempt_at', '<=', now),
          eb.or([eb('claimed_until', 'is', null), eb('claimed_until', '<=', now)]),
        ]);
      const chosen = await chooseFairly(limit, shares, async (leaveOut, size) => {
        const due = await db
          .selectFrom('webhook_deliveries as d')
          .innerJoin('webhooks as w', 'w.id', 'd.webhook_id')
          .innerJoin('projects as p', 'p.id', 'w.project_id')
          .select(['d.id', 'd.webhook_id as target', 'p.team_id'])
          .where('d.status', '=', 'pending')
          .where('d.next_attempt_at', '<=', now)
          .where((eb) => eb.or([eb('d.claimed_until', 'is', null), eb('d.claimed_until', '<=', now)]))
          .$if(leaveOut.targets.length > 0, (query) => query.where('d.webhook_id', 'not in', leaveOut.targets))
          .$if(leaveOut.owners.length > 0, (query) => query.where('p.team_id', 'not in', leaveOut.owners.map(Number)))
          .$if(leaveOut.chosen.length > 0, (query) => query.where('d.id', 'not in', leaveOut.chosen))
          .orderBy('d.next_attempt_at')
          .orderBy('d.id')
          .limit(size)
          .execute();
        return due.map((row) => ({ id: row.id, target: row.target, owner: String(row.team_id) }));
      });
      if (chosen.length === 0) return [];
      // Checked again in the claim itself: a row another claim took since the read is not taken twice.
      const claimable = db.selectFrom('webhook_deliveries').select('id').where('id', 'in', chosen).where(unclaimed);
      const claimed = await db
        .updateTable('webhook_deliveries')
        .set((eb) => ({ claimed_until: until, attempts: eb('attempts', '+', 1) }))
        .where('id', 'in', isPostgres(db) ? claimable.forUpdate().skipLocked() : claimable)
        .returning(['id', 'webhook_id', 'event', 'payload', 'attempts', 'created_at', 'claimed_until'])
        .execute();
      if (claimed.length === 0) return [];
      const hooks = await db
        .selectFrom('webhooks as w')
        .innerJoin('projects as p', 'p.id', 'w.project_id')
        .select(['w.id', 'w.url', 'w.format', 'w.secret', 'w.previous_secret', 'w.previous_secret_until', 'p.team_id'])
        .where('w.id', 'in', [...new Set(claimed.map((row) => row.webhook_id))])
        .execute();
      const byId = new Map(hooks.map((hook) => [hook.id, hook]));
      return claimed.flatMap((row) => {
        const hook = byId.get(row.webhook_id);
        // Deleted since (its deliveries went with it): nothing to send.
        if (!hook) return [];
        const { id: _id, team_id: teamId, ...target } = hook;
        return [{ ...row, claimed_until: row.claimed_until!, owner: String(teamId), ...target }];
      });
    },

    /** The attempt's outcome, recorded only while the claim is still this attempt's. */
    async settle(delivery: Pick<ClaimedDelivery, 'id' | 'claimed_until'>, outcome: AttemptOutcome): Promise<boolean> {
      const result = await db
        .updateTable('webhook_deliveries')
        .set({ ...outcome, claimed_until: null })
        .where('id', '=', delivery.id)
        .where('claimed_until', '=', delivery.claimed_until)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },

    /** /metrics: deliveries waiting, and the creation time of the oldest (null when none). */
    async backlog(): Promise<{ pending: number; oldest: string | null }> {
      const row = await db
        .selectFrom('webhook_deliveries')
        .select((eb) => [countAll.as('pending'), eb.fn.min('created_at').as('oldest')])
        .where('status', '=', 'pending')
        .executeTakeFirstOrThrow();
      return { pending: Number(row.pending), oldest: (row.oldest as string | null) ?? null };
    },
  };
}

export type DeliveryQueue = ReturnType<typeof createDeliveryQueue>;
