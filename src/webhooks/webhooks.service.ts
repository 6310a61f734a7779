import { v7 as uuidv7 } from 'uuid';
import { changedFields, recordAudit } from '../audit/audit-log.js';
import type { AuditActor } from '../audit/audit-actor.js';
import type { WriteCredential } from '../auth/write-credential.js';
import type { Clock } from '../clock.js';
import { inTransaction, type Db } from '../db/database.js';
import { ApiError, invalidField, notFound } from '../wire/api-error.js';
import { pageOffset, paginationEnvelope, PAGE_SIZE } from '../wire/pagination.js';
import { UUID_PATTERN } from '../projects/permissions.js';
import type { ProjectForWrite } from '../projects/project-write-access.js';
import { SecretBoxError } from '../secrets/secret-box.js';
import { generateWebhookSecret } from './signature.js';
import type { WebhookSecrets } from './webhook-secrets.js';
import type { WebhookEvent } from './webhook-event-names.js';
import { storedFormat } from './webhook-formats.js';
import { pendingDelivery, recordPing } from './webhook-events.js';
import { webhookHostProblem, webhookUrlProblem } from './webhook-url.js';
import type { DeliveryRow, WebhookWithLastDelivery } from './webhooks.repository.js';
import type { CreateWebhookBody, UpdateWebhookBody, Webhook, WebhookDelivery } from './webhooks.schemas.js';
import { createWebhooksRepository } from './webhooks.repository.js';

/** Webhooks a project may have: each is a receiver every event is sent to, a cost per event. */
export const MAX_WEBHOOKS_PER_PROJECT = 10;
/** E6: after a rotation, requests are signed with the old secret too for this long. */
export const ROTATION_OVERLAP_MS = 24 * 60 * 60 * 1000;

const webhookLimitReached = () => new ApiError(403, 'Forbidden', `A project can have a maximum of ${MAX_WEBHOOKS_PER_PROJECT} webhooks.`);
/** D31: an inactive webhook is sent nothing, a ping or a redelivery included. */
export const webhookInactive = () => new ApiError(409, 'Conflict', 'The webhook is inactive.');

/**
 * E6 over the API: a project's webhooks (owner or admin of its team, as D15's delete: anyone else
 * gets a 404) and their deliveries. Every change checks the caller's credential and role again in
 * its transaction (D22) and writes its audit event there (E5), never with the secret.
 */
