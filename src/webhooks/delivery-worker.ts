import type { FastifyBaseLogger } from 'fastify';
import type { Clock } from '../clock.js';
import type { Db } from '../db/database.js';
import { type FairShareBounds, fairShareBounds, InFlightShares } from '../jobs/fair-share.js';
import { createDeliveryQueue, type ClaimedDelivery } from './delivery-queue.js';
import { DEFAULT_TIMEOUT_MS, type SendOutcome, type WebhookSender } from './outbound-http.js';
import { type SecretBox, SecretBoxError } from '../secrets/secret-box.js';
import { webhookSignature } from './signature.js';
import { webhookSecrets } from './webhook-secrets.js';

/**
 * E6: when the attempts after the first are due, counted from the first: about 1 min, 5 min,
 * 30 min, 2 h, 8 h and 24 h. After the last, the delivery is failed.
 */
export const RETRY_SCHEDULE_MS = [60_000, 300_000, 1_800_000, 7_200_000, 28_800_000, 86_400_000] as const;
/** Each retry lands within this share of its time either way, so receivers that failed together are not retried together. */
const JITTER = 0.1;
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
/** How often an idle worker looks for due deliveries. */
export const POLL_MS = 1_000;

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
  const schedule = options.schedule ?? RETRY_SCHEDULE_MS;
  const random = options.random ?? Math.random;
  const inFlight = new Map<string, Promise<void>>();
  const shares = new InFlightShares(options.shares ?? fairShareBounds(options.concurrency));
  let timer: NodeJS.Timeout | undefined;
  let stopped = true;
  let polling = false;
  let again = false;
  let round: Promise<number> | undefined;
  /** Whether the last round failed (its failure was logged; the next ones are not until one works). */
  let roundsFailing = false;
  /** Set when a stop's grace ran out: the attempts still going are left to their claims. */
  let abandoned = false;

  /** Claims what is due within the bounds (WEBHOOK_CONCURRENCY, D31's shares) and starts each attempt. */
  async function claimAndStart(): Promise<ClaimedDelivery[]> {
    const free = options.concurrency - inFlight.size;
    if (free <= 0) return [];
    const now = options.clock.now();
    const claimed = await queue.claimDue(
      now.toISOString(),
      new Date(now.getTime() + (options.claimMs ?? CLAIM_MS)).toISOString(),
      free,
      shares,
    );
    for (const delivery of claimed) track(delivery);
    return claimed;
  }

  /** One round, waiting for its attempts. */
  async function claimAndSend(): Promise<number> {
    const started = await claimAndStart();
    await Promise.allSettled(started.map((delivery) => inFlight.get(delivery.id)));
    return started.length;
  }

  async function attemptOne(delivery: ClaimedDelivery): Promise<void> {
    const sentAt = options.clock.now();
    let outcome: SendOutcome;
    try {
      outcome = await options.sender.send(delivery.url, { headers: headersFor(delivery, sentAt), body: delivery.payload });
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
    const retryAt = succeeded || refused ? null : nextAttemptAt(delivery, at);
    const status = succeeded ? 'succeeded' : retryAt === null ? 'failed' : 'pending';
    // D39: past the shutdown's deadline a failure is most likely the sender being closed under the
    // attempt, not the receiver's: it is not recorded, and the claim's expiry has it made again.
    if (abandoned && !succeeded) return;
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

  /** When the next attempt is due, counted from the first (the delivery's creation); null after the last. */
  function nextAttemptAt(delivery: ClaimedDelivery, now: Date): string | null {
    const offset = schedule[delivery.attempts - 1];
    if (offset === undefined) return null;
    const jittered = offset * (1 + (random() * 2 - 1) * JITTER);
    const due = Math.max(new Date(delivery.created_at).getTime() + jittered, now.getTime());
    return new Date(due).toISOString();
  }

  /** E6's request headers; during a rotation's first 24 hours both secrets sign (opened here: E9.2). */
  function headersFor(delivery: ClaimedDelivery, at: Date): Record<string, string> {
    const timestamp = Math.floor(at.getTime() / 1000);
    const signing = [secrets.plain(delivery.webhook_id, delivery.secret, 'secret')];
    if (delivery.previous_secret !== null && delivery.previous_secret_until !== null && delivery.previous_secret_until > at.toISOString())
      signing.push(secrets.plain(delivery.webhook_id, delivery.previous_secret, 'previous'));
    return {
      'content-type': 'application/json',
      'user-agent': 'Scoreboard-Webhooks/1',
      'webhook-id': delivery.id,
      'webhook-timestamp': String(timestamp),
      'webhook-signature': webhookSignature(signing, delivery.id, timestamp, delivery.payload),
      'scoreboard-event': delivery.event,
    };
  }

  function schedulePoll(delayMs: number): void {
    if (stopped) return;
    clearTimeout(timer);
    timer = setTimeout(poll, delayMs);
    timer.unref();
  }

  /**
   * One round without waiting for its attempts, so a slow receiver never holds up the others. A
   * round is never doubled: a wake-up during one (an attempt finished) makes the next start at once.
   */
  function poll(): void {
    if (stopped) return;
    if (polling) {
      again = true;
      return;
    }
    polling = true;
    clearTimeout(timer);
    const free = options.concurrency - inFlight.size;
    round = claimAndStart().then(
      (started) => {
        if (roundsFailing) {
          roundsFailing = false;
          options.logger.info('webhook delivery rounds work again');
        }
        return started.length;
      },
      (error: unknown) => {
        // D38: a database outage fails a round every second; its start and its end are the news.
        if (!roundsFailing) {
          roundsFailing = true;
          options.logger.warn({ err: error }, 'webhook delivery round failed; trying again every second (logged once until a round works)');
        }
        return 0;
      },
    );
    void round.then((count) => {
      polling = false;
      // A full round may have left more due; a slot freed meanwhile may take one.
      const more = again || (count > 0 && count === free);
      again = false;
      schedulePoll(more ? 0 : (options.pollMs ?? POLL_MS));
    });
  }

  /** Starts an attempt; when it ends its slot is free, and the worker looks for more at once. */
  function track(delivery: ClaimedDelivery): void {
    const share = { owner: delivery.owner, target: delivery.webhook_id };
    const attempt = attemptOne(delivery).finally(() => {
      inFlight.delete(delivery.id);
      shares.remove(share);
      poll();
    });
    inFlight.set(delivery.id, attempt);
    shares.add(share);
  }

  return {
    /** One round, waiting for its attempts: how many deliveries it attempted. */
    runOnce: claimAndSend,

    start(): void {
      if (!stopped) return;
      stopped = false;
      abandoned = false;
      schedulePoll(0);
    },

    /**
     * D39: stops claiming at once, then waits until every attempt in flight has ended and its
     * outcome is recorded, at most `graceMs`. An attempt still going then is left to its claim
     * (recorded only should its receiver still answer 2xx before the database closes): once the
     * claim expires another instance makes it again, and the receiver may see that id twice.
     */
    async stop(graceMs = STOP_GRACE_MS): Promise<void> {
      stopped = true;
      clearTimeout(timer);
      let grace: NodeJS.Timeout | undefined;
      const waited = (async () => {
        await round;
        // An attempt that ends frees its slot and wakes the poller, which no longer claims: the
        // map only shrinks now.
        await Promise.allSettled([...inFlight.values()]);
        return true;
      })();
      const finished = await Promise.race([waited, new Promise<false>((resolve) => (grace = setTimeout(() => resolve(false), graceMs)))]);
      clearTimeout(grace);
      if (!finished && inFlight.size > 0) {
        abandoned = true;
        options.logger.warn(
          { deliveries: [...inFlight.keys()] },
          'shutdown deadline reached with webhook attempts in flight; they are made again once their claims expire',
        );
      }
    },
  };
}

export type DeliveryWorker = ReturnType<typeof createDeliveryWorker>;
