import type { Kysely } from 'kysely';

/**
 * E6: a project's webhooks, and their deliveries, which are also the outbox: a change that causes
 * an event inserts one delivery per subscribed webhook in its own transaction, and the delivery
 * worker of any instance sends what is due (webhooks/delivery-worker.ts).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('webhooks')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('project_id', 'text', (col) => col.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('url', 'text', (col) => col.notNull())
    // JSON array of event names.
    .addColumn('events', 'text', (col) => col.notNull())
    .addColumn('description', 'text')
    // 1 or 0: an inactive webhook gets no new deliveries.
    .addColumn('active', 'integer', (col) => col.notNull())
    // Kept as is: signing needs the secret itself (HMAC), a hash of it could not sign.
    .addColumn('secret', 'text', (col) => col.notNull())
    // The secret before the last rotation, signed with too until `previous_secret_until` (24 h).
    .addColumn('previous_secret', 'text')
    .addColumn('previous_secret_until', 'text')
    .addColumn('created_at', 'text', (col) => col.notNull())
    .addColumn('updated_at', 'text', (col) => col.notNull())
    .execute();
  await db.schema.createIndex('webhooks_project_idx').on('webhooks').columns(['project_id', 'created_at', 'id']).execute();

  await db.schema
    .createTable('webhook_deliveries')
    // The `webhook-id` header: the same on every attempt, so receivers can drop duplicates.
    .addColumn('id', 'text', (col) => col.primaryKey())
    // Deleting a webhook deletes its deliveries: pending ones are never attempted again.
    .addColumn('webhook_id', 'text', (col) => col.notNull().references('webhooks.id').onDelete('cascade'))
    .addColumn('event', 'text', (col) => col.notNull())
    // The request body, fixed when the event happens: every attempt sends the same bytes.
    .addColumn('payload', 'text', (col) => col.notNull())
    .addColumn('status', 'text', (col) => col.notNull())
    .addColumn('attempts', 'integer', (col) => col.notNull())
    .addColumn('response_status', 'integer')
    .addColumn('error', 'text')
    // When the next attempt is due; null once succeeded or failed.
    .addColumn('next_attempt_at', 'text')
    // An attempt in flight: no other instance takes the delivery before this time; past it (the
    // instance died mid-attempt) the attempt is made again.
    .addColumn('claimed_until', 'text')
    .addColumn('created_at', 'text', (col) => col.notNull())
    .addColumn('delivered_at', 'text')
    .execute();
  await db.schema.createIndex('webhook_deliveries_due_idx').on('webhook_deliveries').columns(['status', 'next_attempt_at']).execute();
  // The retention job's cut by age (webhooks/delivery-retention.ts).
  await db.schema.createIndex('webhook_deliveries_created_idx').on('webhook_deliveries').column('created_at').execute();
  await db.schema
    .createIndex('webhook_deliveries_webhook_idx')
    .on('webhook_deliveries')
    .columns(['webhook_id', 'created_at', 'id'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('webhook_deliveries').execute();
  await db.schema.dropTable('webhooks').execute();
}
