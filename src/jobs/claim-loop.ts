import type { FastifyBaseLogger } from 'fastify';
import { type FairShareBounds, fairShareBounds, InFlightShares, type Shared } from './fair-share.js';

/**
 * The loop of an outbox worker (E6's webhook deliveries, and the outbox of calls to providers):
 * claim what is due up to the instance's concurrency, start an attempt for each without waiting
 * for the others, and look for more as soon as a slot frees; poll when idle. `runOnce` is one
 * round that waits for its attempts (tests drive it with a fake clock); `start` polls until
 * `stop`, which waits for the attempts in flight (D39). What is claimed, how an attempt is made and
 * recorded, belong to the caller: this file knows no table.
 */

/** How often an idle worker looks for due work. */
export const POLL_MS = 1_000;

/** A piece of work taken for one attempt: its id, and whom it counts against (D31). */
export interface ClaimedWork extends Shared {
  id: string;
}

export interface ClaimLoopOptions<W extends ClaimedWork> {
  /** For log lines: `webhook delivery`, `outbox`. */
  name: string;
  logger: FastifyBaseLogger;
  /** Attempts in flight on this instance at most. */
  concurrency: number;
  /** D31's bounds per owner and target; from the concurrency by default. */
  shares?: FairShareBounds;
  pollMs?: number;
  /** How long a stop waits for the attempts in flight unless told. */
  stopGraceMs: number;
  /** Claims up to `limit` due pieces of work within `shares` (what is in flight here). */
  claim(limit: number, shares: InFlightShares): Promise<W[]>;
  /** Makes one attempt and records its outcome; never throws (a throw is logged as a bug). */
  attempt(work: W): Promise<void>;
}

export interface ClaimLoop {
  /** One round, waiting for its attempts: how many it attempted. */
  runOnce(): Promise<number>;
  start(): void;
  /**
   * D39: stops claiming at once, then waits until every attempt in flight has ended, at most
   * `graceMs`. An attempt still going then is abandoned (`abandoned()` says so to the attempt,
   * which then leaves its claim to expire: another instance makes it again).
   */
  stop(graceMs?: number): Promise<void>;
  /** Whether a stop's grace ran out with this attempt's kind still going. */
  abandoned(): boolean;
}

export function createClaimLoop<W extends ClaimedWork>(options: ClaimLoopOptions<W>): ClaimLoop {
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

  /** Claims what is due within the bounds (the concurrency, D31's shares) and starts each attempt. */
  async function claimAndStart(): Promise<W[]> {
    const free = options.concurrency - inFlight.size;
    if (free <= 0) return [];
    const claimed = await options.claim(free, shares);
    for (const work of claimed) track(work);
    return claimed;
  }

  /** Starts an attempt; when it ends its slot is free, and the worker looks for more at once. */
  function track(work: W): void {
    const share = { owner: work.owner, target: work.target };
    const attempt = options
      .attempt(work)
      .catch((error: unknown) => options.logger.error({ err: error, id: work.id }, `${options.name} attempt failed unexpectedly`))
      .finally(() => {
        inFlight.delete(work.id);
        shares.remove(share);
        poll();
      });
    inFlight.set(work.id, attempt);
    shares.add(share);
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
          options.logger.info(`${options.name} rounds work again`);
        }
        return started.length;
      },
      (error: unknown) => {
        // D38: a database outage fails a round every second; its start and its end are the news.
        if (!roundsFailing) {
          roundsFailing = true;
          options.logger.warn({ err: error }, `${options.name} round failed; trying again every second (logged once until a round works)`);
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

  return {
    async runOnce() {
      const started = await claimAndStart();
      await Promise.allSettled(started.map((work) => inFlight.get(work.id)));
      return started.length;
    },

    start() {
      if (!stopped) return;
      stopped = false;
      abandoned = false;
      schedulePoll(0);
    },

    async stop(graceMs = options.stopGraceMs) {
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
          { attempts: [...inFlight.keys()] },
          `shutdown deadline reached with ${options.name} attempts in flight; they are made again once their claims expire`,
        );
      }
    },

    abandoned: () => abandoned,
  };
}
