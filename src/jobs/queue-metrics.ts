import { Counter, Gauge, type Registry } from 'prom-client';
import type { Clock } from '../clock.js';

/** What an outbox's table says of its backlog: how many wait, and since when the oldest (null when none). */
export type Backlog = () => Promise<{ pending: number; oldest: string | null }>;

/**
 * An outbox on /metrics (E6's webhook deliveries, the outbox of calls to providers): a counter of
 * this instance's attempts by the labels given, and two gauges of the backlog of all instances,
 * read from the database at each scrape, so that any instance reports the same. Each gauge reads
 * the backlog itself (the registry collects them at once, in no set order): two small indexed
 * queries a scrape. A database that cannot answer leaves a gauge as it was, and /metrics keeps
 * answering.
 */
export function registerQueueMetrics<Label extends string>(
  registry: Registry,
  deps: { clock: Clock; backlog: Backlog },
  names: {
    attempts: { name: string; help: string; labelNames: readonly Label[] };
    depth: { name: string; help: string };
    oldestAge: { name: string; help: string };
  },
): Counter<Label> {
  const attempts = new Counter({ ...names.attempts, registers: [registry] });
  const backlog = () => deps.backlog().catch(() => null);
  new Gauge({
    ...names.depth,
    registers: [registry],
    async collect() {
      const now = await backlog();
      if (now) this.set(now.pending);
    },
  });
  new Gauge({
    ...names.oldestAge,
    registers: [registry],
    async collect() {
      const now = await backlog();
      if (!now) return;
      this.set(now.oldest === null ? 0 : Math.max(0, (deps.clock.now().getTime() - new Date(now.oldest).getTime()) / 1000));
    },
  });
  return attempts;
}
