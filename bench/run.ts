import autocannon from 'autocannon';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { machine, serviceEnv, startServer, type ServerProcess } from './processes.js';
import { seed, type Seeded } from './seed.js';

/**
 * `npm run bench` (issue 6): seeds a fresh database, starts the service and a bare Fastify server
 * (the ceiling) as separate processes with production settings, drives each scenario with
 * autocannon from this process, and reports throughput, latency, errors, the ratio to the ceiling,
 * SQL statements per request and memory. `--smoke` runs everything tiny and short (CI).
 */
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const { values: args } = parseArgs({
  options: {
    smoke: { type: 'boolean', default: false },
    duration: { type: 'string' },
    warmup: { type: 'string' },
    connections: { type: 'string', default: '32' },
    'leak-requests': { type: 'string' },
    only: { type: 'string' },
  },
});
const smoke = args.smoke!;
const settings = {
  projects: smoke ? 60 : 10_000,
  reportsPerProject: smoke ? 3 : 10,
  warmupSeconds: Number(args.warmup ?? (smoke ? 0.5 : 3)),
  durationSeconds: Number(args.duration ?? (smoke ? 1 : 10)),
  connections: Number(args.connections),
  // RSS after this many requests is compared with RSS after a tenth of them (0: skip).
  leakRequests: Number(args['leak-requests'] ?? (smoke ? 0 : 1_000_000)),
};

interface Scenario {
  name: string;
  /** What SQL-statement counting and the load send; `requests` chains several (create then delete). */
  requests: autocannon.Request[];
  /** For the statement count: one request per step, in order. */
  steps: { method: string; path: (context: Record<string, string>) => string; body?: string; token: 'user' | 'project' }[];
}

interface Measured {
  name: string;
  requestsPerSecond: number;
  p50: number;
  p99: number;
  errors: number;
  ratio: number | null;
  statements: string;
}

async function main(): Promise<void> {
  const dataDir = join(ROOT, 'bench', '.data', 'bench');
  rmSync(dataDir, { recursive: true, force: true });
  mkdirSync(dataDir, { recursive: true });
  const databaseFile = join(dataDir, 'bench.db');
  // The rate limiter stays on; the budgets are only made large enough never to answer 429.
  const env = serviceEnv(`sqlite:${databaseFile}`);

  log(`seeding ${settings.projects} projects x ${settings.reportsPerProject} reports`);
  const started = Date.now();
  const seeded = await seed({ root: ROOT, env, projects: settings.projects, reportsPerProject: settings.reportsPerProject });
  log(`seeded ${seeded.reports} reports in ${((Date.now() - started) / 1000).toFixed(1)} s`);

  const scenarios = buildScenarios(seeded).filter((s) => !args.only || s.name.includes(args.only));

  // Cost per request: the service with X-SQL-Statements on, one request of each step.
  const counting = await startServer([join(ROOT, 'bin/scoreboard.js'), 'serve'], { ...env, SQL_STATEMENT_HEADER: 'true' }, '/healthz');
  const statements = new Map<string, string>();
  for (const scenario of scenarios) statements.set(scenario.name, await countStatements(counting.url, scenario, seeded));
  await counting.stop();

  const ceilingServer = await startServer([join(ROOT, 'bench/.build/hello.js')], env, '/hello');
  const ceiling = await load(ceilingServer.url, [{ method: 'GET', path: '/hello' }]);
  await ceilingServer.stop();
  log(`ceiling: ${ceiling.requestsPerSecond.toFixed(0)} req/s`);

  const service = await startServer([join(ROOT, 'bin/scoreboard.js'), 'serve'], env, '/healthz');
  const rows: Measured[] = [{ name: 'ceiling: bare Fastify GET /hello', ...ceiling, ratio: 1, statements: '-' }];
  for (const scenario of scenarios) {
    const result = await load(service.url, withAuth(scenario.requests, seeded));
    rows.push({ name: scenario.name, ...result, ratio: result.requestsPerSecond / ceiling.requestsPerSecond, statements: statements.get(scenario.name)! });
    log(`${scenario.name}: ${result.requestsPerSecond.toFixed(0)} req/s, p99 ${result.p99} ms, ${result.errors} errors`);
  }

  let memory = { peakRssMiB: service.peakRss() / 2 ** 20, afterTenthMiB: null as number | null, afterAllMiB: null as number | null, requests: 0 };
  if (settings.leakRequests > 0) memory = { ...memory, ...(await leakCheck(service, seeded)) };
  memory.peakRssMiB = service.peakRss() / 2 ** 20;
  await service.stop();

  const report = render(rows, memory);
  process.stdout.write(`\n${report}\n`);
  const resultsDir = join(ROOT, 'bench', 'results');
  mkdirSync(resultsDir, { recursive: true });
  writeFileSync(join(resultsDir, smoke ? 'smoke.md' : 'latest.md'), report);
  writeFileSync(join(resultsDir, smoke ? 'smoke.json' : 'latest.json'), JSON.stringify({ machine: machine(), settings, rows, memory }, null, 2));
  if (!smoke) rmSync(dataDir, { recursive: true, force: true });
  const failed = rows.filter((row) => row.errors > 0);
  if (failed.length > 0) {
    process.stderr.write(`errors in: ${failed.map((row) => row.name).join(', ')}\n`);
    process.exitCode = 1;
  }
}

