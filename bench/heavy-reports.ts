import { connect, type Socket } from 'node:net';
import { readFileSync } from 'node:fs';
import { Worker } from 'node:worker_threads';

/**
 * D28's scenario, for `npm run bench` and (smaller) for the test suite: one Solo-plan user uploads
 * large reports and reads them back as fast as their rate limit allows, while many connections
 * request such a report and never read the answer; meanwhile another user's `GET /api/v1/tokens`
 * must stay fast, and the server's memory bounded.
 */
export interface HeavyReportsOptions {
  url: string;
  /** The server's process id, for its resident memory (/proc). */
  pid: number;
  /** The heavy user's personal token (reads) and their project's API token (uploads). */
  heavy: { token: string; apiToken: string };
  /** The other user's personal token. */
  otherToken: string;
  /** The upload body as the client sends it, another run of it at each call (an identical body is a retry, stored once: D40). */
  report: () => Buffer;
  durationMs: number;
  /** Connections that request the report and never read a byte of the answer. */
  stalledConnections: number;
  /** Connections that request an export of the report (CSV and SARIF in turn) and never read (D33). */
  stalledExports?: number;
  /** Readers that read the report back whole, one request at a time (half of them take gzip). */
  readers: number;
  /** How often the other user asks for their tokens. */
  tokensEveryMs: number;
}

export interface HeavyReportsResult {
  uploads: number;
  /** Uploads answered 503 because the heavy-work pool was full (D28's bound), not failures. */
  uploadsRefusedBusy: number;
  reads: number;
  readMiB: number;
  /** The reader's requests the rate limit refused (429): the user's budget is the limit here. */
  rateLimited: number;
  tokens: { count: number; p50: number; p99: number; max: number; failed: number; slowest: { atMs: number; ms: number }[] };
  rssStartMiB: number;
  rssPeakMiB: number;
  /** Answers that were neither success, 429 nor the pool's 503, with their statuses. */
  errors: string[];
}

const MiB = 2 ** 20;

export async function runHeavyReports(options: HeavyReportsOptions): Promise<HeavyReportsResult> {
  const { url } = options;
  const errors: string[] = [];
  let stopAt = Number.POSITIVE_INFINITY;
  const running = () => Date.now() < stopAt;
  const rssStartMiB = rssOf(options.pid) / MiB;
  let rssPeakMiB = rssStartMiB;
  const sampler = setInterval(() => (rssPeakMiB = Math.max(rssPeakMiB, rssOf(options.pid) / MiB)), 100);

  // A first report, so that readers and stalled connections have something to ask for.
  let latest = await upload(url, options.heavy.apiToken, options.report()).then((answer) => {
    if (answer.status !== 201) throw new Error(`the first upload was answered ${answer.status}: ${answer.text.slice(0, 300)}`);
    return (JSON.parse(answer.text) as { report: { uuid: string } }).report.uuid;
  });

  // The measurement starts once there is a report to read.
  stopAt = Date.now() + options.durationMs;
  let uploads = 1;
  let uploadsRefusedBusy = 0;
  let reads = 0;
  let readBytes = 0;
  let rateLimited = 0;
  const waitFor = (response: { headers: Headers }) => Math.min(2_000, Number(response.headers.get('retry-after') ?? 1) * 1_000);

  const uploader = (async () => {
    while (running()) {
      const answer = await upload(url, options.heavy.apiToken, options.report());
      if (answer.status === 201) {
        uploads++;
        latest = (JSON.parse(answer.text) as { report: { uuid: string } }).report.uuid;
      } else if (answer.status === 429 || answer.status === 503) {
        if (answer.status === 503) uploadsRefusedBusy++;
        await pause(waitFor(answer));
      } else {
        errors.push(`upload ${answer.status}`);
      }
    }
  })();

  const reader = async (gzip: boolean) => {
    while (running()) {
      const response = await fetch(`${url}/api/v1/reports/${latest}`, {
        headers: { authorization: `Bearer ${options.heavy.token}`, 'accept-encoding': gzip ? 'gzip' : 'identity' },
      });
      const body = Buffer.from(await response.arrayBuffer());
      if (response.status === 200) {
        reads++;
        readBytes += body.length;
      } else if (response.status === 429) {
        rateLimited++;
        await pause(waitFor(response));
      } else {
        errors.push(`read ${response.status}`);
      }
    }
  };
  const readers = Array.from({ length: options.readers }, (_, i) => reader(i % 2 === 0));

  // Connections that ask for the report and then never read: the server may hold no more for each
  // than a bounded buffer. Half take gzip, half make the server inflate as they (do not) read.
  const stalled: Socket[] = [];
  for (let i = 0; i < options.stalledConnections; i++) stalled.push(stalledRequest(url, latest, options.heavy.token, i % 2 === 0));
  for (let i = 0; i < (options.stalledExports ?? 0); i++) {
    stalled.push(stalledGet(url, `/api/v1/reports/${latest}/export?format=${i % 2 === 0 ? 'csv' : 'sarif'}`, options.heavy.token));
  }

  // The other user, on a thread of its own: timed on this process's busy event loop (reading and
  // inflating 13 MB answers), the other user's wait would include ours.
  const probed = probeTokens({ url, token: options.otherToken, everyMs: options.tokensEveryMs, durationMs: options.durationMs });
  const [{ latencies, timeline, failed }] = await Promise.all([probed, uploader, ...readers]);
  for (const socket of stalled) socket.destroy();
  clearInterval(sampler);

  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.ceil(q * latencies.length) - 1)] ?? Number.NaN;
  return {
    uploads,
    uploadsRefusedBusy,
    reads,
    readMiB: readBytes / MiB,
    rateLimited,
    tokens: {
      count: latencies.length,
      p50: at(0.5),
      p99: at(0.99),
      max: latencies.at(-1) ?? Number.NaN,
      failed,
      slowest: timeline.sort((a, b) => b.ms - a.ms).slice(0, 5),
    },
    rssStartMiB,
    rssPeakMiB,
    errors,
  };
}

