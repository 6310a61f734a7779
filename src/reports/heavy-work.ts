import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Piscina } from 'piscina';
import type { Config } from '../config.js';
import { WorkQueueFull } from '../http/api-error.js';
import { buildDetailBody, type DetailSource } from './detail-body.js';
import { processUploadBytes, type UploadOutcome } from './upload-processing.js';

/**
 * D28: the work whose cost grows with a report (parsing and preparing an upload, building a report's
 * answer) runs on a pool of worker threads (piscina), so that one user's 10 MiB report never holds
 * the event loop every other request needs. Small inputs stay on the event loop, where they cost less
 * than a thread's round trip. The pool is bounded in threads and in waiting tasks: when it is full,
 * the request is answered 503 (`workBusy`, api-error.ts) rather than queued without end.
 */
export interface HeavyWork {
  processUpload(body: Buffer): Promise<UploadOutcome>;
  buildDetailBody(source: DetailSource): Promise<Buffer | null>;
  close(): Promise<void>;
}

export function createHeavyWork(config: Pick<Config, 'workerThreads' | 'workerQueueMax' | 'workerInlineMaxBytes'>): HeavyWork {
  let pool: Piscina | null = null;
  // Threads are started at the first heavy task, not with the app: most apps (and tests) never need one.
  const poolNow = () =>
    (pool ??= new Piscina({
      filename: workerFile(),
      minThreads: 0,
      maxThreads: config.workerThreads,
      maxQueue: config.workerQueueMax,
      // A thread that waited this long for work ends; the next heavy task starts one again.
      idleTimeout: 60_000,
      ...(process.env.WORKER_HEAP_MB && { resourceLimits: { maxOldGenerationSizeMb: Number(process.env.WORKER_HEAP_MB) } }),
    }));
  const onThread = config.workerThreads > 0;
  const inline = (size: number) => !onThread || size < config.workerInlineMaxBytes;

  async function run<T>(name: string, input: unknown, transferList?: ArrayBuffer[]): Promise<T> {
    const threads = poolNow();
    if (threads.queueSize >= config.workerQueueMax) throw new WorkQueueFull();
    try {
      return (await threads.run(input, { name, ...(transferList && { transferList }) })) as T;
    } catch (error) {
      // Another task took the last place between the check and the run.
      if (error instanceof Error && error.message === 'Task queue is at limit') throw new WorkQueueFull();
      throw error;
    }
  }

  return {
    async processUpload(body) {
      if (inline(body.byteLength)) return processUploadBytes(body);
      // Moved rather than copied when the body has its memory to itself (large bodies always do).
      const owned = body.byteOffset === 0 && body.byteLength === body.buffer.byteLength;
      const bytes = owned ? body : Buffer.from(body);
      return run<UploadOutcome>('processUploadBytes', bytes, [bytes.buffer as ArrayBuffer]);
    },
    async buildDetailBody(source) {
      // The answer grows with the results' text, which Brotli at quality 1 keeps in 5 to 15 times
      // fewer bytes (stored-results.ts): estimated on the safe side.
      const textBytes = source.resultsBr === null ? source.row.results.length : source.resultsBr.byteLength * 20;
      if (inline(textBytes)) return buildDetailBody(source);
      const body = await run<Uint8Array | null>('buildDetailBody', source);
      return body === null ? null : Buffer.from(body.buffer, body.byteOffset, body.byteLength);
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
  const here = new URL('./heavy-work.worker.js', import.meta.url);
  if (existsSync(fileURLToPath(here))) return here.href;
  return new URL(here.href.replace(/\/src\/reports\/heavy-work\.worker\.js$/, '/dist/reports/heavy-work.worker.js')).href;
}
