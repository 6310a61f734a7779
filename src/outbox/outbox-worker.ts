import type { FastifyBaseLogger } from 'fastify';
import type { Clock } from '../clock.js';
import type { Db } from '../db/database.js';
import { createClaimLoop } from '../jobs/claim-loop.js';
import type { FairShareBounds } from '../jobs/fair-share.js';
import { nextAttemptAt } from '../jobs/retry-schedule.js';
import { createOutboxQueue, type ClaimedMessage } from './outbox-queue.js';

/**
 * Makes the calls the outbox holds (outbox-queue.ts), each by the handler of its kind, which the
 * feature that wrote it gives (features.ts): succeeded when the handler says so; else due again on
 * E6's schedule (no sooner than a Retry-After) when the failure may pass (the network, a 5xx, a
 * 429), or failed at once when it will not (a 4xx, an address the network rules refuse), and failed
 * after the schedule's last attempt. An instance claims only the kinds it has a handler for, so an
 * older instance beside a newer one leaves the newer kinds to it.
 */

/** What a handler says of one attempt. */
export type CallOutcome =
  | { ok: true; status: number | null }
  | {
      ok: false;
      /** The receiver's status, when it answered. */
      status: number | null;
      /** Why, in words the project's people may read: never a credential. */
      error: string;
      /** Whether trying again later may work. */
      retry: boolean;
      /** The receiver's Retry-After: the next attempt is no sooner. */
      retryAfterSeconds?: number;
    };

/** A claimed message as a handler sees it: the payload parsed. */
export interface OutboxCall {
  id: string;
  kind: string;
  project_id: string | null;
  payload: unknown;
  /** This attempt's number, from 1. */
  attempt: number;
}

export type OutboxHandler = (call: OutboxCall) => Promise<CallOutcome>;

export type OutboxAttemptOutcome = 'succeeded' | 'retrying' | 'failed';

/**
 * How long a claimed attempt is held: past a provider call's 15 s deadline with room to record the
 * outcome (a handler may make two calls); an attempt whose instance died is made again after it.
 */
export const OUTBOX_CLAIM_MS = 90_000;
/** D39: how long a stopping worker waits for its attempts in flight unless told. */
const STOP_GRACE_MS = 31_000;

export interface OutboxWorkerOptions {
  db: Db;
  clock: Clock;
  logger: FastifyBaseLogger;
  /** The handler of each kind this instance makes calls for. */
  handlers: Readonly<Record<string, OutboxHandler>>;
  /** Attempts in flight on this instance at most. */
  concurrency: number;
  shares?: FairShareBounds;
  schedule?: readonly number[];
  /** Math.random by default; tests make the jitter predictable. */
  random?: () => number;
  claimMs?: number;
  pollMs?: number;
  /** Called with each attempt's kind and outcome (the /metrics counter). */
  onAttempt?: (kind: string, outcome: OutboxAttemptOutcome) => void;
}

export function createOutboxWorker(options: OutboxWorkerOptions) {
  const queue = createOutboxQueue(options.db);
  const kinds = Object.keys(options.handlers);
  const loop = createClaimLoop<ClaimedMessage>({
    name: 'outbox',
    logger: options.logger,
    concurrency: options.concurrency,
    ...(options.shares && { shares: options.shares }),
    ...(options.pollMs !== undefined && { pollMs: options.pollMs }),
    stopGraceMs: STOP_GRACE_MS,
    claim: async (limit, shares) => {
      const now = options.clock.now();
      const until = new Date(now.getTime() + (options.claimMs ?? OUTBOX_CLAIM_MS)).toISOString();
      return queue.claimDue(now.toISOString(), until, limit, shares, kinds);
    },
    attempt: attemptOne,
  });

  async function attemptOne(message: ClaimedMessage): Promise<void> {
    let outcome: CallOutcome;
    try {
      outcome = await options.handlers[message.kind]!({
        id: message.id,
        kind: message.kind,
        project_id: message.project_id,
        payload: JSON.parse(message.payload) as unknown,
        attempt: message.attempts,
      });
    } catch (error) {
      // Handlers answer failures as outcomes; a throw is a bug (or the database failing under it):
      // logged, and tried again on the schedule.
      options.logger.error({ err: error, message: message.id, kind: message.kind }, 'outbox handler failed unexpectedly');
      outcome = { ok: false, status: null, error: 'internal error; it will be tried again', retry: true };
    }
    const at = options.clock.now();
    const retryAt =
      outcome.ok || !outcome.retry
        ? null
        : nextAttemptAt(message.created_at, message.attempts, at, {
            ...options,
            ...(outcome.retryAfterSeconds !== undefined && { notBefore: new Date(at.getTime() + outcome.retryAfterSeconds * 1000) }),
          });
    const status = outcome.ok ? 'succeeded' : retryAt === null ? 'failed' : 'pending';
    // D39: past the shutdown's deadline a failure is most likely the client being closed under the
    // attempt: it is not recorded, and the claim's expiry has it made again.
    if (loop.abandoned() && !outcome.ok) return;
    const recorded = await queue
      .settle(message, {
        status,
        response_status: outcome.status,
        error: outcome.ok ? null : outcome.error,
        next_attempt_at: retryAt,
        delivered_at: outcome.ok ? at.toISOString() : null,
      })
      .catch((settleError: unknown) => {
        options.logger.warn({ err: settleError, message: message.id }, 'could not record an outbox attempt; it will be made again');
        return false;
      });
    if (!recorded) return;
    options.onAttempt?.(message.kind, outcome.ok ? 'succeeded' : status === 'failed' ? 'failed' : 'retrying');
    if (!outcome.ok)
      options.logger.info(
        { message: message.id, kind: message.kind, attempt: message.attempts, error: outcome.error, status },
        'outbox attempt failed',
      );
  }

  return {
    /** One round, waiting for its attempts: how many messages it attempted. */
    runOnce: loop.runOnce,
    start: loop.start,
    stop: loop.stop,
  };
}

export type OutboxWorker = ReturnType<typeof createOutboxWorker>;

declare module 'fastify' {
  interface FastifyInstance {
    /** The outbox's worker, built by app.ts with every feature's handlers; `serve` starts and stops it. */
    outboxWorker: OutboxWorker;
  }
}
