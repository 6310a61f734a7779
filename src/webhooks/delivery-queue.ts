import type { ExpressionBuilder } from 'kysely';
import type { Db } from '../db/database.js';
import type { Database } from '../db/schema.js';
import { countAll, isPostgres } from '../db/dialect.js';

/** Due deliveries read per free slot: enough to fill the slots when some webhooks are at their bound. */
const CANDIDATES_PER_SLOT = 4;

/** A delivery taken for one attempt, with what sending it needs from its webhook. */
export interface ClaimedDelivery {
  id: string;
  webhook_id: string;
  event: string;
  payload: string;
  /** Counting this one. */
  attempts: number;
  created_at: string;
  /** The claim: only the instance holding it may record the attempt's outcome. */
  claimed_until: string;
  url: string;
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
     * Up to `limit` deliveries due at `now`, claimed until `until`, with at most `perWebhook` of one
     * webhook counting those `inFlight` already: the due ones are read first (a few times `limit`,
     * oldest due first) and chosen within the bounds, then claimed, skipping any another instance
     * is claiming at this moment.
     */
    async claimDue(
      now: string,
      until: string,
      limit: number,
      bounds: { perWebhook: number; inFlight?: ReadonlyMap<string, number> } = { perWebhook: Number.POSITIVE_INFINITY },
    ): Promise<ClaimedDelivery[]> {
      if (limit <= 0) return [];
      const unclaimed = (eb: ExpressionBuilder<Database, 'webhook_deliveries'>) =>
        eb.and([
          eb('status', '=', 'pending'),
          eb('next_attempt_at', '<=', now),
          eb.or([eb('claimed_until', 'is', null), eb('claimed_until', '<=', now)]),
        ]);
      // A webhook already at its bound is left out of the read: the backlog of one slow receiver,
      // oldest first, would otherwise fill the read and starve every other webhook.
      const full = [...(bounds.inFlight ?? [])].filter(([, count]) => count >= bounds.perWebhook).map(([webhookId]) => webhookId);
      const due = await db
        .selectFrom('webhook_deliveries')
        .select(['id', 'webhook_id'])
        .where(unclaimed)
        .$if(full.length > 0, (query) => query.where('webhook_id', 'not in', full))
        .orderBy('next_attempt_at')
        .limit(limit * CANDIDATES_PER_SLOT)
        .execute();
      const taken = new Map(bounds.inFlight);
      const chosen: string[] = [];
      for (const row of due) {
        if (chosen.length === limit) break;
        const count = taken.get(row.webhook_id) ?? 0;
        if (count >= bounds.perWebhook) continue;
        taken.set(row.webhook_id, count + 1);
        chosen.push(row.id);
      }
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
        .selectFrom('webhooks')
        .select(['id', 'url', 'secret', 'previous_secret', 'previous_secret_until'])
        .where('id', 'in', [...new Set(claimed.map((row) => row.webhook_id))])
        .execute();
      const byId = new Map(hooks.map((hook) => [hook.id, hook]));
      return claimed.flatMap((row) => {
        const hook = byId.get(row.webhook_id);
        // Deleted since (its deliveries went with it): nothing to send.
        if (!hook) return [];
        const { id: _id, ...target } = hook;
        return [{ ...row, claimed_until: row.claimed_until!, ...target }];
      });
    },

    /** The attempt's outcome, recorded only while the claim is still this attempt's. */
    async settle(
      delivery: Pick<ClaimedDelivery, 'id' | 'claimed_until'>,
      outcome: {
        status: 'pending' | 'succeeded' | 'failed';
        response_status: number | null;
        error: string | null;
        next_attempt_at: string | null;
        delivered_at: string | null;
      },
    ): Promise<boolean> {
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
