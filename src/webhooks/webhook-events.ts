import { v7 as uuidv7 } from 'uuid';
import type { Clock } from '../clock.js';
import type { Db } from '../db/database.js';

/** E6: the events a webhook may subscribe to (`events` is a non-empty subset of these). */
export const WEBHOOK_EVENTS = [
  'report.created',
  'report.gate_failed',
  'run.failed',
  'project.token_regenerated',
  'project.archived',
  'ping',
] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

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
 * The outbox (E6): records each of `events` for every active webhook of the project subscribed to it, as
 * deliveries due now, with the transaction of the change that causes it, so the event exists
 * exactly when the change does and survives any crash after the commit. Returns the deliveries'
 * ids (the `webhook-id` of their requests).
 */
export async function recordEvent(
  trx: Db,
  clock: Clock,
  projectId: string,
  events: WebhookEvent | readonly WebhookEvent[],
  data: Record<string, unknown>,
  only?: { webhookId: string },
): Promise<string[]> {
  const names = typeof events === 'string' ? [events] : events;
  if (names.length === 0) return [];
  const hooks = await trx
    .selectFrom('webhooks')
    .select(['id', 'events'])
    .where('project_id', '=', projectId)
    .$if(only !== undefined, (query) => query.where('id', '=', only!.webhookId))
    .$if(only === undefined, (query) => query.where('active', '=', 1))
    .execute();
  // A ping goes to the webhook it is asked for, whatever it subscribes to.
  const wanted = names.flatMap((event) =>
    (only === undefined ? hooks.filter((hook) => (JSON.parse(hook.events) as string[]).includes(event)) : hooks).map((hook) => ({
      hook,
      event,
    })),
  );
  if (wanted.length === 0) return [];
  // The project as it is in this transaction (a rename committed before is seen).
  const project = await trx.selectFrom('projects').select(['id', 'name']).where('id', '=', projectId).executeTakeFirstOrThrow();
  const now = clock.now();
  const content = { project: { id: project.id, name: project.name } satisfies EventProject, ...data };
  const rows = wanted.map(({ hook, event }) => ({
    id: uuidv7(),
    webhook_id: hook.id,
    event,
    payload: eventPayload(event, now, content),
    status: 'pending' as const,
    attempts: 0,
    response_status: null,
    error: null,
    next_attempt_at: now.toISOString(),
    claimed_until: null,
    created_at: now.toISOString(),
    delivered_at: null,
  }));
  await trx.insertInto('webhook_deliveries').values(rows).execute();
  return rows.map((row) => row.id);
}
