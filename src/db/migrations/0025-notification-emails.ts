import type { Kysely } from 'kysely';

/**
 * E11.3–E11.4: the emails (notifications/).
 *
 * - `notification_events`: one row per event that has had its emails written to the outbox
 *   (`report:12`, `digest:2026-11-23`). Whichever attempt or instance inserts the row writes the
 *   emails in the same transaction; any other finds it there and writes none: one email per user,
 *   event and report, however many instances run.
 * - `notification_signing_keys`: the key that signs unsubscribe links (RFC 8058), made at random by
 *   the first instance that needs it (notifications/unsubscribe-token.ts), so that every instance
 *   holds the same one without any setting. It only signs "turn this kind of email off for this
 *   person"; a leak of it lets no one read or change anything else.
 * - `email_opt_outs`: addresses that asked for no more invitations (E4's emails go to addresses
 *   that may have no account, so the choice cannot be a user's).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('notification_events')
    .addColumn('event_key', 'text', (col) => col.primaryKey())
    .addColumn('created_at', 'text', (col) => col.notNull())
    .execute();
  // Their retention deletes the oldest (notification-event-retention.ts).
  await db.schema.createIndex('notification_events_created_idx').on('notification_events').column('created_at').execute();

  await db.schema
    .createTable('notification_signing_keys')
    .addColumn('id', 'integer', (col) => col.primaryKey())
    .addColumn('secret', 'text', (col) => col.notNull())
    .addColumn('created_at', 'text', (col) => col.notNull())
    .execute();

  await db.schema
    .createTable('email_opt_outs')
    .addColumn('email', 'text', (col) => col.primaryKey())
    .addColumn('created_at', 'text', (col) => col.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('email_opt_outs').execute();
  await db.schema.dropTable('notification_signing_keys').execute();
  await db.schema.dropTable('notification_events').execute();
}
