import type { Kysely } from 'kysely';

/**
 * E11.5: the body a webhook is sent in (`standard`, `slack`, `teams`, `discord`); the webhooks stored
 * before it keep E6's own body.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('webhooks')
    .addColumn('format', 'text', (col) => col.notNull().defaultTo('standard'))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('webhooks').dropColumn('format').execute();
}