export function createWebhooksService(deps: {
  db: Db;
  clock: Clock;
  projectForWrite: ProjectForWrite;
  /** WEBHOOK_ALLOW_PRIVATE_NETWORKS: when false, URLs that can only lead to refused addresses are a 422 (D32). */
  allowPrivateNetworks: boolean;
  /** E9.2: how a secret is stored (sealed when a key is available) and read back. */
  secrets: WebhookSecrets;
}) {
  const { db, clock } = deps;
  /** E6's URL rule, and D32's for hosts known to be refused, as a 422 on `url`. */
  const checkedUrl = (url: string): string => {
    const problem = webhookUrlProblem(url) ?? (deps.allowPrivateNetworks ? null : webhookHostProblem(url));
    if (problem !== null) throw invalidField('url', problem);
    return new URL(url).href;
  };
  const webhooks = createWebhooksRepository(db);
  const now = () => clock.now().toISOString();

  /**
   * The secret being rotated away, stored as the previous one (its own context: E9.2). One that
   * opens under no configured key (SECRET_KEY lost or changed without SECRET_KEY_PREVIOUS) cannot
   * sign any more: the rotation is what repairs the webhook, so it goes without a previous one.
   */
  const previousSecret = (webhook: WebhookWithLastDelivery): string | null => {
    try {
      return deps.secrets.stored(webhook.id, deps.secrets.plain(webhook.id, webhook.secret, 'secret'), 'previous');
    } catch (error) {
      if (error instanceof SecretBoxError) return null;
      throw error;
    }
  };

  /** The project as the caller may manage its webhooks (owner or admin: D15's delete roles), locked, in `trx`. */
  const manageable = (trx: Db, credential: WriteCredential, projectId: string) =>
    deps.projectForWrite(trx, credential, projectId, 'delete');

  async function found(trx: Db, projectId: string, webhookId: string): Promise<WebhookWithLastDelivery> {
    if (!UUID_PATTERN.test(webhookId)) throw notFound();
    const webhook = await createWebhooksRepository(trx).find(projectId, webhookId.toLowerCase());
    if (!webhook) throw notFound();
    return webhook;
  }

  const audit = (
    trx: Db,
    actor: AuditActor,
    teamId: number,
    action: Parameters<typeof recordAudit>[3]['action'],
    id: string,
    details?: Record<string, unknown>,
  ) => recordAudit(trx, clock, actor, { action, target: { type: 'webhook', id }, teamId, details });

  return {
    /** D4 step 8: the limit is a 403 of state, answered before the body is validated (checked again when writing). */
    async assertBelowWebhookLimit(projectId: string): Promise<void> {
      if ((await webhooks.countForProject(projectId)) >= MAX_WEBHOOKS_PER_PROJECT) throw webhookLimitReached();
    },

    async create(credential: WriteCredential, projectId: string, body: CreateWebhookBody): Promise<{ webhook: Webhook; secret: string }> {
      const url = checkedUrl(body.url);
      const secret = generateWebhookSecret();
      const id = uuidv7();
      const row = {
        id,
        project_id: projectId,
        url,
        events: JSON.stringify(uniqueEvents(body.events)),
        description: body.description ?? null,
        // E11.5: E6's own body unless a chat service's is asked for.
        format: body.format ?? 'standard',
        active: 1,
        secret: deps.secrets.stored(id, secret, 'secret'),
        previous_secret: null,
        previous_secret_until: null,
        created_at: now(),
        updated_at: now(),
      };
      await inTransaction(db, async (trx) => {
        const { project, actor } = await manageable(trx, credential, projectId);
        const repository = createWebhooksRepository(trx);
        if ((await repository.countForProject(project.id)) >= MAX_WEBHOOKS_PER_PROJECT) throw webhookLimitReached();
        await repository.insert(row);
        await audit(trx, actor, project.team_id, 'webhook.created', row.id, {
          project_id: project.id,
          url: auditableUrl(url),
          events: JSON.parse(row.events),
          description: row.description,
          format: row.format,
        });
      });
      return { webhook: toWebhook({ ...row, last_status: null, last_response_status: null, last_at: null }), secret };
    },

    async list(projectId: string): Promise<Webhook[]> {
      return (await webhooks.listForProject(projectId)).map(toWebhook);
    },

    async show(projectId: string, webhookId: string): Promise<Webhook> {
      return toWebhook(await found(db, projectId, webhookId));
    },

    /** Deactivating ends the pending deliveries as failed: a receiver switched off is not sent a backlog later. */
    async update(credential: WriteCredential, projectId: string, webhookId: string, body: UpdateWebhookBody): Promise<Webhook> {
      const url = body.url === undefined ? undefined : checkedUrl(body.url);
      return inTransaction(db, async (trx) => {
        const { project, actor } = await manageable(trx, credential, projectId);
        const webhook = await found(trx, project.id, webhookId);
        const before = {
          url: webhook.url,
          events: JSON.parse(webhook.events),
          description: webhook.description,
          format: webhook.format,
          active: webhook.active === 1,
        };
        const after = {
          url,
          events: body.events === undefined ? undefined : uniqueEvents(body.events),
          description: body.description,
          format: body.format,
          active: body.active,
        };
        const changes = changedFields(before, after);
        if (Object.keys(changes).length === 0) return toWebhook(webhook);
        const repository = createWebhooksRepository(trx);
        await repository.update(webhook.id, {
          ...(after.url !== undefined && { url: after.url }),
          ...(after.events !== undefined && { events: JSON.stringify(after.events) }),
          ...(after.description !== undefined && { description: after.description }),
          ...(after.format !== undefined && { format: after.format }),
          ...(after.active !== undefined && { active: after.active ? 1 : 0 }),
          updated_at: now(),
        });
        if (changes.active && after.active === false) await repository.failPending(webhook.id, 'The webhook was deactivated.');
        if (changes.url) changes.url = { old: auditableUrl(webhook.url), new: auditableUrl(after.url!) };
        await audit(trx, actor, project.team_id, 'webhook.updated', webhook.id, changes);
        return toWebhook((await createWebhooksRepository(trx).find(project.id, webhook.id))!);
      });
    },

    async remove(credential: WriteCredential, projectId: string, webhookId: string): Promise<void> {
      await inTransaction(db, async (trx) => {
        const { project, actor } = await manageable(trx, credential, projectId);
        const webhook = await found(trx, project.id, webhookId);
        if (!(await createWebhooksRepository(trx).delete(webhook.id))) throw notFound();
        await audit(trx, actor, project.team_id, 'webhook.deleted', webhook.id, { project_id: project.id, url: auditableUrl(webhook.url) });
      });
    },

    /** A new secret; the old one keeps signing too for 24 hours (E6), so receivers can switch without a gap. */
    async rotateSecret(credential: WriteCredential, projectId: string, webhookId: string): Promise<string> {
      const secret = generateWebhookSecret();
      await inTransaction(db, async (trx) => {
        const { project, actor } = await manageable(trx, credential, projectId);
        const webhook = await found(trx, project.id, webhookId);
        await createWebhooksRepository(trx).update(webhook.id, {
          secret: deps.secrets.stored(webhook.id, secret, 'secret'),
          previous_secret: previousSecret(webhook),
          previous_secret_until: new Date(clock.now().getTime() + ROTATION_OVERLAP_MS).toISOString(),
          updated_at: now(),
        });
        await audit(trx, actor, project.team_id, 'webhook.secret_rotated', webhook.id, { project_id: project.id });
      });
      return secret;
    },

    /**
     * D4 steps 7 and 8 for `ping` and `redeliver`, before their rate limit is counted: the webhook
     * (and the delivery to send again) must exist, 404, and the webhook be active, 409 (D31). Checked
     * again in the write's transaction.
     */
    async assertSendable(projectId: string, webhookId: string, deliveryId?: string): Promise<void> {
      const webhook = await found(db, projectId, webhookId);
      if (
        deliveryId !== undefined &&
        !(UUID_PATTERN.test(deliveryId) && (await webhooks.findDelivery(webhook.id, deliveryId.toLowerCase())))
      )
        throw notFound();
      if (webhook.active !== 1) throw webhookInactive();
    },

    /** E6's `ping`, sent to this webhook whatever it subscribes to; not to an inactive one (D31). */
    async ping(credential: WriteCredential, projectId: string, webhookId: string): Promise<WebhookDelivery> {
      return inTransaction(db, async (trx) => {
        const { project } = await manageable(trx, credential, projectId);
        const webhook = await found(trx, project.id, webhookId);
        if (webhook.active !== 1) throw webhookInactive();
        const id = await recordPing(trx, clock, project.id, webhook.id);
        return toDelivery((await createWebhooksRepository(trx).findDelivery(webhook.id, id))!);
      });
    },

    async listDeliveries(projectId: string, webhookId: string, page: number, path: string) {
      const webhook = await found(db, projectId, webhookId);
      const total = await webhooks.countDeliveries(webhook.id);
      const offset = pageOffset(page);
      const rows = offset >= total ? [] : await webhooks.listDeliveries(webhook.id, { limit: PAGE_SIZE, offset });
      return { data: rows.map(toDelivery), ...paginationEnvelope({ path, page, total, count: rows.length }) };
    },

    /**
     * A new delivery of the same event with the same body, due now, through the whole retry
     * schedule again. It has its own id: it is the user asking for the event to be handled again,
     * which a receiver dropping repeated ids would otherwise ignore.
     */
    async redeliver(credential: WriteCredential, projectId: string, webhookId: string, deliveryId: string): Promise<WebhookDelivery> {
      return inTransaction(db, async (trx) => {
        const { project } = await manageable(trx, credential, projectId);
        const webhook = await found(trx, project.id, webhookId);
        if (!UUID_PATTERN.test(deliveryId)) throw notFound();
        const repository = createWebhooksRepository(trx);
        const original = await repository.findDelivery(webhook.id, deliveryId.toLowerCase());
        if (!original) throw notFound();
        if (webhook.active !== 1) throw webhookInactive();
        const row = pendingDelivery(webhook.id, original.event, original.payload, clock.now());
        await repository.insertDelivery(row);
        return toDelivery(row);
      });
    },
  };
}

