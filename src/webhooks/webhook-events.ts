import { v7 as uuidv7 } from 'uuid';
import type { Clock } from '../clock.js';
import type { Selectable } from 'kysely';
import type { Db } from '../db/database.js';
import type { WebhookDeliveriesTable } from '../db/schema.js';
import type { WebhookEvent } from './webhook-event-names.js';

/** E6: how an event names its project in `data.project`. */
export interface EventProject {
  id: string;
  name: string;
}

/** E6: the request body, `{"type", "timestamp", "data"}`, fixed when the event happens. */
export function eventPayload(event: WebhookEvent, at: Date, data: Record<string, unknown>): string {
  return JSON.stringify({ type: event, timestamp: at.toISOString(), data });
}

/**
 * The outbox (E6): records each of `events` for every active webhook of the project subscribed to
 * it, as deliveries due now, with the transaction of the change that causes it, so the event exists
 * exactly when the change does and survives any crash after the commit.
 */
export async function recordEvent(
  trx: Db,
  clock: Clock,
  projectId: string,
  events: WebhookEvent | readonly WebhookEvent[],
  data: Record<string, unknown>,
): Promise<void> {
  const names = typeof events === 'string' ? [events] : events;
  const hooks = await trx
    .selectFrom('webhooks')
    .select(['id', 'events'])
    .where('project_id', '=', projectId)
    .where('active', '=', 1)
    .execute();
  const targets = hooks.flatMap((hook) => {
    const subscribed = JSON.parse(hook.events) as string[];
    return names.filter((event) => subscribed.includes(event)).map((event) => ({ webhookId: hook.id, event }));
  });
  await insertDeliveries(trx, clock, projectId, targets, data);
}

/**
 * `recordEvent` for many events of one change at once (a bulk change sends one per thing it
 * changed), each with its own `data`: the project's webhooks are read once, and the deliveries are
 * inserted in a few statements.
 */
export async function recordEvents(
  trx: Db,
  clock: Clock,
  projectId: string,
  events: readonly { event: WebhookEvent; data: Record<string, unknown> }[],
): Promise<void> {
  if (events.length === 0) return;
  const hooks = await trx
    .selectFrom('webhooks')
    .select(['id', 'events'])
    .where('project_id', '=', projectId)
    .where('active', '=', 1)
    .execute();
  const subscribed = hooks.map((hook) => ({ id: hook.id, events: new Set(JSON.parse(hook.events) as string[]) }));
  if (!events.some(({ event }) => subscribed.some((hook) => hook.events.has(event)))) return;
  const project = await trx.selectFrom('projects').select(['id', 'name']).where('id', '=', projectId).executeTakeFirstOrThrow();
  const now = clock.now();
  const rows = events.flatMap(({ event, data }) => {
    const targets = subscribed.filter((hook) => hook.events.has(event));
    if (targets.length === 0) return [];
    const payload = eventPayload(event, now, { project: { id: project.id, name: project.name } satisfies EventProject, ...data });
    return targets.map((hook) => pendingDelivery(hook.id, event, payload, now));
  });
  for (let start = 0; start < rows.length; start += DELIVERY_INSERT_CHUNK) {
    await trx
      .insertInto('webhook_deliveries')
      .values(rows.slice(start, start + DELIVERY_INSERT_CHUNK))
      .execute();
  }
}

/** Deliveries per insert: 12 columns each, well under SQLite's and PostgreSQL's bounds on a statement's parameters. */
const DELIVERY_INSERT_CHUNK = 500;

/** E6's `ping`, to the webhook it is asked for, whatever it subscribes to and active or not: the delivery's id. */
export async function recordPing(trx: Db, clock: Clock, projectId: string, webhookId: string): Promise<string> {
  const [id] = await insertDeliveries(trx, clock, projectId, [{ webhookId, event: 'ping' }], { webhook: { id: webhookId } });
  return id!;
}

/** A delivery as it is created: pending, never attempted, due at once. */
export function pendingDelivery(webhookId: string, event: string, payload: string, at: Date): Selectable<WebhookDeliveriesTable> {
  return {
    id: uuidv7(),
    webhook_id: webhookId,
    event,
    payload,
    status: 'pending',
    attempts: 0,
    response_status: null,
    error: null,
    next_attempt_at: at.toISOString(),
    claimed_until: null,
    created_at: at.toISOString(),
    delivered_at: null,
  };
}

/** One delivery per target, each event's body built once; their ids (the requests' `webhook-id`). */
async function insertDeliveries(
  trx: Db,
  clock: Clock,
  projectId: string,
  targets: readonly { webhookId: string; event: WebhookEvent }[],
  data: Record<string, unknown>,
): Promise<string[]> {
  if (targets.length === 0) return [];
  // The project as it is in this transaction (a rename committed before is seen).
  const project = await trx.selectFrom('projects').select(['id', 'name']).where('id', '=', projectId).executeTakeFirstOrThrow();
  const now = clock.now();
  const content = { project: { id: project.id, name: project.name } satisfies EventProject, ...data };
  const payloads = new Map<WebhookEvent, string>();
  const payloadOf = (event: WebhookEvent) => payloads.get(event) ?? payloads.set(event, eventPayload(event, now, content)).get(event)!;
  const rows = targets.map(({ webhookId, event }) => pendingDelivery(webhookId, event, payloadOf(event), now));
  await trx.insertInto('webhook_deliveries').values(rows).execute();
  return rows.map((row) => row.id);
}