/** What the other user saw: each answered request's wait (from when it was due), and the failures. */
export interface Probed {
  latencies: number[];
  timeline: { atMs: number; ms: number }[];
  failed: number;
}

/** `GET /api/v1/tokens` every `everyMs` for `durationMs`, from a worker thread (plain JavaScript, evaluated). */
export function probeTokens(workerData: { url: string; token: string; everyMs: number; durationMs: number }): Promise<Probed> {
  const source = `
    const { parentPort, workerData } = require('node:worker_threads');
    const { url, token, everyMs, durationMs } = workerData;
    const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
    (async () => {
      // The thread's first fetch loads its HTTP client: not the server's time.
      await (await fetch(url + '/healthz')).arrayBuffer();
      const latencies = [];
      const timeline = [];
      let failed = 0;
      const pending = [];
      const started = Date.now();
      for (let due = started; due < started + durationMs; due += everyMs) {
        await pause(Math.max(0, due - Date.now()));
        const sent = due;
        pending.push(
          fetch(url + '/api/v1/tokens', { headers: { authorization: 'Bearer ' + token } })
            .then(async (response) => {
              await response.arrayBuffer();
              if (response.status !== 200) return void failed++;
              latencies.push(Date.now() - sent);
              timeline.push({ atMs: sent - started, ms: Date.now() - sent });
            })
            .catch(() => void failed++),
        );
      }
      await Promise.all(pending);
      parentPort.postMessage({ latencies, timeline, failed });
    })();
  `;
  return new Promise((resolve, reject) => {
    const worker = new Worker(source, { eval: true, workerData });
    worker.once('message', (probed: Probed) => {
      resolve(probed);
      void worker.terminate();
    });
    worker.once('error', reject);
  });
}

/**
 * A report of `analyzers` failed analyzers with `issuesPerAnalyzer` issues each, as the client
 * serialises it: 50 x 1,500 is about 9 MiB (the size measured in the performance findings).
 */
export function heavyReport(analyzers: number, issuesPerAnalyzer: number): Buffer {
  const severities = ['critical', 'high', 'medium', 'low', 'info'];
  const results = Array.from({ length: analyzers }, (_, a) => ({
    analyzer_id: `heavy-analyzer-${a}`,
    status: 'failed',
    message: `${issuesPerAnalyzer} issues`,
    execution_time: 0.5,
    metadata: {},
    issues: Array.from({ length: issuesPerAnalyzer }, (_, i) => ({
      message: `A query runs inside a loop, handler ${i}`,
      location: { file: `app/Http/C${a % 7}/H${i % 40}.php`, line: 10 + (i % 300) },
      severity: severities[i % 5],
    })),
  }));
  return Buffer.from(
    JSON.stringify({
      project_id: 'unknown',
      package_version: '1.4.0',
      analyzed_at: new Date().toISOString(),
      total_execution_time: analyzers * 0.5,
      results,
      metadata: { git: { branch: 'main', commit: 'abc1234' } },
    }),
  );
}

