import { v7 as uuidv7 } from 'uuid';
import { type AuditActor, recheckActor } from '../audit/audit-actor.js';
import { changedFields, recordAudit } from '../audit/audit-log.js';
import type { WriteCredential } from '../auth/write-credential.js';
import type { Clock } from '../clock.js';
import { type Db, inTransaction } from '../db/database.js';
import type { TeamRole } from '../db/schema.js';
import type { SecretBox } from '../secrets/secret-box.js';
import { ApiError, notFound } from '../wire/api-error.js';
import { checkedBaseUrl, checkedCredentials, defaultBaseUrl } from './connection-input.js';
import { type ConnectionRow, createConnectionsRepository, credentialsContext, openRow } from './connections.repository.js';
import type { CheckResult, Connection, CreateConnectionBody, UpdateConnectionBody } from './connections.schemas.js';
import type { ProviderHttp } from './provider-http.js';
import { type Credentials, credentialsHint, isProvider, PROVIDER_SPECS, type Provider } from './providers.js';

/** E9.2 on PostgreSQL without a key: nothing can be sealed, so no credentials are stored. */
export const noSecretKey = () =>
  new ApiError(
    409,
    'Conflict',
    'Connections cannot be stored: the server has no SECRET_KEY to encrypt their credentials. Set SECRET_KEY (32 bytes, base64).',
  );

const MANAGERS: readonly TeamRole[] = ['owner', 'admin'];

export interface ConnectionsDeps {
  db: Db;
  clock: Clock;
  secrets: SecretBox;
  providerHttp: ProviderHttp;
  allowPrivateNetworks: boolean;
  /** The caller's role in a team inside a write's transaction, the membership share-locked (teams/). */
  teamRoleInTransaction(trx: Db, teamId: number, userId: number): Promise<TeamRole | undefined>;
}

/**
 * E9.1: a team's connections. The routes have resolved the team and the caller's owner or admin
 * role before the body is read (D4); every write checks both again inside its transaction (D22)
 * with its audit event (E5). Credentials are sealed before the transaction and never leave this
 * module in plain text except to the provider client.
 */
