import { existsSync } from 'node:fs';
import * as workerThreads from 'node:worker_threads';
import { fileURLToPath } from 'node:url';
import { Piscina } from 'piscina';
import type { Config } from '../../config.js';
import { ApiError, WorkQueueFull } from '../../wire/api-error.js';
import { assembleDetailBody, buildDetailBody, type DetailAssembly, type DetailSource } from '../answer/detail-body.js';
import type { AnalyzerHelp } from '../export/sarif-rules.js';
import { sarifSourcesOf, type SarifSources } from '../export/sarif-sources.js';
import type { ResultsColumns } from '../results/results-encoding.js';
import { suppressedPageOf, type SuppressedItem } from '../results/suppressed-issues.js';
import type { SuppressionType } from '../vocabulary.js';
import { processUploadBytes, type UploadOutcome } from '../upload/process-upload.js';

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
  /** An uploaded report's answer from its template (detail-body.ts). */
  assembleDetailBody(input: DetailAssembly): Promise<Buffer>;
  /** SARIF's help text of each analyzer and the suppressed issues, from a report's stored results (export/sarif-sources.ts). */
  sarifSources(stored: ResultsColumns, analyzerIds: string[]): Promise<SarifSources>;
  /** E8.6: a page of a report's suppressed issues, from its stored results (results/suppressed-issues.ts). */
  suppressedPage(
    stored: ResultsColumns,
    query: { type?: SuppressionType; offset: number; limit: number },
  ): Promise<{ total: number; items: SuppressedItem[] }>;
  close(): Promise<void>;
}

/**
 * The young generation of a heavy-work thread, in MiB. Without a limit V8 sizes it from the
 * machine's memory, and Node 24's V8 makes it several times larger than Node 20's (measured: some
 * 100 MiB more RSS under D28's load).
 */
export const WORKER_YOUNG_HEAP_MIB = 32;

/**
 * The old generation of a heavy-work thread, in MiB (D28's memory bound). Without a cap V8 lets a
 * thread's heap grow to four times what its last collection kept (measured: 350 MiB for a 9 MiB
 * upload that keeps under 100); under a cap of this size it collects at about 1.3 times. The
 * heaviest upload admitted (upload/process-upload.ts's UPLOAD_MAX_VALUES and UPLOAD_MAX_ISSUES) needs
 * some 270 MiB, about half of it. A thread must never reach the cap: one that does may end the
 * whole process (a fatal "heap limit" error as the thread is torn down, seen on Node 20 and 24)
 * rather than only itself (ERR_WORKER_OUT_OF_MEMORY, answered 413 below).
 */
export const WORKER_OLD_HEAP_MIB = 512;

/** 413, with the limit's reason: a body within the size limit that costs more than a report may (upload/process-upload.ts). */
export const tooCostly = () =>
  new ApiError(413, 'Payload Too Large', 'The request body takes more memory to process than a report may use.');

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
      // Below the event loop's priority (Linux, through piscina's optional @napi-rs/nice): when the
      // cores are busy, answering requests comes before preparing large reports.
      niceIncrement: 10,
      resourceLimits: { maxYoungGenerationSizeMb: WORKER_YOUNG_HEAP_MIB, maxOldGenerationSizeMb: WORKER_OLD_HEAP_MIB },
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
      // A thread that ran out of memory is replaced, the request refused.
      if ((error as { code?: string }).code === 'ERR_WORKER_OUT_OF_MEMORY') throw tooCostly();
      throw error;
    }
  }

  return {
    async processUpload(body) {
      if (inline(body.byteLength)) return processUploadBytes(body);
      // Moved rather than copied when the body has its memory to itself (large bodies do).
      return run<UploadOutcome>('processUploadBytes', body, ownedBuffers([body]));
    },
    async buildDetailBody(source) {
      if (inline(estimatedTextBytes(source.results.text, source.results.compressed))) return buildDetailBody(source);
      const body = await run<Uint8Array | null>('buildDetailBody', source);
      return body === null ? null : asBuffer(body);
    },
    async assembleDetailBody(input) {
      const { resultsBytes } = input.template;
      if (inline(resultsBytes.byteLength)) return assembleDetailBody(input);
      // The template is not needed here afterwards: its bytes are moved, not copied.
      return asBuffer(await run<Uint8Array>('assembleDetailBody', input, ownedBuffers([resultsBytes])));
    },
    async sarifSources(stored, analyzerIds) {
      if (inline(estimatedTextBytes(stored.results, stored.results_br))) return sarifSourcesOf(stored, analyzerIds);
      const sources = await run<{ help: [string, AnalyzerHelp][]; suppressed: SuppressedItem[] }>('sarifSourceEntries', {
        stored,
        analyzerIds,
      });
      return { help: new Map(sources.help), suppressed: sources.suppressed };
    },
    async suppressedPage(stored, query) {
      if (inline(estimatedTextBytes(stored.results, stored.results_br))) return suppressedPageOf(stored, query);
      return run<{ total: number; items: SuppressedItem[] }>('suppressedPage', { stored, query });
    },
    async close() {
      await pool?.destroy();
      pool = null;
    },
  };
}

/**
 * The memory of those of `views` that have it to themselves, which may be moved to another thread.
 * A small Buffer is often a slice of a shared pool: moving that would take the pool away.
 */
export function ownedBuffers(views: readonly ArrayBufferView[]): ArrayBuffer[] {
  return views
    .filter(
      (view) =>
        view.byteOffset === 0 &&
        view.byteLength === view.buffer.byteLength &&
        !(view.buffer instanceof SharedArrayBuffer) &&
        !isMarkedAsUntransferable(view.buffer),
    )
    .map((view) => view.buffer as ArrayBuffer);
}

/**
 * Memory Node marks as not movable (its Buffer pool, from Node 21 on); Node 20 cannot say, and its
 * pool slices are excluded by the checks above.
 */
const isMarkedAsUntransferable: (buffer: ArrayBufferLike) => boolean =
  (workerThreads as { isMarkedAsUntransferable?: (buffer: ArrayBufferLike) => boolean }).isMarkedAsUntransferable ?? (() => false);

/** A Buffer that crossed threads arrives as a plain Uint8Array. */
const asBuffer = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);

/**
 * How much text a report's stored results hold: what reading them costs grows with it. Brotli at
 * quality 1 keeps them in 5 to 15 times fewer bytes (results/results-encoding.ts): estimated on the safe side.
 */
function estimatedTextBytes(text: string, compressed: Uint8Array | null): number {
  return compressed === null ? text.length : compressed.byteLength * 20;
}

/**
 * The worker's module, compiled: next to this one in dist/; when this one runs from src/ (the tests,
 * through Vitest), the same path under dist/, which `npm test` builds first.
 */
function workerFile(): string {
  const here = new URL('./heavy-work.worker.js', import.meta.url);
  if (existsSync(fileURLToPath(here))) return here.href;
  return new URL(here.href.replace(/\/src\/reports\/threads\/heavy-work\.worker\.js$/, '/dist/reports/threads/heavy-work.worker.js')).href;
}
