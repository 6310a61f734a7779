import type { Kysely } from 'kysely';

/**
 * The outbox of calls to other services (outbox/): E9.5's comments on tickets and closing them now,
 * commit statuses, pull-request comments and emails to come. A change that causes a
 * call inserts a message in its own transaction; the outbox worker of any instance makes the call
 * when it is due, on E6's retry schedule, one attempt at a time (claims, as for webhook deliveries).
 *
 * - `kind` names the handler that makes the call; `payload` (JSON) is what it needs, fixed when the
 *   change happens.
 * - `owner` and `target`: D31's units of fairness (a team; a connection, a mail server).
 * - `ordering_key`: the messages sharing one are attempted one at a time, in the order they were
 *   written (`created_at`, then `id`, a UUID v7): a ticket's comment before its closing, a pull
 *   request's comments in the order of its reports. A message waits while an earlier one with its
 *   key is pending; one failed for good no longer holds the others up.
 * - `project_id`: whose deliveries they are (listed per project); deleting the project deletes them.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('outbox')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('kind', 'text', (col) => col.notNull())
    .addColumn('project_id', 'text', (col) => col.references('projects.id').onDelete('cascade'))
    .addColumn('owner', 'text', (col) => col.notNull())
    .addColumn('target', 'text', (col) => col.notNull())
    .addColumn('ordering_key', 'text')
    .addColumn('payload', 'text', (col) => col.notNull())
    .addColumn('status', 'text', (col) => col.notNull())
    .addColumn('attempts', 'integer', (col) => col.notNull())
    .addColumn('response_status', 'integer')
    .addColumn('error', 'text')
    .addColumn('next_attempt_at', 'text')
    .addColumn('claimed_until', 'text')
    .addColumn('created_at', 'text', (col) => col.notNull())
    .addColumn('delivered_at', 'text')
    .execute();
  await db.schema.createIndex('outbox_due_idx').on('outbox').columns(['status', 'next_attempt_at']).execute();
  // "Is an earlier message with this key pending?", asked of every due message with a key.
  await db.schema.createIndex('outbox_ordering_idx').on('outbox').columns(['ordering_key', 'created_at', 'id']).execute();
  await db.schema.createIndex('outbox_project_idx').on('outbox').columns(['project_id', 'created_at', 'id']).execute();
  // The retention job's cut by age.
  await db.schema.createIndex('outbox_created_idx').on('outbox').column('created_at').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('outbox').execute();
}