export type WebhooksService = ReturnType<typeof createWebhooksService>;

/**
 * A webhook URL as the audit log keeps it: its origin only. Receivers often carry their own secret
 * in the path or query (chat services' incoming-webhook URLs do), and E5's details never hold a
 * secret; the full URL stays readable through the API by those who may manage the webhook.
 */
function auditableUrl(url: string): string {
  const parsed = new URL(url);
  return parsed.pathname === '/' && parsed.search === '' ? parsed.origin : `${parsed.origin}/…`;
}

function uniqueEvents(events: readonly WebhookEvent[]): WebhookEvent[] {
  return [...new Set(events)];
}

function toWebhook(row: WebhookWithLastDelivery): Webhook {
  return {
    id: row.id,
    url: row.url,
    events: JSON.parse(row.events) as WebhookEvent[],
    description: row.description,
    format: storedFormat(row.format),
    active: row.active === 1,
    created_at: row.created_at,
    last_delivery:
      row.last_status === null ? null : { status: row.last_status, response_status: row.last_response_status, at: row.last_at! },
  };
}

export function toDelivery(row: DeliveryRow): WebhookDelivery {
  return {
    id: row.id,
    event: row.event as WebhookEvent,
    status: row.status,
    attempts: row.attempts,
    response_status: row.response_status,
    error: row.error,
    next_attempt_at: row.next_attempt_at,
    created_at: row.created_at,
    delivered_at: row.delivered_at,
  };
}
