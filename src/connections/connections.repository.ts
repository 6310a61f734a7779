import type { Insertable, Selectable, Updateable } from 'kysely';
import type { Db } from '../db/database.js';
import type { ConnectionsTable } from '../db/schema.js';
import type { SecretBox } from '../secrets/secret-box.js';
import type { ProviderTarget } from './provider-http.js';
import { type Credentials, isProvider, type Provider } from './providers.js';
import { UUID_PATTERN } from '../projects/permissions.js';

export type ConnectionRow = Selectable<ConnectionsTable>;

/** A connection with its credentials opened: what a call to its provider needs, and nothing for an answer. */
export interface OpenedConnection extends ProviderTarget {
  id: string;
  team_id: number;
  name: string;
}

/** E9.2: the context a connection's credentials are sealed under, so that a sealed value moved to another row does not open. */
export const credentialsContext = (id: string) => `connection:${id}`;

/** E9.1: a team's connections. Only this module writes `connections`. */
export function createConnectionsRepository(db: Db) {
  return {
    async insert(row: Insertable<ConnectionsTable>): Promise<void> {
      await db.insertInto('connections').values(row).execute();
    },

    async listForTeam(teamId: number): Promise<ConnectionRow[]> {
      return db.selectFrom('connections').selectAll().where('team_id', '=', teamId).orderBy('created_at').orderBy('id').execute();
    },

    /** A path's id that is no UUID names no connection (a 404), and never reaches the database (a NUL byte would fail there). */
    async find(teamId: number, id: string): Promise<ConnectionRow | undefined> {
      if (!UUID_PATTERN.test(id)) return undefined;
      return db.selectFrom('connections').selectAll().where('team_id', '=', teamId).where('id', '=', id.toLowerCase()).executeTakeFirst();
    },

    async update(id: string, changes: Updateable<ConnectionsTable>): Promise<void> {
      await db.updateTable('connections').set(changes).where('id', '=', id).execute();
    },

    /** Projects linked to it are unlinked by the foreign key (set null), tickets keep their link as null. */
    async delete(id: string): Promise<void> {
      await db.deleteFrom('connections').where('id', '=', id).execute();
    },

    async markUsed(id: string, at: string): Promise<void> {
      await db.updateTable('connections').set({ last_used_at: at }).where('id', '=', id).execute();
    },
  };
}

/**
 * For features that call a provider (tickets): a connection of a team with its credentials opened,
 * or null when the team has no such connection. Throws SecretBoxError when the credentials do not
 * open (a missing key): an operator's problem, not the caller's.
 */
export async function openConnection(db: Db, secrets: SecretBox, teamId: number, id: string): Promise<OpenedConnection | null> {
  const row = await createConnectionsRepository(db).find(teamId, id);
  if (!row || !isProvider(row.provider)) return null;
  return openRow(row, secrets);
}

export function openRow(row: ConnectionRow, secrets: SecretBox): OpenedConnection {
  const credentials = JSON.parse(secrets.open(row.credentials, credentialsContext(row.id))) as Credentials;
  return { id: row.id, team_id: row.team_id, name: row.name, provider: row.provider as Provider, base_url: row.base_url, credentials };
}

/** Records that a connection was just used for a call (its `last_used_at`). */
export async function markConnectionUsed(db: Db, id: string, at: string): Promise<void> {
  await createConnectionsRepository(db).markUsed(id, at);
}
