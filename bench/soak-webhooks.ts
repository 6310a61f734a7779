import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ServerProcess } from './processes.js';
import type { Seeded } from './seed.js';

/**
 * `npm run soak -- --webhooks` (issue 17): every uploading project gets a webhook for its report
 * events, pointed at a healthy receiver in this process; the service's outbox is read from
 * /metrics every second. The soak fails if a delivery fails or is retried (the receiver never
 * refuses), if the receiver misses a delivery, or if the queue grows: its depth and the age of its
 * oldest pending delivery must stay small to the end.
 */
const EVENTS = ['report.created', 'report.gate_failed'];
/** Deliveries waiting at the end that still count as keeping up (a second or two of events). */
const DEPTH_KEPT_UP = 100;
const AGE_KEPT_UP_SECONDS = 10;

interface Sample {
  at: number;
  depth: number;
  oldestSeconds: number;
}

export interface WebhookSoak {
  /** Waits (at most 30 s) for the queue to drain, then says what was seen. */
  finish(intervals: { from: number; to: number }[]): Promise<{ lines: string[]; problems: string[]; json: object }>;
}

export async function startWebhookSoak(services: ServerProcess[], seeded: Seeded, started: () => number): Promise<WebhookSoak> {
  const ids = new Map<string, number>();
  let requests = 0;
  const receiver: Server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      requests += 1;
      const id = String(request.headers['webhook-id']);
      ids.set(id, (ids.get(id) ?? 0) + 1);
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;

  const uploading = seeded.projectIds.slice(0, seeded.apiTokens.length);
  for (const projectId of uploading) {
    const answer = await fetch(`${services[0]!.url}/api/v1/projects/${projectId}/webhooks`, {
      method: 'POST',
      headers: { authorization: `Bearer ${seeded.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ url, events: EVENTS, description: 'soak' }),
    });
    if (answer.status !== 201) throw new Error(`creating a webhook answered ${answer.status}: ${await answer.text()}`);
  }

  const samples: Sample[] = [];
  const read = async () => {
    // The backlog is the database's, the same from every instance: the first one's is read.
    const text = await (await fetch(`${services[0]!.url}/metrics`)).text();
    const value = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? Number.NaN);
    samples.push({
      at: started(),
      depth: value('scoreboard_webhook_queue_depth'),
      oldestSeconds: value('scoreboard_webhook_oldest_pending_age_seconds'),
    });
  };
  const sampler = setInterval(() => void read().catch(() => undefined), 1_000);

  /** Attempts by outcome, summed over the instances. */
  const outcomes = async () => {
    const totals = { succeeded: 0, retrying: 0, failed: 0 };
    for (const service of services) {
      const text = await (await fetch(`${service.url}/metrics`)).text();
      for (const match of text.matchAll(/^scoreboard_webhook_deliveries_total\{event="[^"]+",outcome="(\w+)"\} (\S+)$/gm))
        totals[match[1] as keyof typeof totals] += Number(match[2]);
    }
    return totals;
  };

  return {
    async finish(intervals) {
      clearInterval(sampler);
      const drained = Date.now();
      await read();
      while (samples.at(-1)!.depth > 0 && Date.now() - drained < 30_000) {
        await new Promise((resolve) => setTimeout(resolve, 500));
        await read();
      }
      const totals = await outcomes();
      await new Promise<void>((resolve) => receiver.close(() => resolve()));

      const problems: string[] = [];
      const repeated = [...ids.values()].filter((count) => count > 1).length;
      if (totals.failed + totals.retrying > 0)
        problems.push(`webhooks: ${totals.failed} failed and ${totals.retrying} retried attempts with a healthy receiver`);
      if (ids.size !== totals.succeeded)
        problems.push(`webhooks: ${totals.succeeded} deliveries succeeded but the receiver saw ${ids.size} ids`);
      const last = samples.at(-1)!;
      if (last.depth > 0) problems.push(`webhooks: ${last.depth} deliveries still pending 30 s after the load`);
      const during = samples.filter((sample) => sample.at <= (intervals.at(-1)?.to ?? Infinity));
      const tail = during.slice(-Math.max(1, Math.floor(during.length / 5)));
      const tailDepth = Math.max(0, ...tail.map((sample) => sample.depth));
      const tailAge = Math.max(0, ...tail.map((sample) => sample.oldestSeconds));
      if (tailDepth > DEPTH_KEPT_UP || tailAge > AGE_KEPT_UP_SECONDS)
        problems.push(
          `webhooks: the queue did not keep up at the end of the load (depth up to ${tailDepth}, oldest ${tailAge.toFixed(1)} s)`,
        );

      const rows = intervals.map(({ from, to }) => {
        const inside = samples.filter((sample) => sample.at > from && sample.at <= to);
        return {
          from,
          to,
          maxDepth: Math.max(0, ...inside.map((sample) => sample.depth)),
          maxOldestSeconds: Math.max(0, ...inside.map((sample) => sample.oldestSeconds)),
        };
      });
      const lines = [
        '## Webhooks',
        '',
        `${uploading.length} webhooks (${EVENTS.join(', ')}) to a receiver answering 204 at once. ` +
          `${totals.succeeded} deliveries succeeded, ${totals.retrying} retried, ${totals.failed} failed; ` +
          `the receiver got ${requests} requests with ${ids.size} ids (${repeated} seen more than once). ` +
          `Queue at the end of the load: at most ${tailDepth} pending, the oldest ${tailAge.toFixed(1)} s; ` +
          `${last.depth} pending after it.`,
        '',
        '| until | queue depth (max) | oldest pending (max, s) |',
        '|---|---:|---:|',
        ...rows.map((row) => `| ${Math.round(row.to)} s | ${row.maxDepth} | ${row.maxOldestSeconds.toFixed(1)} |`),
        '',
        problems.length === 0 ? 'No growth: the queue kept up with the events to the end.' : problems.join('\n'),
      ];
      return { lines, problems, json: { webhooks: uploading.length, totals, received: requests, ids: ids.size, repeated, rows } };
    },
  };
}
