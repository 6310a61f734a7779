import type { FastifyBaseLogger } from 'fastify';
import type { Clock } from '../clock.js';
import type { Db } from '../db/database.js';
import { createClaimLoop } from '../jobs/claim-loop.js';
import type { FairShareBounds } from '../jobs/fair-share.js';
import { nextAttemptAt } from '../jobs/retry-schedule.js';
import { createDeliveryQueue, type ClaimedDelivery } from './delivery-queue.js';
import { DEFAULT_TIMEOUT_MS, type SendOutcome, type WebhookSender } from './outbound-http.js';
import { type SecretBox, SecretBoxError } from '../secrets/secret-box.js';
import { webhookSignature } from './signature.js';
import { webhookSecrets } from './webhook-secrets.js';
import { deliveryBody } from './chat/render.js';
import { storedFormat } from './webhook-formats.js';

/** E6's schedule (jobs/retry-schedule.ts), named here too for the webhook tests. */
export { RETRY_SCHEDULE_MS } from '../jobs/retry-schedule.js';
/**
 * How long a claimed attempt is held: past the sender's 10 s deadline with room to record the
 * outcome; an attempt whose instance died is made again after it.
 */
export const CLAIM_MS = 60_000;
/**
 * D39: how long a stopping worker waits for its attempts in flight unless told (serve passes what
 * is left of SHUTDOWN_TIMEOUT_MS): an attempt that has just started may run to the sender's own
 * 10 s deadline, and its outcome must still be recorded.
 */
const STOP_GRACE_MS = DEFAULT_TIMEOUT_MS + 1_000;

export type DeliveryOutcome = 'succeeded' | 'retrying' | 'failed';

export interface DeliveryWorkerOptions {
  db: Db;
  clock: Clock;
  sender: WebhookSender;
  /** E9.2: opens the webhooks' sealed secrets to sign with (the app's box: an in-memory SQLite key lives in it only). */
  secrets: SecretBox;
  logger: FastifyBaseLogger;
  /** Attempts in flight on this instance at most (WEBHOOK_CONCURRENCY). */
  concurrency: number;
  /**
   * D31: attempts in flight of one team (`perOwner`) and to one webhook (`perTarget`) on this
   * instance at most, so that hanging receivers hold a bounded share; from the concurrency by default.
   */
  shares?: FairShareBounds;
  schedule?: readonly number[];
  /** Math.random by default; tests make the jitter predictable. */
  random?: () => number;
  claimMs?: number;
  pollMs?: number;
  /** PUBLIC_URL: where the chat formats' dashboard links start (E11.5); none without it. */
  publicUrl?: string | undefined;
  /** Called with each attempt's event and outcome (the /metrics counter). */
  onAttempt?: (event: string, outcome: DeliveryOutcome) => void;
}

/**
 * Sends what the outbox holds (delivery-queue.ts): claims due deliveries up to its concurrency,
 * sends each signed (E6), and records the outcome: succeeded on a 2xx, else due again on the
 * schedule, or failed after its last attempt. `runOnce` is one round (tests drive it with a fake
 * clock); `start` polls until `stop`, which waits for the attempts in flight.
 */
