import { distinctRuns } from './distinct-runs.js';
import autocannon from 'autocannon';
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { machine, SERVICE_NODE_FLAGS, serviceEnv, startServer, type ServerProcess } from './processes.js';
import { seed, type Seeded } from './seed.js';
import { startWebhookSoak } from './soak-webhooks.js';
import { deleteRedisKeys, inSchema, redactUrl, withPostgres } from './stores.js';

/**
 * `npm run soak` (issue 7): holds a mixed, realistic load at a fixed offered rate against a real
 * `scoreboard serve` process (production settings, like the benchmark) for a set time, and reports
 * every error by kind (the run fails on any), p50/p99 latency per interval, and the service's RSS
 * over time with a growth check. `--database-url postgres://…` (with `--redis-url`, `--instances`)
 * soaks the scale-out mode in a schema of its own, dropped afterwards.
 */
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const USAGE = `usage: npm run soak -- [--duration 5m] [--interval 10s] [--rate 200] [--projects 1000]
       [--reports-per-project 5] [--database-url postgres://…] [--redis-url redis://…] [--instances N]
       [--webhooks]
(durations: 90, 90s, 5m, 1m30s, 1h; SOAK_DURATION sets the duration too)`;

const args = (() => {
  try {
    return parseArgs({
      options: {
        duration: { type: 'string' },
        interval: { type: 'string', default: '10s' },
        rate: { type: 'string', default: '200' },
        projects: { type: 'string', default: '1000' },
        'reports-per-project': { type: 'string', default: '5' },
        'database-url': { type: 'string' },
        'redis-url': { type: 'string' },
        instances: { type: 'string', default: '1' },
        webhooks: { type: 'boolean', default: false },
        help: { type: 'boolean', default: false },
      },
    }).values;
  } catch (error) {
    return usage((error as Error).message);
  }
})();
if (args.help) {
  process.stdout.write(`${USAGE}\n`);
  process.exit(0);
}

const settings = {
  durationSeconds: parseDuration(args.duration ?? process.env.SOAK_DURATION ?? '5m', 'duration'),
  intervalSeconds: parseDuration(args.interval!, 'interval'),
  /** Requests per second offered in total, whatever the service answers (fixed, not closed-loop). */
  rate: positiveInteger(args.rate!, 'rate'),
  projects: positiveInteger(args.projects!, 'projects'),
  reportsPerProject: positiveInteger(args['reports-per-project']!, 'reports-per-project'),
  postgres: args['database-url'] ?? null,
  redis: args['redis-url'] ?? null,
  instances: positiveInteger(args.instances!, 'instances'),
  /** Webhooks on the uploading projects, to a receiver in this process (soak-webhooks.ts). */
  webhooks: args.webhooks === true,
};
if (settings.instances > 4) usage('--instances is at most 4 (the token flow keeps a user under its 10 tokens)');
if (settings.instances > 1 && !settings.postgres)
  usage("--instances above 1 needs --database-url (a SQLite file is one machine's database)");