function buildScenarios(seeded: Seeded): Scenario[] {
  const show = seeded.projectIds[Math.floor(seeded.projectIds.length / 2)]!;
  const deepPage = Math.min(500, Math.ceil(seeded.projectIds.length / 20));
  const upload = readFileSync(join(ROOT, 'test/fixtures/client-wire/reports/report-full.json'), 'utf8').replace(
    '0190c8a0-0000-7000-8000-000000000001',
    'unknown',
  );
  const project = JSON.stringify({ name: 'Bench', framework_version: '11' });
  const json = { 'content-type': 'application/json' };
  return [
    {
      name: 'GET /api/v1/projects/{id}',
      requests: [{ method: 'GET', path: `/api/v1/projects/${show}` }],
      steps: [{ method: 'GET', path: () => `/api/v1/projects/${show}`, token: 'user' }],
    },
    {
      name: 'GET /api/v1/projects?page=1',
      requests: [{ method: 'GET', path: '/api/v1/projects?page=1' }],
      steps: [{ method: 'GET', path: () => '/api/v1/projects?page=1', token: 'user' }],
    },
    {
      name: `GET /api/v1/projects?page=${deepPage}`,
      requests: [{ method: 'GET', path: `/api/v1/projects?page=${deepPage}` }],
      steps: [{ method: 'GET', path: () => `/api/v1/projects?page=${deepPage}`, token: 'user' }],
    },
    {
      name: 'GET /api/v1/tokens',
      requests: [{ method: 'GET', path: '/api/v1/tokens' }],
      steps: [{ method: 'GET', path: () => '/api/v1/tokens', token: 'user' }],
    },
    {
      name: 'POST /api/reports (report-full.json)',
      requests: [{ method: 'POST', path: '/api/reports', headers: { ...json, 'x-token': 'project' }, body: upload }],
      steps: [{ method: 'POST', path: () => '/api/reports', body: upload, token: 'project' }],
    },
    {
      name: 'POST /api/v1/projects + DELETE',
      requests: [
        {
          method: 'POST',
          path: '/api/v1/projects',
          headers: json,
          body: project,
          onResponse: (status, body, context) => {
            if (status === 201) (context as Record<string, string>).id = JSON.parse(body).project.id;
          },
        },
        {
          method: 'DELETE',
          setupRequest: (request, context) => ({ ...request, path: `/api/v1/projects/${(context as Record<string, string>).id}` }),
        },
      ],
      steps: [
        { method: 'POST', path: () => '/api/v1/projects', body: project, token: 'user' },
        { method: 'DELETE', path: (context) => `/api/v1/projects/${context.id}`, token: 'user' },
      ],
    },
  ];
}

/** Bearer tokens per request: the personal token, or the project's for `x-token: project`. */
function withAuth(requests: autocannon.Request[], seeded: Seeded): autocannon.Request[] {
  return requests.map((request) => {
    const { 'x-token': which, ...headers } = (request.headers ?? {}) as Record<string, string>;
    return { ...request, headers: { ...headers, authorization: `Bearer ${which === 'project' ? seeded.apiToken : seeded.token}` } };
  });
}

