import type { Kysely } from 'kysely';
import { isPostgres } from '../dialect.js';
import { createPostgresNotifications, dropPostgresNotifications } from './0012-auth-changes.js';

/**
 * PostgreSQL no longer caches token lookups (auth/token-cache.ts): a notification reaches the other
 * instances only after the writer's commit has returned, so a cache waiting for one could serve a
 * revoked token on its next request (D9). Migration 0012's triggers and their function would notify
 * no one: they go. SQLite keeps its counter, which its cache reads with every lookup.
 */
export async function up(db: Kysely<any>): Promise<void> {
  if (isPostgres(db)) await dropPostgresNotifications(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  if (isPostgres(db)) await createPostgresNotifications(db);
}
