import type { Insertable, Selectable, Updateable } from 'kysely';
import type { Db } from '../db/database.js';
import { countRows } from '../db/dialect.js';
import { pageDescending } from '../db/page-query.js';
import type { WebhookDeliveriesTable, WebhooksTable } from '../db/schema.js';

export type WebhookRow = Selectable<WebhooksTable>;
export type DeliveryRow = Selectable<WebhookDeliveriesTable>;

/** A webhook row with its latest delivery's outcome (E6's `last_delivery`). */
export type WebhookWithLastDelivery = WebhookRow & {
  last_status: DeliveryRow['status'] | null;
  last_response_status: number | null;
  last_at: string | null;
};

/** E6: webhooks and their deliveries as the API reads and changes them (the worker's queue is delivery-queue.ts). */
export function createWebhooksRepository(db: Db) {
  const deliveriesOf = (webhookId: string) => db.selectFrom('webhook_deliveries').where('webhook_id', '=', webhookId);
  /** The newest delivery of each webhook, joined as its `last_delivery`. */
  const withLastDelivery = () =>
    db
      .selectFrom('webhooks as w')
      .selectAll('w')
      .select((eb) => {
        const newest = eb
          .selectFrom('webhook_deliveries as d')
          .whereRef('d.webhook_id', '=', 'w.id')
          .orderBy('d.created_at', 'desc')
          .orderBy('d.id', 'desc')
          .limit(1);
        return [
          newest.select('d.status').as('last_status'),
          newest.select('d.response_status').as('last_response_status'),
          // When it was delivered or last attempted; its creation while none was made yet.
          newest.select((inner) => inner.fn.coalesce('d.delivered_at', 'd.created_at').as('at')).as('last_at'),
        ];
      });

  return {
    async insert(row: Insertable<WebhooksTable>): Promise<void> {
      await db.insertInto('webhooks').values(row).execute();
    },

    async countForProject(projectId: string): Promise<number> {
      return countRows(db.selectFrom('webhooks').where('project_id', '=', projectId));
    },

    /** Newest first. */
    async listForProject(projectId: string): Promise<WebhookWithLastDelivery[]> {
      return (await withLastDelivery()
        .where('w.project_id', '=', projectId)
        .orderBy('w.created_at', 'desc')
        .orderBy('w.id', 'desc')
        .execute()) as WebhookWithLastDelivery[];
    },

    async find(projectId: string, id: string): Promise<WebhookWithLastDelivery | undefined> {
      return (await withLastDelivery().where('w.project_id', '=', projectId).where('w.id', '=', id).executeTakeFirst()) as
        | WebhookWithLastDelivery
        | undefined;
    },

    async update(id: string, changes: Updateable<WebhooksTable>): Promise<void> {
      await db.updateTable('webhooks').set(changes).where('id', '=', id).execute();
    },

    /** Its deliveries go with it (cascade): the pending ones are never attempted. */
    async delete(id: string): Promise<boolean> {
      const result = await db.deleteFrom('webhooks').where('id', '=', id).executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },

    /**
     * A deactivated webhook's pending deliveries end as failed, saying why; those in flight too: the
     * claim is dropped with them, so their attempt's outcome is not recorded (delivery-queue.ts settle)
     * and they are never tried again.
     */
    async failPending(webhookId: string, error: string): Promise<void> {
      await db
        .updateTable('webhook_deliveries')
        .set({ status: 'failed', error, next_attempt_at: null, claimed_until: null })
        .where('webhook_id', '=', webhookId)
        .where('status', '=', 'pending')
        .execute();
    },

    async countDeliveries(webhookId: string): Promise<number> {
      return countRows(deliveriesOf(webhookId));
    },

    /** Newest first. */
    async listDeliveries(webhookId: string, page: { limit: number; offset: number }): Promise<DeliveryRow[]> {
      return pageDescending(deliveriesOf(webhookId).selectAll(), ['created_at', 'id'], page).execute();
    },

    async findDelivery(webhookId: string, id: string): Promise<DeliveryRow | undefined> {
      return db.selectFrom('webhook_deliveries').selectAll().where('webhook_id', '=', webhookId).where('id', '=', id).executeTakeFirst();
    },

    /**
     * Retention (delivery-retention.ts): deletes up to `limit` deliveries created before `cutoff`
     * and done (succeeded or failed), oldest first, but never a webhook's newest (a newer one of the
     * same webhook must exist); returns how many went.
     */
    async deleteDoneDeliveriesBefore(cutoff: string, limit: number): Promise<number> {
      const batch = db
        .selectFrom('webhook_deliveries as d')
        .select('d.id')
        .where('d.created_at', '<', cutoff)
        .where('d.status', 'in', ['succeeded', 'failed'])
        .where(({ exists, selectFrom }) =>
          exists(
            selectFrom('webhook_deliveries as n')
              .select('n.id')
              .whereRef('n.webhook_id', '=', 'd.webhook_id')
              .where((eb) =>
                eb.or([
                  eb('n.created_at', '>', eb.ref('d.created_at')),
                  eb.and([eb('n.created_at', '=', eb.ref('d.created_at')), eb('n.id', '>', eb.ref('d.id'))]),
                ]),
              ),
          ),
        )
        .orderBy('d.created_at')
        .limit(limit);
      const result = await db.deleteFrom('webhook_deliveries').where('id', 'in', batch).executeTakeFirst();
      return Number(result.numDeletedRows);
    },

    async insertDelivery(row: Insertable<WebhookDeliveriesTable>): Promise<void> {
      await db.insertInto('webhook_deliveries').values(row).execute();
    },
  };
}

export type WebhooksRepository = ReturnType<typeof createWebhooksRepository>;