/** SQL statements per step, read from X-SQL-Statements on a second run (the first may write last_used_at). */
async function countStatements(base: string, scenario: Scenario, seeded: Seeded): Promise<string> {
  let counts: number[] = [];
  for (let round = 0; round < 2; round++) {
    const context: Record<string, string> = {};
    counts = [];
    for (const step of scenario.steps) {
      const response = await fetch(`${base}${step.path(context)}`, {
        method: step.method,
        headers: {
          authorization: `Bearer ${step.token === 'project' ? seeded.apiToken : seeded.token}`,
          ...(step.body ? { 'content-type': 'application/json' } : {}),
        },
        body: step.body,
      });
      const text = await response.text();
      if (!response.ok) throw new Error(`${step.method} ${step.path(context)} answered ${response.status}: ${text.slice(0, 300)}`);
      if (step.method === 'POST' && step.path(context) === '/api/v1/projects') context.id = JSON.parse(text).project.id;
      counts.push(Number(response.headers.get('x-sql-statements')));
    }
  }
  return counts.join(' + ');
}

async function load(base: string, requests: autocannon.Request[]) {
  const run = (duration: number) =>
    autocannon({ url: base, connections: settings.connections, duration, requests, timeout: 10 });
  if (settings.warmupSeconds > 0) await run(settings.warmupSeconds);
  const result = await run(settings.durationSeconds);
  return {
    requestsPerSecond: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    // Non-2xx answers count as errors, with socket errors and timeouts.
    errors: result.non2xx + result.errors + result.timeouts,
  };
}

/** RSS after a tenth of `leakRequests` show requests, and after all of them. */
async function leakCheck(service: ServerProcess, seeded: Seeded) {
  const show = seeded.projectIds[0]!;
  const requests = withAuth([{ method: 'GET', path: `/api/v1/projects/${show}` }], seeded);
  const send = (amount: number) => autocannon({ url: service.url, connections: settings.connections, amount, requests, timeout: 10 });
  const tenth = Math.floor(settings.leakRequests / 10);
  log(`memory: ${settings.leakRequests} requests`);
  await send(tenth);
  const afterTenthMiB = service.rss() / 2 ** 20;
  await send(settings.leakRequests - tenth);
  const afterAllMiB = service.rss() / 2 ** 20;
  return { afterTenthMiB, afterAllMiB, requests: settings.leakRequests };
}

function render(rows: Measured[], memory: { peakRssMiB: number; afterTenthMiB: number | null; afterAllMiB: number | null; requests: number }): string {
  const m = machine();
  const lines = [
    `# Scoreboard benchmark${smoke ? ' (smoke)' : ''}`,
    '',
    `${m.date} · ${m.cores} cores (${m.cpu}) · ${m.memoryGiB} GiB · Node ${m.node} · ${settings.connections} connections, ` +
      `${settings.warmupSeconds} s warm-up, ${settings.durationSeconds} s per scenario · ${settings.projects} projects, ` +
      `${settings.projects * settings.reportsPerProject} reports`,
    '',
    '| scenario | req/s | p50 ms | p99 ms | errors | ratio to ceiling | SQL statements per request |',
    '|---|---:|---:|---:|---:|---:|---|',
    ...rows.map(
      (row) =>
        `| ${row.name} | ${row.requestsPerSecond.toFixed(0)} | ${row.p50} | ${row.p99} | ${row.errors} | ${row.ratio === null ? '-' : row.ratio.toFixed(2)} | ${row.statements} |`,
    ),
    '',
    `Service peak RSS: ${memory.peakRssMiB.toFixed(0)} MiB.`,
  ];
  if (memory.afterAllMiB !== null && memory.afterTenthMiB !== null) {
    lines.push(
      `RSS after ${memory.requests / 10} requests: ${memory.afterTenthMiB.toFixed(0)} MiB; after ${memory.requests}: ` +
        `${memory.afterAllMiB.toFixed(0)} MiB (${(((memory.afterAllMiB - memory.afterTenthMiB) / memory.afterTenthMiB) * 100).toFixed(1)} %).`,
    );
  }
  return lines.join('\n') + '\n';
}

function log(message: string): void {
  process.stderr.write(`[bench] ${message}\n`);
}

await main();
