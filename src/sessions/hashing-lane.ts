import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Piscina } from 'piscina';
import { hashingBusy } from '../wire/api-error.js';
import { type DeriveKey, type DeriveRequest, type PasswordHasher, passwordHasher } from './password-hash.js';

/** D30: at most this many passwords are hashed at once per instance (E7's scrypt, 32 MiB each). */
export const HASHING_THREADS = 2;
/** D30: at most this many wait for one of them; beyond, 503 with Retry-After (`hashingBusy`). */
export const HASHING_QUEUE_MAX = 32;

/** The service's password hashing (D30), and what it is doing now. */
export interface HashingLane extends PasswordHasher {
  /** Derivations running now (at most `threads`). */
  readonly running: number;
  /** Derivations waiting for a thread (at most `queueMax`). */
  readonly waiting: number;
  close(): Promise<void>;
}

/**
 * D30: password hashing has its own bounded lane. A sign-in costs a 32 MiB scrypt derivation; on
 * libuv's pool (4 threads, shared with file reads, DNS and zlib) 40 sign-ins at once held every
 * thread, and a dashboard asset or a gzip upload waited seconds behind them. Here derivations run
 * on threads of their own, at most `threads` at once, first come first served, with at most
 * `queueMax` waiting; any more is refused at once (503) rather than queued without end. Two
 * threads leave the event loop a core of its own on a 2-core machine. `derive` replaces the threads (a test holds derivations to fill the lane).
 */
export function createHashingLane(options: { threads?: number; queueMax?: number; derive?: DeriveKey } = {}): HashingLane {
  const threads = options.threads ?? HASHING_THREADS;
  const queueMax = options.queueMax ?? HASHING_QUEUE_MAX;
  let pool: Piscina | null = null;
  // Threads start at the first sign-in, not with the app: most apps (and tests) never hash.
  const onThreads: DeriveKey = async (request: DeriveRequest) => {
    pool ??= new Piscina({
      filename: workerFile(),
      minThreads: 0,
      maxThreads: threads,
      idleTimeout: 60_000,
      // At the event loop's priority, unlike the heavy-work pool's threads: a derivation is short,
      // the event loop that sleeps between requests still wins each wake-up, and a lowered thread
      // waited many seconds for its 100 ms of CPU on a machine loaded by other processes.
      // scrypt's 32 MiB is outside V8's heap: the thread's own heap stays small.
      resourceLimits: { maxYoungGenerationSizeMb: 4, maxOldGenerationSizeMb: 32 },
    });
    return (await pool.run(request, { name: 'derive' })) as Uint8Array;
  };
  const derive = options.derive ?? onThreads;

  let running = 0;
  const waiting: (() => void)[] = [];

  async function inLane(request: DeriveRequest): Promise<Uint8Array> {
    if (running >= threads) {
      if (waiting.length >= queueMax) throw hashingBusy();
      await new Promise<void>((resolve) => waiting.push(resolve));
    } else {
      running += 1;
    }
    try {
      return await derive(request);
    } finally {
      // The place passes to the first waiting, without being counted free in between.
      const next = waiting.shift();
      if (next) next();
      else running -= 1;
    }
  }

  return {
    ...passwordHasher(inLane),
    get running() {
      return running;
    },
    get waiting() {
      return waiting.length;
    },
    async close() {
      await pool?.destroy();
      pool = null;
    },
  };
}

/**
 * The worker's module, compiled: next to this one in dist/; when this one runs from src/ (the tests,
 * through Vitest), the same path under dist/, which `npm test` builds first.
 */
function workerFile(): string {
  const here = new URL('./hashing-lane.worker.js', import.meta.url);
  if (existsSync(fileURLToPath(here))) return here.href;
  return new URL(here.href.replace(/\/src\/sessions\/hashing-lane\.worker\.js$/, '/dist/sessions/hashing-lane.worker.js')).href;
}