async function upload(url: string, apiToken: string, body: Buffer): Promise<{ status: number; text: string; headers: Headers }> {
  const response = await fetch(`${url}/api/reports`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiToken}`, 'content-type': 'application/json', accept: 'application/json' },
    body: body as unknown as BodyInit,
  });
  return { status: response.status, text: await response.text(), headers: response.headers };
}

function stalledRequest(url: string, uuid: string, token: string, gzip: boolean): Socket {
  return stalledGet(url, `/api/v1/reports/${uuid}`, token, gzip ? 'Accept-Encoding: gzip\r\n' : '');
}

function stalledGet(url: string, target: string, token: string, extraHeaders = ''): Socket {
  const { hostname, port } = new URL(url);
  const socket = connect({ host: hostname, port: Number(port) });
  socket.on('error', () => {});
  socket.write(`GET ${target} HTTP/1.1\r\nHost: ${hostname}:${port}\r\nAuthorization: Bearer ${token}\r\n${extraHeaders}\r\n`);
  // Never read: the kernel's receive buffer fills, then the server's send buffer, then its stream.
  socket.pause();
  return socket;
}

/**
 * D33's attack: a report of `count` issues with 60,000-character messages (150 are 8.6 MiB), so
 * that whatever an answer holds counted in issues rather than bytes is most of the report. The
 * messages need CSV quoting and compress a thousandfold.
 */
export function longMessageReport(count: number) {
  return {
    analyzed_at: '2026-11-21T09:00:00+00:00',
    results: [
      {
        analyzer_id: 'long-messages',
        status: 'failed',
        message: `${count} issues`,
        issues: Array.from({ length: count }, (_, i) => ({
          message: `Issue ${i}, "quoted"; ${'x'.repeat(60_000)}`,
          location: { file: `app/Long/F${i}.php`, line: i + 1 },
          severity: 'high',
        })),
      },
    ],
  };
}

export interface StalledReadersResult {
  /** The server's RSS once the report is stored and each answer was read once. */
  rssBaselineMiB: number;
  rssPeakMiB: number;
  /** Of the server, over its baseline, while the connections stalled. */
  rssGrowthMiB: number;
}

/**
 * D33: `connections` connections ask for the report's CSV or SARIF export (in turn) and never read;
 * the server's RSS is sampled for `durationMs` against its baseline. D33's bound: 40 add less than
 * 100 MiB (the attack's 40 added some 600).
 */
export async function runStalledReaders(options: {
  url: string;
  pid: number;
  token: string;
  apiToken: string;
  report: Buffer;
  connections: number;
  durationMs: number;
}): Promise<StalledReadersResult> {
  const { url, token } = options;
  const answer = await upload(url, options.apiToken, options.report);
  if (answer.status !== 201) throw new Error(`the upload was answered ${answer.status}: ${answer.text.slice(0, 300)}`);
  const uuid = (JSON.parse(answer.text) as { report: { uuid: string } }).report.uuid;
  const targets = [`/api/v1/reports/${uuid}/export?format=csv`, `/api/v1/reports/${uuid}/export?format=sarif`];
  // Each answer once, read whole: what the server loads for them is in the baseline.
  for (const target of targets) {
    const response = await fetch(`${url}${target}`, { headers: { authorization: `Bearer ${token}`, 'accept-encoding': 'identity' } });
    await response.arrayBuffer();
    if (response.status !== 200) throw new Error(`${target} was answered ${response.status}`);
  }
  await pause(1_000);
  const rssBaselineMiB = rssOf(options.pid) / MiB;
  let rssPeakMiB = rssBaselineMiB;
  const sampler = setInterval(() => (rssPeakMiB = Math.max(rssPeakMiB, rssOf(options.pid) / MiB)), 50);
  const stalled = Array.from({ length: options.connections }, (_, i) => stalledGet(url, targets[i % targets.length]!, token));
  await pause(options.durationMs);
  clearInterval(sampler);
  for (const socket of stalled) socket.destroy();
  return { rssBaselineMiB, rssPeakMiB, rssGrowthMiB: rssPeakMiB - rssBaselineMiB };
}

function rssOf(pid: number): number {
  try {
    return Number(/^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) * 1024;
  } catch {
    return 0;
  }
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
