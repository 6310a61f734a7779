import type { Kysely } from 'kysely';

/**
 * D29: E7's lockout counted failures after each password was hashed, so concurrent attempts were
 * all judged. `sign_in_attempts` holds, per email, a log of the attempts of the last 15 minutes that
 * count against it (each one reserved before its password is hashed, then kept as a failure or
 * dropped on success: sessions/sign-in-lockout.ts), so the limit is decided in one locked row.
 * Locks in force are carried over; the failures counted before are not (at most four, for at most
 * 15 minutes).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('sign_in_attempts')
    // Normalised like users.email; any address, known or not, so a lockout reveals nothing.
    .addColumn('email', 'text', (col) => col.primaryKey())
    // JSON: [{"id", "at", "failed"}], at most five, none older than 15 minutes once pruned.
    .addColumn('attempts', 'text', (col) => col.notNull())
    // The row's last change: one unchanged for 15 minutes holds no attempt; once its lock is over too, it goes (session-retention.ts).
    .addColumn('updated_at', 'text', (col) => col.notNull())
    .addColumn('locked_until', 'text')
    .execute();
  await db
    .insertInto('sign_in_attempts')
    .columns(['email', 'attempts', 'updated_at', 'locked_until'])
    .expression(
      db
        .selectFrom('sign_in_failures')
        .select(['email', (eb) => eb.val('[]').as('attempts'), 'window_started_at', 'locked_until'])
        .where('locked_until', 'is not', null),
    )
    .execute();
  await db.schema.dropTable('sign_in_failures').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('sign_in_failures')
    .addColumn('email', 'text', (col) => col.primaryKey())
    .addColumn('failures', 'integer', (col) => col.notNull())
    .addColumn('window_started_at', 'text', (col) => col.notNull())
    .addColumn('locked_until', 'text')
    .execute();
  await db.schema.dropTable('sign_in_attempts').execute();
}