export function createConnectionsService(deps: ConnectionsDeps) {
  const { db, clock, secrets } = deps;
  const now = () => clock.now().toISOString();
  const connections = createConnectionsRepository(db);

  const audit = (
    trx: Db,
    actor: AuditActor,
    teamId: number,
    action: 'connection.created' | 'connection.updated' | 'connection.deleted',
    id: string,
    details: Record<string, unknown>,
  ) => recordAudit(trx, clock, actor, { action, target: { type: 'connection', id }, teamId, details });

  /** D22: the caller as they are now, still owner or admin of the team (404 when no longer a member, 403 without the role). */
  async function manager(trx: Db, credential: WriteCredential, teamId: number): Promise<AuditActor> {
    const { caller, actor } = await recheckActor(credential, trx);
    const role = await deps.teamRoleInTransaction(trx, teamId, caller.userId);
    if (role === undefined) throw notFound();
    if (!MANAGERS.includes(role)) throw new ApiError(403, 'Forbidden', 'This action requires the owner or admin role in this team.');
    return actor;
  }

  async function found(on: Db, teamId: number, id: string): Promise<ConnectionRow> {
    const row = await createConnectionsRepository(on).find(teamId, id);
    if (!row) throw notFound();
    return row;
  }

  const seal = (id: string, credentials: Credentials) => secrets.seal(JSON.stringify(credentials), credentialsContext(id));

  return {
    /** D4 step 8: without a key nothing can be stored (409), answered before the body is validated. */
    assertCanStore(): void {
      if (!secrets.canSeal) throw noSecretKey();
    },

    async create(credential: WriteCredential, teamId: number, body: CreateConnectionBody): Promise<Connection> {
      if (!secrets.canSeal) throw noSecretKey();
      const provider = body.provider;
      const base_url = body.base_url === undefined ? defaultBaseUrl(provider) : checkedBaseUrl(body.base_url, deps.allowPrivateNetworks);
      const credentials = checkedCredentials(provider, body.credentials);
      const id = uuidv7();
      const at = now();
      const row: ConnectionRow = {
        id,
        team_id: teamId,
        provider,
        name: body.name,
        base_url,
        credentials: seal(id, credentials),
        credentials_hint: credentialsHint(provider, credentials),
        created_at: at,
        updated_at: at,
        last_used_at: null,
      };
      await inTransaction(db, async (trx) => {
        const actor = await manager(trx, credential, teamId);
        await createConnectionsRepository(trx).insert(row);
        await audit(trx, actor, teamId, 'connection.created', id, { provider, name: row.name, base_url });
      });
      return toConnection(row);
    },

    /** Oldest first: a team has a handful, and the order they were added in is the one people expect. */
    async list(teamId: number): Promise<Connection[]> {
      return (await connections.listForTeam(teamId)).map(toConnection);
    },

    async show(teamId: number, id: string): Promise<Connection> {
      return toConnection(await found(db, teamId, id));
    },

    /** `provider` never changes; credentials given replace the old ones whole. */
    async update(credential: WriteCredential, teamId: number, id: string, body: UpdateConnectionBody): Promise<Connection> {
      if (body.credentials !== undefined && !secrets.canSeal) throw noSecretKey();
      return inTransaction(db, async (trx) => {
        const actor = await manager(trx, credential, teamId);
        const row = await found(trx, teamId, id);
        const provider = row.provider as Provider;
        const base_url = body.base_url === undefined ? undefined : checkedBaseUrl(body.base_url, deps.allowPrivateNetworks);
        const credentials = body.credentials === undefined ? undefined : checkedCredentials(provider, body.credentials);
        const changes = changedFields({ name: row.name, base_url: row.base_url }, { name: body.name, base_url });
        if (Object.keys(changes).length === 0 && credentials === undefined) return toConnection(row);
        const updated: ConnectionRow = {
          ...row,
          ...(body.name !== undefined && { name: body.name }),
          ...(base_url !== undefined && { base_url }),
          ...(credentials !== undefined && {
            credentials: seal(id, credentials),
            credentials_hint: credentialsHint(provider, credentials),
          }),
          updated_at: now(),
        };
        await createConnectionsRepository(trx).update(id, {
          name: updated.name,
          base_url: updated.base_url,
          credentials: updated.credentials,
          credentials_hint: updated.credentials_hint,
          updated_at: updated.updated_at,
        });
        // The credentials are said to have been replaced, never what they were or are.
        await audit(trx, actor, teamId, 'connection.updated', id, {
          ...changes,
          ...(credentials !== undefined && { credentials_replaced: true }),
        });
        return toConnection(updated);
      });
    },

    /** Projects whose tracker it was are unlinked, and tickets keep no connection (foreign keys, set null). */
    async delete(credential: WriteCredential, teamId: number, id: string): Promise<void> {
      await inTransaction(db, async (trx) => {
        const actor = await manager(trx, credential, teamId);
        const row = await found(trx, teamId, id);
        await createConnectionsRepository(trx).delete(id);
        await audit(trx, actor, teamId, 'connection.deleted', id, { provider: row.provider, name: row.name });
      });
    },

    /** One authenticated read at the provider; ok false with the provider's words (or the failure's) when it fails. */
    async check(teamId: number, id: string): Promise<CheckResult> {
      const row = await found(db, teamId, id);
      if (!isProvider(row.provider)) return { ok: false, message: `Unknown provider ${row.provider}.` };
      let target: ReturnType<typeof openRow>;
      try {
        target = openRow(row, secrets);
      } catch (error) {
        // A key removed or changed: the operator's to fix; the message names no secret.
        return { ok: false, message: (error as Error).message };
      }
      const read = PROVIDER_SPECS[row.provider].check(target.credentials);
      const result = await deps.providerHttp.request({
        connection: target,
        method: read.method,
        path: read.path,
        ...(read.body !== undefined && { body: read.body }),
      });
      await connections.markUsed(id, now());
      if (!result.ok) return { ok: false, message: result.failure.message };
      const account = read.accountOf(result.answer.json);
      return { ok: true, message: account === null ? 'Connected.' : `Connected as ${account}.` };
    },
  };
}

export type ConnectionsService = ReturnType<typeof createConnectionsService>;

export function toConnection(row: ConnectionRow): Connection {
  return {
    id: row.id,
    provider: row.provider as Provider,
    name: row.name,
    base_url: row.base_url,
    credentials_hint: row.credentials_hint,
    created_at: row.created_at,
    updated_at: row.updated_at,
    last_used_at: row.last_used_at,
  };
}
