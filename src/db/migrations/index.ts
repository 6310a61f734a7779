import type { Migration } from 'kysely';
import * as initial from './0001-initial.js';
import * as uploads from './0002-uploads.js';
import * as teamProjectCount from './0003-team-project-count.js';

/**
 * Every migration, by name; Kysely's Migrator runs them in name order. Listed explicitly (rather than
 * read from the folder) so the same list works from TypeScript sources under test and from dist/.
 * Never edit a shipped migration: add a new one.
 */
export const migrations: Record<string, Migration> = {
  '0001-initial': initial,
  '0002-uploads': uploads,
  '0003-team-project-count': teamProjectCount,
};