if (settings.postgres && !/^postgres(ql)?:\/\//.test(settings.postgres)) usage('--database-url must be postgres://…');
if (settings.redis && !/^rediss?:\/\//.test(settings.redis)) usage('--redis-url must be redis://…');

/** Connections of one flow on one instance carry about this many requests a second each. */
const REQUESTS_PER_CONNECTION = 5;
/** The fixtures' project id, replaced by the uploading project's id. */
const FIXTURE_PROJECT_ID = '0190c8a0-0000-7000-8000-000000000001';
const MiB = 2 ** 20;

// ---------------------------------------------------------------------------------------------
// The mix

/**
 * One kind of traffic: a request, or a sequence a connection repeats in order (create, update,
 * delete). `share` is its part of all requests sent, in percent; a sequence's requests all count.
 */
interface Flow {
  name: string;
  share: number;
  /** Connections per instance at most (the token flow: a user has at most 10 tokens, spec §8). */
  maxConnections?: number;
  /** Fresh request objects (autocannon keeps state on them) for one autocannon run. */
  build(): autocannon.Request[];
}

function buildFlows(seeded: Seeded, recorder: Recorder): Flow[] {
  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
  const user = bearer(seeded.token);
  const json = { 'content-type': 'application/json' };
  // What the client package sends (CLIENT-WIRE.md): Guzzle's user agent, no Accept.
  const client = { 'user-agent': 'GuzzleHttp/7' };
  const pick = <T>(items: readonly T[]): T => items[Math.floor(Math.random() * items.length)]!;
  const pages = Math.max(1, Math.ceil(seeded.projectIds.length / 20));
  // People mostly look at the first pages; some page deep.
  const page = () => {
    const roll = Math.random();
    if (roll < 0.5 || pages === 1) return 1;
    if (roll < 0.8) return 2 + Math.floor(Math.random() * Math.min(4, pages - 1));
    return 1 + Math.floor(Math.random() * pages);
  };
  const fixture = (name: string) => readFileSync(join(ROOT, 'test/fixtures/client-wire/reports', `${name}.json`), 'utf8');
  const [small, full] = [fixture('report-small'), fixture('report-full')];
  // Each upload another run (an identical body would be a retry, not stored again: D40).
  const uploaders = seeded.apiTokens.map((token, i) => {
    const id = seeded.projectIds[i]!;
    return {
      token,
      small: distinctRuns(small.split(FIXTURE_PROJECT_ID).join(id), 'small'),
      full: distinctRuns(full.split(FIXTURE_PROJECT_ID).join(id), 'full'),
    };
  });
  const step = recorder.step.bind(recorder);
  const idOf = (context: object) => (context as { id?: string }).id;

  return [
    {
      name: 'project show',
      share: 22,
      build: () => [
        step('GET /api/v1/projects/{id}', {
          headers: user,
          setupRequest: (request) => ({ ...request, path: `/api/v1/projects/${pick(seeded.projectIds)}` }),
        }),
      ],
    },
    {
      name: 'project list',
      share: 16,
      build: () => [
        step('GET /api/v1/projects?page=N', {
          headers: user,
          setupRequest: (request) => ({ ...request, path: `/api/v1/projects?page=${page()}` }),
        }),
      ],
    },
    {
      name: 'report list',
      share: 12,
      build: () => [
        step('GET /api/v1/projects/{id}/reports', {
          headers: user,
          setupRequest: (request) => ({ ...request, path: `/api/v1/projects/${pick(seeded.projectIds)}/reports` }),
        }),
      ],
    },
    {
      name: 'report detail',
      share: 10,
      build: () => [
        step('GET /api/v1/reports/{uuid}', {
          headers: user,
          setupRequest: (request) => ({ ...request, path: `/api/v1/reports/${pick(seeded.reportIds)}` }),
        }),
      ],
    },
    {
      name: 'token list',
      share: 8,
      build: () => [step('GET /api/v1/tokens', { path: '/api/v1/tokens', headers: user })],
    },
    {
      // The recorded client payloads: the small report (10 analyzers, 12 KB) mostly, the full one
      // (155 analyzers, 150 KB) one time in ten, to the first projects with their own API tokens.
      name: 'upload',
      share: 10,
      build: () => [
        step('POST /api/reports', {
          method: 'POST',
          path: '/api/reports',
          setupRequest: (request) => {
            const uploader = pick(uploaders);
            return {
              ...request,
              headers: { ...client, ...json, ...bearer(uploader.token) },
              body: Math.random() < 0.1 ? uploader.full() : uploader.small(),
            };
          },
        }),
      ],
    },
    {
      name: 'token verify',
      share: 6,
      build: () => [
        step('GET /api/token/verify', {
          path: '/api/token/verify',
          setupRequest: (request) => ({ ...request, headers: { ...client, ...bearer(pick(uploaders).token) } }),
        }),
      ],
    },
    {
      name: 'project create, update, delete',
      share: 10,
      build: () => [
        step(
          'POST /api/v1/projects',
          {
            method: 'POST',
            path: '/api/v1/projects',
            headers: { ...user, ...json },
            body: JSON.stringify({ name: 'Soak', framework_version: '11', repository_url: 'https://github.com/acme/soak' }),
          },
          (status, body, context) => {
            if (status === 201) (context as { id?: string }).id = JSON.parse(body).project.id;
          },
        ),
        step('PUT /api/v1/projects/{id}', {
          method: 'PUT',
          headers: { ...user, ...json },
          body: JSON.stringify({
            name: 'Soak (renamed)',
            framework_version: '12',
            description: 'Updated by the soak.',
            settings: { fail_on: 'critical', fail_threshold: 70, primary_tracker: 'internal' },
          }),
          // No id: the create failed (already counted); start the sequence again.
          setupRequest: (request, context) => (idOf(context) ? { ...request, path: `/api/v1/projects/${idOf(context)}` } : null!),
        }),
        step('DELETE /api/v1/projects/{id}', {
          method: 'DELETE',
          headers: user,
          setupRequest: (request, context) => (idOf(context) ? { ...request, path: `/api/v1/projects/${idOf(context)}` } : null!),
        }),
      ],
    },
    {
      // Create a read token, use it once, revoke it. The seeded user holds 5 tokens; with at most
      // two such sequences in flight it stays under the limit of 10 (spec §8).
      name: 'token create, use, revoke',
      share: 6,
      maxConnections: Math.max(1, Math.floor(2 / settings.instances)),
      build: () => [
        step(
          'POST /api/v1/tokens',
          {
            method: 'POST',
            path: '/api/v1/tokens',
            headers: { ...user, ...json },
            body: JSON.stringify({ name: 'soak', abilities: ['read'], expires_at: '2099-01-01' }),
          },
          (status, body, context) => {
            if (status !== 201) return;
            const created = JSON.parse(body);
            Object.assign(context, { id: String(created.token.id), plain: created.plain_text_token });
          },
        ),
        step('GET /api/v1/tokens (new token)', {
          path: '/api/v1/tokens',
          setupRequest: (request, context) => {
            const plain = (context as { plain?: string }).plain;
            return plain ? { ...request, headers: bearer(plain) } : null!;
          },
        }),
        step('DELETE /api/v1/tokens/{id}', {
          method: 'DELETE',
          headers: user,
          setupRequest: (request, context) => (idOf(context) ? { ...request, path: `/api/v1/tokens/${idOf(context)}` } : null!),
        }),
      ],
    },
  ];
}

// ---------------------------------------------------------------------------------------------
// What is measured

interface IntervalRow {
  from: number;
  to: number;
  requests: number;
  requestsPerSecond: number;
  p50: number;
  p99: number;
  max: number;
  errors: number;
  /** Per instance: RSS at the end of the interval, and the lowest and highest sampled in it. */
  rssMiB: number[];
  rssLowMiB: number[];
  rssHighMiB: number[];
  /**
   * The machine's 1-minute load average at the end of the interval: the load generator, the
   * service and whatever else runs share the cores, and a p99 that rises with it is the machine's.
   */
  load: number;
}

/**
 * Latencies per interval and per request, and errors by kind. autocannon calls a request's
 * `onResponse` just before it emits `response` (with the latency) on the same client, in the same
 * tick, so the step named by the last `onResponse` is the one the latency belongs to.
 */
class Recorder {
  private last = 'unknown';
  private interval: number[] = [];
  private intervalErrors = 0;
  readonly steps = new Map<string, { latencies: number[]; errors: number }>();
  readonly errors = new Map<string, { count: number; sample: string }>();

  /** A request whose answer is checked (2xx) and attributed to `name`. */
  step(
    name: string,
    request: autocannon.Request,
    onResponse?: (status: number, body: string, context: object) => void,
  ): autocannon.Request {
    this.steps.set(name, this.steps.get(name) ?? { latencies: [], errors: 0 });
    return {
      ...request,
      onResponse: (status, body, context) => {
        this.last = name;
        if (status < 200 || status > 299) this.error(`${name} → ${status}`, body, name);
        onResponse?.(status, body, context);
      },
    };
  }

  response(milliseconds: number): void {
    this.interval.push(milliseconds);
    this.steps.get(this.last)?.latencies.push(milliseconds);
  }

  /** A socket error or a timeout (no answer, so no step to blame). */
  socketError(error: { code?: string; message?: string }): void {
    this.error(error.message === 'request timed out' ? 'timeout (10 s)' : `socket: ${error.code ?? error.message}`, '');
  }

  error(kind: string, sample: string, step?: string): void {
    const seen = this.errors.get(kind);
    if (seen) seen.count += 1;
    else this.errors.set(kind, { count: 1, sample: sample.slice(0, 300) });
    if (step) this.steps.get(step)!.errors += 1;
    this.intervalErrors += 1;
  }

  closeInterval(from: number, to: number, rss: Pick<IntervalRow, 'rssMiB' | 'rssLowMiB' | 'rssHighMiB'>): IntervalRow {
    const latencies = this.interval;
    const row = {
      from,
      to,
      requests: latencies.length,
      requestsPerSecond: latencies.length / Math.max(to - from, 0.001),
      ...percentiles(latencies),
      errors: this.intervalErrors,
      ...rss,
      load: loadavg()[0]!,
    };
    this.interval = [];
    this.intervalErrors = 0;
    return row;
  }

  totalErrors(): number {
    let total = 0;
    for (const { count } of this.errors.values()) total += count;
    return total;
  }
}

function percentiles(values: number[]) {
  if (values.length === 0) return { p50: 0, p99: 0, max: 0 };
  const sorted = Float64Array.from(values).sort();
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
  return { p50: at(0.5), p99: at(0.99), max: sorted[sorted.length - 1]! };
}

// ---------------------------------------------------------------------------------------------
// The run

interface Store {
  env: NodeJS.ProcessEnv;
  describe: string;
  drop(): Promise<void>;
}

async function main(): Promise<void> {
  const store = await createStore();
  const services: ServerProcess[] = [];
  const logLines: string[] = [];
  let serverLogLines = 0;
  try {
    log(`seeding ${settings.projects} projects x ${settings.reportsPerProject} reports (${store.describe})`);
    const seeding = Date.now();
    const seeded = await seed({ root: ROOT, env: store.env, projects: settings.projects, reportsPerProject: settings.reportsPerProject });
    log(`seeded ${seeded.reports} reports in ${((Date.now() - seeding) / 1000).toFixed(1)} s`);

    // The service logs at warn: whatever it prints is worth reading (kept, not counted as errors).
    const onLog = (line: string) => {
      serverLogLines += 1;
      if (logLines.length < 5) logLines.push(line.slice(0, 500));
    };
    for (let i = 0; i < settings.instances; i++) {
      // The webhook receiver is on 127.0.0.1, which E6 refuses unless told.
      const env = settings.webhooks ? { ...store.env, WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' } : store.env;
      services.push(await startServer([...SERVICE_NODE_FLAGS, join(ROOT, 'bin/scoreboard.js'), 'serve'], env, '/healthz', { onLog }));
    }
    const recorder = new Recorder();
    const flows = buildFlows(seeded, recorder);
    let origin = performance.now();
    const hooks = settings.webhooks ? await startWebhookSoak(services, seeded, () => (performance.now() - origin) / 1000) : null;
    origin = performance.now();
    const result = await soak(services, flows, recorder);
    const webhooks = hooks ? await hooks.finish(result.intervals) : null;
    if (webhooks) result.problems.push(...webhooks.problems);
    const report = render(result, recorder, seeded, store, serverLogLines, logLines) + (webhooks ? `\n${webhooks.lines.join('\n')}\n` : '');
    process.stdout.write(`\n${report}\n`);
    const resultsDir = join(ROOT, 'bench', 'results');
    mkdirSync(resultsDir, { recursive: true });
    writeFileSync(join(resultsDir, 'soak.md'), report);
    writeFileSync(
      join(resultsDir, 'soak.json'),
      JSON.stringify(
        {
          machine: machine(),
          settings: {
            ...settings,
            postgres: settings.postgres ? redactUrl(settings.postgres) : null,
            redis: settings.redis ? redactUrl(settings.redis) : null,
          },
          seeded: { projects: seeded.projectIds.length, reports: seeded.reports },
          offered: result.offered,
          intervals: result.intervals,
          requests: stepRows(recorder),
          errors: [...recorder.errors].map(([kind, { count, sample }]) => ({ kind, count, sample })),
          memory: result.memory,
          serviceProblems: result.problems,
          serverLog: { lines: serverLogLines, first: logLines },
          webhooks: webhooks?.json ?? null,
        },
        null,
        2,
      ),
    );
    const errors = recorder.totalErrors();
    if (errors > 0 || result.problems.length > 0) {
      process.stderr.write(`soak failed: ${errors} errors${result.problems.length ? `; ${result.problems.join('; ')}` : ''}\n`);
      process.exitCode = 1;
    }
  } finally {
    await Promise.all(services.map((service) => service.stop()));
    await store.drop();
  }
}

interface Offered {
  requestsPerSecond: number;
  connections: number;
  flows: { name: string; requestsPerSecond: number; connections: number }[];
}

async function soak(services: ServerProcess[], flows: Flow[], recorder: Recorder) {
  // Each flow gets its share of the rate on every instance, spread over connections that each
  // carry a few requests a second. autocannon refills a connection's budget once a second and its
  // connections all refill on the same tick, which would turn the load into one burst a second:
  // so every connection is an autocannon run of its own, and the runs start spread over a second.
  const plans = services.flatMap((service) =>
    flows.flatMap((flow) => {
      const rate = Math.max(1, Math.round((settings.rate * flow.share) / 100 / services.length));
      const connections = Math.min(flow.maxConnections ?? Infinity, Math.max(1, Math.ceil(rate / REQUESTS_PER_CONNECTION)));
      return Array.from({ length: connections }, (_, i) => ({
        service,
        flow,
        rate: Math.floor(rate / connections) + (i < rate % connections ? 1 : 0),
        rank: i,
      }));
    }),
  );
  // Interleave the flows so that neighbours in the start order are different kinds of traffic.
  plans.sort((a, b) => a.rank - b.rank);
  const offered: Offered = {
    requestsPerSecond: plans.reduce((sum, plan) => sum + plan.rate, 0),
    connections: plans.length,
    flows: flows.map((flow) => ({
      name: flow.name,
      requestsPerSecond: plans.filter((plan) => plan.flow === flow).reduce((sum, plan) => sum + plan.rate, 0),
      connections: plans.filter((plan) => plan.flow === flow).length,
    })),
  };
  log(`offering ${offered.requestsPerSecond} req/s over ${offered.connections} connections for ${clock(settings.durationSeconds)}`);

  const problems: string[] = [];
  const rssStart = services.map((service) => service.rss() / MiB);
  const intervals: IntervalRow[] = [];
  const started = performance.now();
  const elapsed = () => (performance.now() - started) / 1000;
  const done: Promise<void>[] = [];
  const runs: autocannon.Instance[] = [];

  let stopEarly: () => void = () => {};
  const interrupted = new Promise<void>((resolve) => (stopEarly = resolve));
  // Ctrl-C also reaches the service (same process group): stop the load, report, clean up.
  const onSignal = () => {
    log('interrupted: stopping the load and reporting what was measured');
    problems.push('interrupted (SIGINT)');
    stopEarly();
  };
  process.once('SIGINT', onSignal);

  // RSS twice a second: a garbage-collected heap saws up and down by tens of MiB, and the lowest
  // value of an interval (right after a collection) is what a leak would push up.
  const rssNow = () => services.map((service) => service.rss() / MiB);
  let low = rssNow();
  let high = rssNow();
  const rssSampler = setInterval(() => {
    const now = rssNow();
    low = low.map((value, i) => (now[i]! > 0 ? Math.min(value, now[i]!) : value));
    high = high.map((value, i) => Math.max(value, now[i]!));
  }, 500);

  let intervalStart = 0;
  const closeInterval = (to: number) => {
    const end = rssNow();
    const row = recorder.closeInterval(intervalStart, to, {
      rssMiB: end,
      rssLowMiB: low.map((value, i) => (end[i]! > 0 ? Math.min(value, end[i]!) : value)),
      rssHighMiB: high.map((value, i) => Math.max(value, end[i]!)),
    });
    low = end;
    high = end;
    intervalStart = to;
    intervals.push(row);
    log(
      `${clock(row.to)}  ${row.requestsPerSecond.toFixed(0)} req/s  p50 ${ms(row.p50)} ms  p99 ${ms(row.p99)} ms  ` +
        `errors ${row.errors}  RSS ${rssRange(row)} MiB  load ${row.load.toFixed(1)}`,
    );
    for (const [i, service] of services.entries()) {
      const ended = service.ended();
      if (ended && !problems.some((p) => p.startsWith(`instance ${i + 1}`))) {
        problems.push(`instance ${i + 1} ended during the soak (${ended})`);
        stopEarly();
      }
    }
  };

  for (const [i, plan] of plans.entries()) {
    if (i > 0) await new Promise((resolve) => setTimeout(resolve, 1000 / plans.length));
    let finished: (error?: unknown) => void = () => {};
    done.push(new Promise((resolve, reject) => (finished = (error) => (error ? reject(error) : resolve()))));
    const run = autocannon(
      {
        url: plan.service.url,
        connections: 1,
        connectionRate: plan.rate,
        requests: plan.flow.build(),
        timeout: 10,
        // Stopped by hand at the deadline; this only guards against a runaway run.
        duration: settings.durationSeconds + 60,
      },
      (error) => finished(error),
    );
    run.on('response', (_client, _status, _bytes, responseTime) => recorder.response(responseTime));
    run.on('reqError', (error) => recorder.socketError(error));
    runs.push(run);
  }

  // An interval closes every `interval` seconds; the last one closes at the deadline, so a
  // duration that is a multiple of the interval does not leave a sliver of an interval behind.
  let stopped = false;
  void interrupted.then(() => (stopped = true));
  const deadline = settings.durationSeconds;
  while (!stopped) {
    const nextTick = intervalStart + settings.intervalSeconds;
    const last = nextTick >= deadline - 0.5;
    const wait = ((last ? deadline : nextTick) - elapsed()) * 1000;
    await Promise.race([new Promise((resolve) => setTimeout(resolve, Math.max(0, wait))), interrupted]);
    if (stopped || last) break;
    closeInterval(nextTick);
  }
  const stoppedAt = Math.min(elapsed(), deadline);
  // autocannon stops its clients on its next one-second tick: answers until then count, in the
  // last interval (its rate is taken over the time until the stop).
  for (const run of runs) run.stop();
  await Promise.all(done);
  process.removeListener('SIGINT', onSignal);
  closeInterval(Math.max(stoppedAt, intervalStart + 0.001));
  clearInterval(rssSampler);

  // Still answering after the soak?
  for (const [i, service] of services.entries()) {
    try {
      const health = await fetch(`${service.url}/healthz`, { signal: AbortSignal.timeout(10_000) });
      if (!health.ok) problems.push(`instance ${i + 1}: /healthz answered ${health.status} after the soak`);
    } catch (error) {
      if (!problems.some((p) => p.startsWith(`instance ${i + 1}`)))
        problems.push(`instance ${i + 1}: /healthz failed after the soak (${String(error)})`);
    }
  }

  return { offered, intervals, problems, memory: memory(services, rssStart, intervals) };
}

/**
 * RSS before the load, after warm-up, at the end and at its peak; growth after warm-up and its
 * trend. "After warm-up" and "end" are floors: the lowest RSS of three intervals (from the one
 * ending at 20 % of the run, at least the first; and the last three), because a single sample
 * lands anywhere on the collector's saw. Printed, never asserted: a cache filling up and a leak
 * look alike over minutes, only a longer run tells them apart, so "grew" is a prompt to run
 * longer, not a failure.
 */
function memory(services: ServerProcess[], rssStart: number[], intervals: IntervalRow[]) {
  // Warm-up: the first interval (its lowest RSS is the idle service's) and the first 20 % of the run.
  const warm = intervals.findIndex((row) => row.from >= Math.max(settings.intervalSeconds, 0.2 * settings.durationSeconds) - 0.5);
  const baselineIndex = warm === -1 ? intervals.length : warm;
  const longEnough = intervals.length - baselineIndex >= 6;
  return services.map((service, i) => {
    const floors = intervals.map((row) => ({ minute: row.to / 60, mib: row.rssLowMiB[i]! }));
    const floorOf = (rows: typeof floors) => Math.min(...rows.map((row) => row.mib));
    const afterWarmUpRows = floors.slice(baselineIndex, baselineIndex + 3);
    const endRows = floors.slice(Math.max(baselineIndex, floors.length - 3));
    const afterWarmUp = afterWarmUpRows.length > 0 ? floorOf(afterWarmUpRows) : 0;
    const end = endRows.length > 0 ? floorOf(endRows) : 0;
    const growth = end - afterWarmUp;
    const growthPercent = afterWarmUp > 0 ? (growth / afterWarmUp) * 100 : 0;
    const tail = floors.slice(baselineIndex);
    // A slope over less than two minutes says more about warm-up than about a trend.
    const span = tail.length > 0 ? tail[tail.length - 1]!.minute - tail[0]!.minute : 0;
    const trend =
      tail.length >= 3 && span >= 2
        ? slope(
            tail.map((s) => s.minute),
            tail.map((s) => s.mib),
          )
        : null;
    const flat = Math.abs(growth) <= Math.max(20, afterWarmUp * 0.1);
    const ended = service.ended();
    return {
      instance: i + 1,
      startMiB: rssStart[i]!,
      afterWarmUpFloorMiB: afterWarmUp,
      afterWarmUpFrom: (intervals[baselineIndex]?.from ?? 0) / 60,
      endFloorMiB: end,
      peakMiB: service.peakRss() / MiB,
      growthMiB: growth,
      growthPercent,
      trendMiBPerMinute: trend,
      judged: longEnough && !ended,
      verdict: ended
        ? `no verdict: the process ended during the soak (${ended})`
        : !longEnough
          ? 'too short to judge growth (it needs six intervals after warm-up)'
          : flat
            ? 'no growth beyond noise (within the larger of 20 MiB and 10 %)'
            : growth > 0
              ? 'grew: run longer (--duration 30m); a cache levels off, a leak keeps climbing'
              : 'shrank after warm-up',
    };
  });
}

/** Least-squares slope of y over x. */
function slope(xs: number[], ys: number[]): number {
  const n = xs.length;
  const mx = xs.reduce((a, b) => a + b, 0) / n;
  const my = ys.reduce((a, b) => a + b, 0) / n;
  let num = 0;
  let den = 0;
  for (let i = 0; i < n; i++) {
    num += (xs[i]! - mx) * (ys[i]! - my);
    den += (xs[i]! - mx) ** 2;
  }
  return den === 0 ? 0 : num / den;
}

// ---------------------------------------------------------------------------------------------
// Where the data lives

async function createStore(): Promise<Store> {
  const run = `soak_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
  if (settings.postgres) {
    const serverUrl = settings.postgres;
    await withPostgres(serverUrl, (client) => client.query(`create schema ${run}`));
    // Every connection of the service (and of the seeding) works inside the run's own schema.
    const databaseUrl = inSchema(serverUrl, run);
    const redis = settings.redis;
    return {
      env: serviceEnv(databaseUrl, redis ? { REDIS_URL: redis, REDIS_KEY_PREFIX: `${run}:` } : {}),
      describe: `PostgreSQL schema ${run}${redis ? `, Redis prefix ${run}:` : ', counters in memory'}, ${settings.instances} instance(s)`,
      async drop() {
        await withPostgres(serverUrl, (client) => client.query(`drop schema if exists ${run} cascade`));
        if (redis) await deleteRedisKeys(redis, `${run}:*`);
      },
    };
  }
  const dir = join(ROOT, 'bench', '.data', run);
  mkdirSync(dir, { recursive: true });
  return {
    env: serviceEnv(`sqlite:${join(dir, 'soak.db')}`, settings.redis ? { REDIS_URL: settings.redis, REDIS_KEY_PREFIX: `${run}:` } : {}),
    describe: `SQLite ${join('bench', '.data', run, 'soak.db')}${settings.redis ? `, Redis prefix ${run}:` : ''}`,
    async drop() {
      rmSync(dir, { recursive: true, force: true });
      if (settings.redis) await deleteRedisKeys(settings.redis, `${run}:*`);
    },
  };
}

// ---------------------------------------------------------------------------------------------
// The report

function stepRows(recorder: Recorder) {
  const total = [...recorder.steps.values()].reduce((sum, step) => sum + step.latencies.length, 0);
  return [...recorder.steps].map(([name, step]) => ({
    name,
    requests: step.latencies.length,
    share: total > 0 ? (step.latencies.length / total) * 100 : 0,
    ...percentiles(step.latencies),
    errors: step.errors,
  }));
}

function render(
  result: Awaited<ReturnType<typeof soak>>,
  recorder: Recorder,
  seeded: Seeded,
  store: Store,
  serverLogLines: number,
  logLines: string[],
): string {
  const m = machine();
  const { intervals, offered } = result;
  const total = intervals.reduce((sum, row) => sum + row.requests, 0);
  const seconds = intervals[intervals.length - 1]?.to ?? 0;
  const errors = recorder.totalErrors();
  const lines = [
    '# Scoreboard soak',
    '',
    `${m.date} · ${m.cores} cores (${m.cpu}) · ${m.memoryGiB} GiB · Node ${m.node} · ${clock(seconds)} at ${offered.requestsPerSecond} req/s offered ` +
      `over ${offered.connections} connections · ${seeded.projectIds.length} projects, ${seeded.reports} reports · ${store.describe}`,
    '',
    `**${total} requests, ${(total / Math.max(seconds, 0.001)).toFixed(0)} req/s, ${errors} errors**` +
      (result.problems.length > 0 ? ` · ${result.problems.join('; ')}` : ''),
    '',
    '## Over time',
    '',
    `| time | req/s | p50 ms | p99 ms | max ms | errors | RSS MiB low-high${result.memory.length > 1 ? ' (per instance)' : ''} | load |`,
    '|---|---:|---:|---:|---:|---:|---:|---:|',
    ...intervals.map(
      (row) =>
        `| ${clock(row.to)} | ${row.requestsPerSecond.toFixed(0)} | ${ms(row.p50)} | ${ms(row.p99)} | ${ms(row.max)} | ${row.errors} | ` +
        `${rssRange(row)} | ${row.load.toFixed(1)} |`,
    ),
    '',
    '## Per request',
    '',
    '| request | share | requests | p50 ms | p99 ms | max ms | errors |',
    '|---|---:|---:|---:|---:|---:|---:|',
    ...stepRows(recorder).map(
      (row) =>
        `| ${row.name} | ${row.share.toFixed(1)} % | ${row.requests} | ${ms(row.p50)} | ${ms(row.p99)} | ${ms(row.max)} | ${row.errors} |`,
    ),
    '',
    '## Errors',
    '',
  ];
  if (errors === 0) lines.push('None: every request got a 2xx answer, no socket error, no timeout.');
  else {
    lines.push('| kind | count | first answer |', '|---|---:|---|');
    for (const [kind, { count, sample }] of recorder.errors) lines.push(`| ${kind} | ${count} | ${sample.replace(/[|\n]/g, ' ')} |`);
  }
  lines.push('', '## Memory (service RSS)', '');
  for (const mem of result.memory) {
    const who = result.memory.length > 1 ? `Instance ${mem.instance}: ` : '';
    const measured = mem.judged
      ? `lowest after warm-up (three intervals from ${clock(mem.afterWarmUpFrom * 60)}) ${mem.afterWarmUpFloorMiB.toFixed(0)} MiB; ` +
        `lowest in the last three intervals ${mem.endFloorMiB.toFixed(0)} MiB; peak ${mem.peakMiB.toFixed(0)} MiB. ` +
        `Growth after warm-up: ${signed(mem.growthMiB)} MiB (${signed(mem.growthPercent)} %)` +
        (mem.trendMiBPerMinute === null ? '' : `, trend ${signed(mem.trendMiBPerMinute, 2)} MiB/min`)
      : `peak ${mem.peakMiB.toFixed(0)} MiB`;
    lines.push(`${who}before load ${mem.startMiB.toFixed(0)} MiB; ${measured}: ${mem.verdict}.`);
  }
  lines.push('', `Service log lines at warn or above: ${serverLogLines}.`);
  for (const line of logLines) lines.push(`    ${line}`);
  return `${lines.join('\n')}\n`;
}

// ---------------------------------------------------------------------------------------------
// Small things

/** `90`, `90s`, `5m`, `1m30s`, `1h` → seconds. */
function parseDuration(text: string, option: string): number {
  const match = /^(?:(\d+(?:\.\d+)?)h)?(?:(\d+(?:\.\d+)?)m)?(?:(\d+(?:\.\d+)?)s?)?$/.exec(text.trim());
  const seconds = match ? Number(match[1] ?? 0) * 3600 + Number(match[2] ?? 0) * 60 + Number(match[3] ?? 0) : NaN;
  if (!(seconds > 0)) usage(`--${option} must be a duration such as 90s, 5m or 1m30s (got "${text}")`);
  return seconds;
}

function positiveInteger(text: string, option: string): number {
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1) usage(`--${option} must be a positive integer (got "${text}")`);
  return value;
}

function usage(message: string): never {
  process.stderr.write(`${message}\n${USAGE}\n`);
  process.exit(2);
}

/** `low-high` RSS of an interval, per instance. */
function rssRange(row: IntervalRow): string {
  return row.rssLowMiB.map((low, i) => `${low.toFixed(0)}-${row.rssHighMiB[i]!.toFixed(0)}`).join(' / ');
}

/** m:ss, to the nearest second. */
function clock(seconds: number): string {
  const whole = Math.round(seconds);
  return `${Math.floor(whole / 60)}:${String(whole % 60).padStart(2, '0')}`;
}
const ms = (value: number) => (value < 10 ? value.toFixed(1) : value.toFixed(0));
const signed = (value: number, digits = 0) => `${value >= 0 ? '+' : ''}${value.toFixed(digits)}`;

function log(message: string): void {
  process.stderr.write(`[soak] ${message}\n`);
}

await main();
