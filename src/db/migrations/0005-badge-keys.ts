import type { Kysely } from 'kysely';
import { randomInt } from 'node:crypto';
import { isPostgres } from '../dialect.js';

/**
 * E2.2: every project gets a badge key, the secret of its public badge URLs. It is stored as is
 * (the API shows it back in those URLs; it grants read of the badge data only), unique, and looked
 * up on every badge request, hence the unique index.
 *
 * Projects stored before get a key here, in the shape badge-key.ts generated when this migration
 * was written (32 characters from [A-Za-z0-9], from the CSPRNG); the literal length is on purpose,
 * so that the migration keeps doing what it did when it shipped.
 *
 * PostgreSQL makes the column NOT NULL once every row has a key. SQLite cannot add that constraint
 * to an existing column without rebuilding the table (which other tables reference), so there the
 * service's insert is what guarantees a key (projects.service.ts).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('projects').addColumn('badge_key', 'text').execute();
  const projects = await db.selectFrom('projects').select('id').execute();
  for (const { id } of projects) {
    await db
      .updateTable('projects')
      .set({ badge_key: randomAlphanumeric(32) })
      .where('id', '=', id)
      .execute();
  }
  if (isPostgres(db)) {
    await db.schema
      .alterTable('projects')
      .alterColumn('badge_key', (column) => column.setNotNull())
      .execute();
  }
  await db.schema.createIndex('projects_badge_key_idx').on('projects').column('badge_key').unique().execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('projects_badge_key_idx').execute();
  await db.schema.alterTable('projects').dropColumn('badge_key').execute();
}

/**
 * 32 characters from [A-Za-z0-9], uniformly, from the CSPRNG: a badge key as badges/badge-key.ts
 * makes one. Written out here: a shipped migration keeps its own code, whatever the service's
 * helpers become.
 */
function randomAlphanumeric(length: number): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  let out = '';
  for (let i = 0; i < length; i++) out += alphabet[randomInt(alphabet.length)];
  return out;
}