export function createDeliveryWorker(options: DeliveryWorkerOptions) {
  const queue = createDeliveryQueue(options.db);
  const secrets = webhookSecrets(options.secrets);
  const loop = createClaimLoop<ClaimedDelivery & { target: string }>({
    name: 'webhook delivery',
    logger: options.logger,
    concurrency: options.concurrency,
    ...(options.shares && { shares: options.shares }),
    ...(options.pollMs !== undefined && { pollMs: options.pollMs }),
    stopGraceMs: STOP_GRACE_MS,
    claim: async (limit, shares) => {
      const now = options.clock.now();
      const claimed = await queue.claimDue(
        now.toISOString(),
        new Date(now.getTime() + (options.claimMs ?? CLAIM_MS)).toISOString(),
        limit,
        shares,
      );
      return claimed.map((delivery) => ({ ...delivery, target: delivery.webhook_id }));
    },
    attempt: attemptOne,
  });

  async function attemptOne(delivery: ClaimedDelivery): Promise<void> {
    const sentAt = options.clock.now();
    let outcome: SendOutcome;
    try {
      // E11.5: the body in the webhook's format, rendered at each attempt from E6's body as stored;
      // the signature is over exactly the bytes sent.
      const body = deliveryBody(storedFormat(delivery.format), delivery.payload, options.publicUrl);
      outcome = await options.sender.send(delivery.url, { headers: headersFor(delivery, sentAt, body), body });
    } catch (error) {
      if (error instanceof SecretBoxError) {
        // E9.2: its secret opens under neither SECRET_KEY nor SECRET_KEY_PREVIOUS. Nothing is sent
        // unsigned; retried on the schedule, so that restarting with the right key lets it through.
        outcome = { status: null, error: 'the webhook secret cannot be opened with the configured keys; nothing was sent' };
        options.logger.warn({ delivery: delivery.id, webhook: delivery.webhook_id, reason: error.reason }, error.message);
      } else {
        // The sender answers problems as outcomes; anything else is a bug, recorded as the attempt's error.
        outcome = { status: null, error: `internal error: ${(error as Error).message}` };
      }
    }
    const at = options.clock.now();
    const succeeded = outcome.status !== null && outcome.status >= 200 && outcome.status < 300;
    const error = succeeded ? null : outcome.status === null ? outcome.error : `the receiver answered ${outcome.status}`;
    // D32: an address the policy refuses is refused again at every retry; the delivery fails now.
    const refused = outcome.status === null && outcome.refused !== undefined;
    const retryAt = succeeded || refused ? null : nextAttemptAt(delivery.created_at, delivery.attempts, at, options);
    const status = succeeded ? 'succeeded' : retryAt === null ? 'failed' : 'pending';
    // D39: past the shutdown's deadline a failure is most likely the sender being closed under the
    // attempt, not the receiver's: it is not recorded, and the claim's expiry has it made again.
    if (loop.abandoned() && !succeeded) return;
    const recorded = await queue
      .settle(delivery, {
        status,
        response_status: outcome.status,
        error,
        next_attempt_at: retryAt,
        delivered_at: succeeded ? at.toISOString() : null,
      })
      .catch((settleError: unknown) => {
        // The claim expires and the attempt is made again: at least once, never lost.
        options.logger.warn({ err: settleError, delivery: delivery.id }, 'could not record a webhook attempt; it will be made again');
        return false;
      });
    if (!recorded) return;
    options.onAttempt?.(delivery.event, succeeded ? 'succeeded' : status === 'failed' ? 'failed' : 'retrying');
    if (!succeeded)
      options.logger.info(
        {
          delivery: delivery.id,
          webhook: delivery.webhook_id,
          attempt: delivery.attempts,
          error,
          status,
          // The address refused, for the operator only: the delivery's error never names it (D32).
          ...(outcome.status === null && outcome.refused && { refused: outcome.refused.detail }),
        },
        'webhook attempt failed',
      );
  }

  /** E6's request headers; during a rotation's first 24 hours both secrets sign (opened here: E9.2). */
  function headersFor(delivery: ClaimedDelivery, at: Date, body: string): Record<string, string> {
    const timestamp = Math.floor(at.getTime() / 1000);
    const signing = [secrets.plain(delivery.webhook_id, delivery.secret, 'secret')];
    if (delivery.previous_secret !== null && delivery.previous_secret_until !== null && delivery.previous_secret_until > at.toISOString())
      signing.push(secrets.plain(delivery.webhook_id, delivery.previous_secret, 'previous'));
    return {
      'content-type': 'application/json',
      'user-agent': 'Scoreboard-Webhooks/1',
      'webhook-id': delivery.id,
      'webhook-timestamp': String(timestamp),
      'webhook-signature': webhookSignature(signing, delivery.id, timestamp, body),
      'scoreboard-event': delivery.event,
    };
  }

  return {
    /** One round, waiting for its attempts: how many deliveries it attempted. */
    runOnce: loop.runOnce,
    start: loop.start,
    /**
     * D39: stops claiming at once, then waits until every attempt in flight has ended and its
     * outcome is recorded, at most `graceMs`. An attempt still going then is left to its claim
     * (recorded only should its receiver still answer 2xx before the database closes): once the
     * claim expires another instance makes it again, and the receiver may see that id twice.
     */
    stop: loop.stop,
  };
}

export type DeliveryWorker = ReturnType<typeof createDeliveryWorker>;
