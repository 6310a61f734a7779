import type { FastifyBaseLogger } from 'fastify';

/**
 * Runs `work` one second after start, then at every interval, until the returned function is
 * called: the periodic jobs every `serve` instance runs (audit and report retention). The timers
 * never keep the process alive; a run still going when the next is due is not doubled; a failed run
 * is logged and tried again at the next one (a database that is down now may be up in an hour).
 */
export function startPeriodicJob(job: {
  name: string;
  intervalMs: number;
  logger: FastifyBaseLogger;
  work: () => Promise<void>;
}): () => void {
  let running = false;
  const run = () => {
    if (running) return;
    running = true;
    job
      .work()
      .catch((error: unknown) => job.logger.warn({ err: error }, `${job.name} failed; trying again at the next interval`))
      .finally(() => {
        running = false;
      });
  };
  const first = setTimeout(run, 1_000);
  const every = setInterval(run, job.intervalMs);
  first.unref();
  every.unref();
  return () => {
    clearTimeout(first);
    clearInterval(every);
  };
}
