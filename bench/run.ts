import autocannon from 'autocannon';
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { execFileSync } from 'node:child_process';
import { heavyReport, longMessageReport, runHeavyReports, runStalledReaders } from './heavy-reports.js';
import { runSignInStorm } from './sign-in-storm.js';
import { machine, SERVICE_NODE_FLAGS, serviceEnv, startServer, type ServerProcess } from './processes.js';
import { distinctRuns } from './distinct-runs.js';
import { seed, type Seeded } from './seed.js';
import { deleteRedisKeys, inSchema, pingRedis, redactUrl, withPostgres } from './stores.js';
import { renderExplained, renderScale, runScaleBench } from './scale.js';

/**
 * `npm run bench` (issue 6): seeds a fresh database, starts the service and a bare Fastify server
 * (the ceiling) as separate processes with production settings, drives each scenario with
 * autocannon from this process, and reports throughput, latency, errors, the ratio to the ceiling,
 * SQL statements per request and memory. Issue 15 item 4: the scenario table runs on SQLite, then
 * on PostgreSQL with Redis counters and two instances (`--database sqlite|postgres|both`), each
 * PostgreSQL row with its ratio to SQLite's. `--smoke` runs everything tiny and short (CI).
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
    // Issue 15 item 4: the scenario table on SQLite, on PostgreSQL with Redis (two instances), or both.
    database: { type: 'string', default: 'both' },
    // Issue 15 item 5: the small seed against 1,000,000 reports (scale.ts), part of every full run
    // (about 30 minutes); `--skip-scale` leaves it out, `--only scale` runs it alone.
    'skip-scale': { type: 'boolean', default: false },
    // Rounds per scale scenario, each --duration long (the medians are kept): 3, or 1 in a smoke run.
    'scale-rounds': { type: 'string' },
    'scale-postgres-url': { type: 'string', default: process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres' },
  },
});
const smoke = args.smoke!;
if (!['sqlite', 'postgres', 'both'].includes(args.database!)) {
  process.stderr.write(`--database is sqlite, postgres or both, not ${args.database}\n`);
  process.exit(2);
}
const databases = args.database === 'both' ? ['sqlite', 'postgres'] : [args.database!];
const settings = {
  projects: smoke ? 60 : 10_000,
  reportsPerProject: smoke ? 3 : 10,
  // Issue 13: projects whose null branch holds a run of report-large.json; large uploads rotate among them.
  largeProjects: smoke ? 2 : 8,
  // Runs of report-large.json in one project, for the changes list and a report list of large runs.
  changesProjectRuns: smoke ? 3 : 20,
  // Requests over a 3,972-issue report (4 MB uploads, its changes list, its exports) take tens to
  // hundreds of ms each: 32 in flight would queue them for seconds (near the 10 s timeout, and
  // longer than a smoke run) without adding throughput on a 2-core machine.
  heavyConnections: 2,
  // A smoke run asserts nothing about speed: no warm-up (it has some twenty scenarios of a second).
  warmupSeconds: Number(args.warmup ?? (smoke ? 0 : 3)),
  durationSeconds: Number(args.duration ?? (smoke ? 1 : 10)),
  connections: Number(args.connections),
  // RSS after this many requests is compared with RSS after a tenth of them (0: skip).
  leakRequests: Number(args['leak-requests'] ?? (smoke ? 0 : 1_000_000)),
};

/**
 * Whose bearer token a request carries: the user's personal token, the API token of the first
 * project (`project`), or of the projects seeded for large uploads (`large`: the load rotates among
 * them, the statement count uses the first); `none` for the public badges.
 */
type TokenKind = 'user' | 'project' | 'large' | 'none';

interface Scenario {
  name: string;
  /**
   * What SQL-statement counting and the load send; `requests` chains several (create then delete).
   * `x-token: project|large` in a request's headers picks the token (else the user's).
   */
  requests: autocannon.Request[];
  /** For the statement count: one request per step, in order. */
  steps: { method: string; path: (context: Record<string, string>) => string; body?: string | (() => string); token: TokenKind }[];
  /** Requests over a 3,972-issue report: loaded with `heavyConnections`, not `--connections`. */
  heavy?: boolean;
  /**
   * An endpoint other work adds (issue 13's E2/E3): the scenario runs only when the service's
   * OpenAPI document has this path, so the harness works before and after it exists.
   */
  requiresPath?: string;
}

interface Measured {
  name: string;
  requestsPerSecond: number;
  p50: number;
  p99: number;
  errors: number;
  /** What the errors were (`503 x3, timeouts x21`), empty without errors. */
  errorKinds?: string;
  ratio: number | null;
  statements: string;
  /** PostgreSQL's rows: req/s over the SQLite figure of the same scenario in the same run (null without one). */
  ratioToSqlite?: number | null;
}

/** Where a scenario table runs: a database (and Redis) and how many service instances share it. */
interface Backend {
  name: 'sqlite' | 'postgres';
  /** The table's heading. */
  title: string;
  /** What the table's line says about the store, without credentials. */
  describe: string;
  /** The services' environment (DATABASE_URL, REDIS_URL and its prefix). */
  env: NodeJS.ProcessEnv;
  instances: number;
  /** Deletes what the run created (the SQLite file; the PostgreSQL database or schema, the Redis keys). */
  drop(): Promise<void>;
}

interface Memory {
  /** Each instance's peak RSS. */
  peakRssMiB: number[];
  afterTenthMiB: number | null;
  afterAllMiB: number | null;
  requests: number;
}

/** One backend's scenario table. */
interface Table {
  backend: Backend['name'];
  title: string;
  describe: string;
  instances: number;
  seedSeconds: number;
  reports: number;
  rows: Measured[];
  memory: Memory;
}

/** A PostgreSQL target ratio to SQLite (issue 15 item 4). */
const POSTGRES_TARGET = 0.6;

async function main(): Promise<void> {
  if (databases.includes('postgres')) await checkPostgresTargets();
  const dataDir = join(ROOT, 'bench', '.data', 'bench');
  rmSync(dataDir, { recursive: true, force: true });
  mkdirSync(dataDir, { recursive: true });
  if (args.only === 'scale') return void (await scaleBench(dataDir));

  // The ceiling, once for both tables: a bare server is the same on either database.
  const ceilingServer = await startServer([join(ROOT, 'bench/.build/hello.js')], serviceEnv('sqlite::memory:'), '/hello');
  const ceiling = await load([ceilingServer.url], [{ method: 'GET', path: '/hello' }], settings);
  await ceilingServer.stop();
  log(`ceiling: ${ceiling.requestsPerSecond.toFixed(0)} req/s`);

  const tables: Table[] = [];
  if (databases.includes('sqlite')) {
    tables.push(await runScenarioTable(sqliteBackend(dataDir), ceiling));
  }
  if (databases.includes('postgres')) {
    const sqlite = tables.find((table) => table.backend === 'sqlite');
    const table = await runScenarioTable(await postgresBackend(), ceiling);
    for (const row of table.rows) {
      const same = sqlite?.rows.find((other) => other.name === row.name);
      row.ratioToSqlite = same && same.requestsPerSecond > 0 ? row.requestsPerSecond / same.requestsPerSecond : null;
    }
    tables.push(table);
  }

  // D28 and the storage per report: SQLite's (their own fresh databases), run with SQLite's table.
  const withSqlite = databases.includes('sqlite');
  const heavy =
    withSqlite && (!args.only || 'd28 d33 heavy reports'.includes(args.only.toLowerCase())) ? await heavyReportsBench(dataDir) : null;
  const signInStorm =
    withSqlite && (!args.only || 'd30 sign-in storm'.includes(args.only.toLowerCase())) ? await signInStormBench(dataDir) : null;
  const storage = withSqlite && !args.only ? await storageBench(dataDir) : null;

  // Issue 15 item 5 (about 30 minutes more); a smoke run has a tiny one on SQLite.
  const scale = !args.only && !args['skip-scale'] ? await scaleBench(dataDir) : '';

  const report =
    renderHeader() +
    tables.map(render).join('') +
    (heavy ? renderHeavy(heavy) : '') +
    (signInStorm ? renderSignInStorm(signInStorm) : '') +
    (storage ? renderStorage(storage) : '') +
    scale;
  process.stdout.write(`\n${report}\n`);
  const resultsDir = join(ROOT, 'bench', 'results');
  mkdirSync(resultsDir, { recursive: true });
  writeFileSync(join(resultsDir, smoke ? 'smoke.md' : 'latest.md'), report);
  const sqlite = tables.find((table) => table.backend === 'sqlite');
  writeFileSync(
    join(resultsDir, smoke ? 'smoke.json' : 'latest.json'),
    JSON.stringify(
      // `rows` and `memory` stay SQLite's, as before issue 15 item 4; `tables` has every backend's.
      {
        machine: machine(),
        settings,
        ceiling,
        rows: sqlite?.rows ?? null,
        memory: sqlite?.memory ?? null,
        tables,
        heavy,
        signInStorm,
        storage,
      },
      null,
      2,
    ),
  );
  if (!smoke) rmSync(dataDir, { recursive: true, force: true });
  const failed = tables.flatMap((table) => table.rows.filter((row) => row.errors > 0).map((row) => `${row.name} (${table.backend})`));
  if (heavy && heavy.result.errors.length > 0) failed.push('D28');
  if (signInStorm && signInStorm.result.errors.length > 0) failed.push('D30');
  if (failed.length > 0) {
    process.stderr.write(`errors in: ${failed.join(', ')}\n`);
    process.exitCode = 1;
  }
}

/** The SQLite file of the benchmark (deleted with `dataDir` at the end of a full run). */
function sqliteBackend(dataDir: string): Backend {
  const file = join(dataDir, 'bench.db');
  return {
    name: 'sqlite',
    title: 'SQLite, one instance',
    describe: `SQLite ${join('bench', '.data', 'bench', 'bench.db')}, rate-limit counters in memory, 1 instance`,
    // The rate limiter stays on; the budgets are only made large enough never to answer 429.
    env: serviceEnv(`sqlite:${file}`),
    instances: 1,
    async drop() {
      if (!smoke) for (const suffix of ['', '-wal', '-shm']) rmSync(file + suffix, { force: true });
    },
  };
}

/**
 * Issue 15 item 4: PostgreSQL with the rate-limit counters in Redis, two instances on the same
 * database and Redis. BENCH_DATABASE_URL names a database to work in (a schema of the run's own is
 * created there and dropped afterwards); without it, a database of the run's own is created on
 * postgres://postgres@127.0.0.1:5432 and dropped afterwards. BENCH_REDIS_URL (default
 * redis://127.0.0.1:6379): the counters' keys have a prefix of the run's own, deleted afterwards.
 */
async function postgresBackend(): Promise<Backend> {
  const run = `scoreboard_bench_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
  const { redisUrl, given, server } = postgresTargets();
  const redis = { REDIS_URL: redisUrl, REDIS_KEY_PREFIX: `${run}:` };
  const dropKeys = () => deleteRedisKeys(redisUrl, `${run}:*`);
  const instances = 2;
  const title = `PostgreSQL + Redis, ${instances} instances`;
  if (given) {
    await withPostgres(given, (client) => client.query(`create schema ${run}`));
    return {
      name: 'postgres',
      title,
      describe: `PostgreSQL ${redactUrl(given)} schema ${run}, Redis ${redactUrl(redisUrl)} prefix ${run}:, ${instances} instances`,
      env: serviceEnv(inSchema(given, run), redis),
      instances,
      async drop() {
        await withPostgres(given, (client) => client.query(`drop schema if exists ${run} cascade`));
        await dropKeys();
      },
    };
  }
  await withPostgres(`${server}/postgres`, (client) => client.query(`create database ${run}`));
  return {
    name: 'postgres',
    title,
    describe: `PostgreSQL ${server}/${run}, Redis ${redactUrl(redisUrl)} prefix ${run}:, ${instances} instances`,
    env: serviceEnv(`${server}/${run}`, redis),
    instances,
    async drop() {
      await withPostgres(`${server}/postgres`, (client) => client.query(`drop database if exists ${run} with (force)`));
      await dropKeys();
    },
  };
}

/** Where PostgreSQL and Redis are (BENCH_DATABASE_URL, BENCH_REDIS_URL, or the defaults). */
function postgresTargets() {
  return {
    redisUrl: process.env.BENCH_REDIS_URL || 'redis://127.0.0.1:6379',
    given: process.env.BENCH_DATABASE_URL || null,
    server: 'postgres://postgres@127.0.0.1:5432',
  };
}

/** Fails at once, before SQLite's ten minutes, when PostgreSQL or Redis cannot be reached. */
async function checkPostgresTargets(): Promise<void> {
  const { redisUrl, given, server } = postgresTargets();
  const database = given ?? `${server}/postgres`;
  try {
    await withPostgres(database, (client) => client.query('select 1'));
    await pingRedis(redisUrl);
  } catch (error) {
    process.stderr.write(
      `PostgreSQL (${redactUrl(database)}) or Redis (${redactUrl(redisUrl)}) cannot be reached: ${(error as Error).message}\n` +
        'Set BENCH_DATABASE_URL and BENCH_REDIS_URL, or run with --database sqlite.\n',
    );
    process.exit(2);
  }
}

/**
 * The scenario table on one backend: seed it, count each scenario's SQL statements (one instance
 * with SQL_STATEMENT_HEADER), then load `backend.instances` services on the same database with
 * autocannon, whose connections are dealt out among the instances in turn (`load`); on SQLite,
 * the memory check. Whatever the run created is dropped at the end, also on failure.
 */
async function runScenarioTable(backend: Backend, ceiling: Awaited<ReturnType<typeof load>>): Promise<Table> {
  const { env } = backend;
  const services: ServerProcess[] = [];
  try {
    log(`${backend.title}: seeding ${settings.projects} projects x ${settings.reportsPerProject} reports`);
    const started = Date.now();
    const seeded = await seed({
      root: ROOT,
      env,
      projects: settings.projects,
      reportsPerProject: settings.reportsPerProject,
      largeProjects: settings.largeProjects,
      changesProjectRuns: settings.changesProjectRuns,
    });
    const seedSeconds = (Date.now() - started) / 1000;
    log(`${backend.title}: seeded ${seeded.reports} reports in ${seedSeconds.toFixed(1)} s`);

    let scenarios = buildScenarios(seeded).filter((s) => !args.only || s.name.includes(args.only));

    // Cost per request: the service with X-SQL-Statements on, one request of each step.
    const counting = await startServer(
      [...SERVICE_NODE_FLAGS, join(ROOT, 'bin/scoreboard.js'), 'serve'],
      { ...env, SQL_STATEMENT_HEADER: 'true' },
      '/healthz',
    );
    services.push(counting);
    const paths = await documentedPaths(counting.url);
    scenarios = scenarios.filter((scenario) => {
      if (!scenario.requiresPath || paths.has(scenario.requiresPath)) return true;
      log(`skipped ${scenario.name}: the service has no ${scenario.requiresPath} yet`);
      return false;
    });
    const statements = new Map<string, string>();
    for (const scenario of scenarios) statements.set(scenario.name, await countStatements(counting.url, scenario, seeded));
    await counting.stop();
    services.length = 0;

    // One at a time: the first migrates (nothing to do after the seed), the others find it done.
    for (let i = 0; i < backend.instances; i++) {
      services.push(await startServer([...SERVICE_NODE_FLAGS, join(ROOT, 'bin/scoreboard.js'), 'serve'], env, '/healthz'));
    }
    const urls = services.map((service) => service.url);
    const rows: Measured[] = [{ name: 'ceiling: bare Fastify GET /hello', ...ceiling, ratio: 1, statements: '-' }];
    for (const scenario of scenarios) {
      const result = await load(urls, withAuth(scenario.requests, seeded), {
        connections: scenario.heavy ? settings.heavyConnections : settings.connections,
        warmupSeconds: settings.warmupSeconds,
      });
      rows.push({
        name: scenario.name,
        ...result,
        ratio: result.requestsPerSecond / ceiling.requestsPerSecond,
        statements: statements.get(scenario.name)!,
      });
      log(
        `${backend.name}: ${scenario.name}: ${result.requestsPerSecond.toFixed(0)} req/s, p99 ${result.p99} ms, ${result.errors} errors` +
          (result.errorKinds ? ` (${result.errorKinds})` : ''),
      );
    }

    let memory: Memory = { peakRssMiB: [], afterTenthMiB: null, afterAllMiB: null, requests: 0 };
    // The leak check drives one instance: SQLite's (a second backend would only repeat it).
    if (settings.leakRequests > 0 && backend.name === 'sqlite') memory = { ...memory, ...(await leakCheck(services[0]!, seeded)) };
    memory.peakRssMiB = services.map((service) => service.peakRss() / 2 ** 20);
    return {
      backend: backend.name,
      title: backend.title,
      describe: backend.describe,
      instances: backend.instances,
      seedSeconds,
      reports: seeded.reports,
      rows,
      memory,
    };
  } finally {
    for (const service of services) await service.stop();
    await backend.drop();
  }
}

/**
 * Issue 15 item 5 (scale.ts): the hot reads on the small seed and on 1,000,000 reports, on SQLite
 * and PostgreSQL (`--scale-postgres-url`, or BENCH_POSTGRES_URL; a smoke run uses it only when given).
 * Writes bench/results/scale.md (and .json, and the plans in scale-explain.md); returns the section.
 */
async function scaleBench(dataDir: string): Promise<string> {
  const given = process.argv.some((arg) => arg.startsWith('--scale-postgres-url')) || process.env.BENCH_POSTGRES_URL !== undefined;
  const result = await runScaleBench({
    root: ROOT,
    dataDir,
    smoke,
    postgresUrl: smoke && !given ? null : args['scale-postgres-url']!,
    // Three rounds of 5 s (the machine is shared: one long run can fall on someone else's burst).
    rounds: Number(args['scale-rounds'] ?? (smoke ? 1 : 3)),
    durationSeconds: args.duration ? settings.durationSeconds : smoke ? 1 : 5,
    warmupSeconds: settings.warmupSeconds,
    connections: settings.connections,
    heavyConnections: settings.heavyConnections,
    log,
  });
  const section = renderScale(result, smoke);
  const resultsDir = join(ROOT, 'bench', 'results');
  mkdirSync(resultsDir, { recursive: true });
  const name = smoke ? 'scale-smoke' : 'scale';
  writeFileSync(join(resultsDir, `${name}.md`), section);
  writeFileSync(join(resultsDir, `${name}-explain.md`), renderExplained(result));
  writeFileSync(join(resultsDir, `${name}.json`), JSON.stringify({ machine: machine(), ...result }, null, 2));
  if (args.only === 'scale') process.stdout.write(`${section}\n`);
  if (result.rows.some((row) => row.small.errors + row.large.errors > 0)) {
    process.stderr.write('errors in the scale part\n');
    process.exitCode = 1;
  }
  return section;
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

  // Issue 13. The report list, branch list and detail of the show project (10 reports: `main`,
  // and one pull request in five projects); its newest report for the detail.
  const showReport = seeded.reportIds[seeded.projectIds.indexOf(show) * settings.reportsPerProject + settings.reportsPerProject - 1]!;
  const get = (name: string, path: string, options: { note?: string; requiresPath?: string; heavy?: boolean } = {}): Scenario => ({
    name: withNotes(name, options.note, options.heavy && `${settings.heavyConnections} connections`),
    requests: [{ method: 'GET', path }],
    steps: [{ method: 'GET', path: () => path, token: 'user' }],
    ...(options.heavy && { heavy: true }),
    ...(options.requiresPath && { requiresPath: options.requiresPath }),
  });
  // report-large.json (4 MB, 155 analyzers, 3,972 issues, no git metadata) as the client sends it.
  // A Buffer: autocannon rebuilds a request with setupRequest (the token rotation) every time,
  // and copying a Buffer is cheaper than encoding a 4 MB string.
  const largeText = readFileSync(join(ROOT, 'test/fixtures/client-wire/reports/report-large.json'), 'utf8').replace(
    '0190c8a0-0000-7000-8000-000000000001',
    'unknown',
  );
  // Each upload another run of it (an identical body would be a retry, not stored again: D40).
  const largeRun = distinctRuns(largeText, 'large');
  const fullRun = distinctRuns(upload, 'full');
  // The same run as a branch's first (no baseline, E1.3): a branch name of its own in every request.
  const marker = '\u0000branch\u0000';
  const parsed = JSON.parse(largeText);
  const [beforeBranch, afterBranch] = JSON.stringify({ ...parsed, metadata: { ...parsed.metadata, git_branch: marker } })
    .split(JSON.stringify(marker))
    .map((part) => Buffer.from(part)) as [Buffer, Buffer];
  let branches = 0;
  const onNewBranch = () =>
    Buffer.concat([beforeBranch, Buffer.from(JSON.stringify(`bench/first-${process.pid}-${++branches}`)), afterBranch]);
  const changes = seeded.changes!.reportId;
  const largeRuns = seeded.changes!.projectId;
  const largeRunsNote = `${settings.changesProjectRuns} runs of report-large.json`;

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
    get('GET /api/v1/projects/{id}/reports', `/api/v1/projects/${show}/reports`),
    get('GET /api/v1/projects/{id}/reports?branch=main', `/api/v1/projects/${show}/reports?branch=main`),
    get('GET /api/v1/projects/{id}/branches', `/api/v1/projects/${show}/branches`),
    get('GET /api/v1/reports/{uuid}', `/api/v1/reports/${showReport}`),
    get('GET /api/v1/reports/{uuid}/changes', `/api/v1/reports/${changes}/changes`, { note: '3,972 issues', heavy: true }),
    // On SQLite the E1 columns (added by ALTER TABLE) sit after `results` in each row: a list item of
    // a 4 MB run reads through its results' overflow pages, and its baseline's.
    get('GET /api/v1/projects/{id}/reports', `/api/v1/projects/${largeRuns}/reports`, { note: largeRunsNote, heavy: true }),
    get('GET /api/v1/projects/{id}/trend', `/api/v1/projects/${show}/trend`, { requiresPath: '/api/v1/projects/{project}/trend' }),
    get('GET /api/v1/projects/{id}/trend', `/api/v1/projects/${largeRuns}/trend`, {
      note: largeRunsNote,
      heavy: true,
      requiresPath: '/api/v1/projects/{project}/trend',
    }),
    get('GET /api/v1/projects/{id}/badges', `/api/v1/projects/${show}/badges`, { requiresPath: '/api/v1/projects/{project}/badges' }),
    ...(['score.svg', 'gate.svg', 'score.json'] as const).map((file) => publicBadge(file, seeded.badgeKeys)),
    get('GET /api/v1/reports/{uuid}/export?format=csv', `/api/v1/reports/${changes}/export?format=csv`, {
      note: '3,972 issues',
      heavy: true,
      requiresPath: '/api/v1/reports/{report}/export',
    }),
    get('GET /api/v1/reports/{uuid}/export?format=sarif', `/api/v1/reports/${changes}/export?format=sarif`, {
      note: '3,972 issues',
      heavy: true,
      requiresPath: '/api/v1/reports/{report}/export',
    }),
    {
      name: 'POST /api/reports (report-full.json)',
      requests: [
        {
          method: 'POST',
          path: '/api/reports',
          headers: { ...json, 'x-token': 'project' },
          setupRequest: (request) => ({ ...request, body: fullRun() }),
        },
      ],
      steps: [{ method: 'POST', path: () => '/api/reports', body: () => fullRun().toString(), token: 'project' }],
    },
    {
      // Issue 13's budget: every upload has a 3,972-issue baseline (the previous run on the null branch).
      name: `POST /api/reports (report-large.json, with baseline; ${settings.heavyConnections} connections)`,
      requests: [
        {
          method: 'POST',
          path: '/api/reports',
          headers: { ...json, 'x-token': 'large' },
          setupRequest: (request) => ({ ...request, body: largeRun() }),
        },
      ],
      steps: [{ method: 'POST', path: () => '/api/reports', body: () => largeRun().toString(), token: 'large' }],
      heavy: true,
    },
    {
      name: `POST /api/reports (report-large.json, first of its branch; ${settings.heavyConnections} connections)`,
      requests: [
        {
          method: 'POST',
          path: '/api/reports',
          headers: { ...json, 'x-token': 'large' },
          setupRequest: (request) => ({ ...request, body: onNewBranch() }),
        },
      ],
      steps: [{ method: 'POST', path: () => '/api/reports', body: () => onNewBranch().toString(), token: 'large' }],
      heavy: true,
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

/**
 * E2.3: a public badge, without a token, each request for the next project's key (every seeded
 * project's in turn). A key's own budget is 600 requests a minute and cannot be raised: spread over
 * 10,000 keys (60 in a smoke run) the load stays far below it.
 */
function publicBadge(file: 'score.svg' | 'gate.svg' | 'score.json', keys: string[]): Scenario {
  let next = 0;
  return {
    name: `GET /badges/{key}/${file}`,
    requests: [
      {
        method: 'GET',
        path: `/badges/${keys[0]}/${file}`,
        headers: { 'x-token': 'none' },
        setupRequest: (request) => ({ ...request, path: `/badges/${keys[next++ % keys.length]}/${file}` }),
      },
    ],
    steps: [{ method: 'GET', path: () => `/badges/${keys[0]}/${file}`, token: 'none' }],
    requiresPath: `/badges/{key}/${file}`,
  };
}

/** `name (note; note)`, without the empty notes. */
function withNotes(name: string, ...notes: (string | false | undefined)[]): string {
  const given = notes.filter((note): note is string => typeof note === 'string' && note !== '');
  return given.length === 0 ? name : `${name} (${given.join('; ')})`;
}

/** The bearer token of a kind (for `large`, the first of the large-upload projects'). */
function tokenOf(which: string | undefined, seeded: Seeded): string {
  return which === 'project' ? seeded.apiToken : which === 'large' ? seeded.large.apiTokens[0]! : seeded.token;
}

/**
 * Bearer tokens per request: the personal token, the first project's for `x-token: project`, and
 * for `x-token: large` each of the large-upload projects' in turn (every project keeps growing by
 * one 4 MB report and its issue rows per upload; rotating keeps each project's share small, like
 * many projects uploading at once).
 */
function withAuth(requests: autocannon.Request[], seeded: Seeded): autocannon.Request[] {
  return requests.map((request) => {
    const { 'x-token': which, ...headers } = (request.headers ?? {}) as Record<string, string>;
    if (which === 'none') return { ...request, headers };
    if (which !== 'large') return { ...request, headers: { ...headers, authorization: `Bearer ${tokenOf(which, seeded)}` } };
    const tokens = seeded.large.apiTokens;
    // The typings allow a string (a module path, for the command line); the harness passes functions.
    const setup = request.setupRequest as ((request: autocannon.Request, context: object) => autocannon.Request) | undefined;
    let next = 0;
    return {
      ...request,
      headers,
      setupRequest: (built, context) => {
        const request = setup ? setup(built, context) : built;
        return { ...request, headers: { ...request.headers, authorization: `Bearer ${tokens[next++ % tokens.length]}` } };
      },
    };
  });
}

/** The paths of the service's OpenAPI document (`/api/v1/...{param}`). */
async function documentedPaths(base: string): Promise<Set<string>> {
  const response = await fetch(`${base}/api/v1/openapi.json`);
  if (!response.ok) throw new Error(`GET /api/v1/openapi.json answered ${response.status}`);
  return new Set(Object.keys(((await response.json()) as { paths: Record<string, unknown> }).paths));
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
          ...(step.token !== 'none' && { authorization: `Bearer ${tokenOf(step.token, seeded)}` }),
          ...(step.body ? { 'content-type': 'application/json' } : {}),
        },
        body: typeof step.body === 'function' ? step.body() : step.body,
      });
      const text = await response.text();
      if (!response.ok) throw new Error(`${step.method} ${step.path(context)} answered ${response.status}: ${text.slice(0, 300)}`);
      if (step.method === 'POST' && step.path(context) === '/api/v1/projects') context.id = JSON.parse(text).project.id;
      counts.push(Number(response.headers.get('x-sql-statements')));
    }
  }
  return counts.join(' + ');
}

/**
 * Drives `urls` with autocannon. With several URLs (instances of the service), autocannon deals its
 * connections out in turn (connection i to `urls[i % urls.length]`: 16 each of 32, one each of 2),
 * each connection keeping its instance, like a round-robin balancer of keep-alive connections; one
 * run, so one histogram and one count over all of them.
 */
async function load(urls: string[], requests: autocannon.Request[], options: { connections: number; warmupSeconds: number }) {
  if (options.connections % urls.length !== 0)
    throw new Error(`${options.connections} connections do not split evenly over ${urls.length} instances`);
  const url = urls.length === 1 ? urls[0]! : urls;
  // The typings say one URL; autocannon takes an array (lib/run.js).
  const run = (duration: number) => autocannon({ url: url as string, connections: options.connections, duration, requests, timeout: 10 });
  if (options.warmupSeconds > 0) await run(options.warmupSeconds);
  const result = await run(settings.durationSeconds);
  return {
    // Completed requests over the measured time: autocannon's `requests.average` is a mean of whole
    // per-second counts, too coarse for the large uploads' few per second.
    requestsPerSecond: result.requests.total / result.duration,
    p50: result.latency.p50,
    p99: result.latency.p99,
    // Non-2xx answers count as errors, with socket errors and timeouts (autocannon's `errors`
    // already counts its `timeouts`: adding them again counted each timeout twice).
    errors: result.non2xx + result.errors,
    // What the errors were: `503 x3, timeouts x21` (empty without errors).
    errorKinds: errorKinds(result),
  };
}

function errorKinds(result: autocannon.Result): string {
  const statuses = (result as { statusCodeStats?: Record<string, { count: number }> }).statusCodeStats ?? {};
  const kinds = Object.entries(statuses)
    .filter(([status]) => !status.startsWith('2'))
    .map(([status, { count }]) => `${status} x${count}`);
  const socket = result.errors - result.timeouts;
  if (result.timeouts > 0) kinds.push(`timeouts x${result.timeouts}`);
  if (socket > 0) kinds.push(`socket errors x${socket}`);
  return kinds.join(', ');
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

function renderHeader(): string {
  const m = machine();
  return [
    `# Scoreboard benchmark${smoke ? ' (smoke)' : ''}`,
    '',
    `${m.date} · ${m.cores} cores (${m.cpu}) · ${m.memoryGiB} GiB · Node ${m.node} · ${settings.connections} connections, ` +
      `${settings.warmupSeconds} s warm-up, ${settings.durationSeconds} s per scenario · ${settings.projects} projects, ` +
      `${settings.projects * settings.reportsPerProject} reports`,
    '',
  ].join('\n');
}

function render(table: Table): string {
  const { rows, memory } = table;
  const postgres = table.backend === 'postgres';
  const rate = (value: number) => value.toFixed(value < 100 ? 1 : 0);
  const cells = (row: Measured) => [
    row.name,
    rate(row.requestsPerSecond),
    row.p50,
    row.p99,
    row.errors,
    row.ratio === null ? '-' : row.ratio.toFixed(2),
    ...(postgres
      ? [
          row.ratioToSqlite === undefined || row.ratioToSqlite === null || row.statements === '-'
            ? '-'
            : `${row.ratioToSqlite.toFixed(2)} ${row.ratioToSqlite >= POSTGRES_TARGET ? '(≥ 0.6)' : '(**< 0.6**)'}`,
        ]
      : []),
    row.statements,
  ];
  const lines = [
    '',
    `## ${table.title}`,
    '',
    `${table.describe}; seeded ${table.reports} reports in ${table.seedSeconds.toFixed(0)} s.` +
      (table.instances > 1 ? ` Load: autocannon's connections dealt out to the ${table.instances} instances in turn.` : ''),
    '',
    `| scenario | req/s | p50 ms | p99 ms | errors | ratio to ceiling |${postgres ? ' ratio to SQLite |' : ''} SQL statements per request |`,
    `|---|---:|---:|---:|---:|---:|${postgres ? '---:|' : ''}---|`,
    ...rows.map((row) => `| ${cells(row).join(' | ')} |`),
    '',
    `Service peak RSS: ${memory.peakRssMiB.map((mib) => `${mib.toFixed(0)} MiB`).join(', ')}.`,
    ...rows.filter((row) => row.errors > 0).map((row) => `Errors in ${row.name}: ${row.errorKinds}.`),
  ];
  if (memory.afterAllMiB !== null && memory.afterTenthMiB !== null) {
    lines.push(
      `RSS after ${memory.requests / 10} requests: ${memory.afterTenthMiB.toFixed(0)} MiB; after ${memory.requests}: ` +
        `${memory.afterAllMiB.toFixed(0)} MiB (${(((memory.afterAllMiB - memory.afterTenthMiB) / memory.afterTenthMiB) * 100).toFixed(1)} %).`,
    );
  }
  if (postgres) {
    const measured = rows.filter((row) => row.statements !== '-' && row.ratioToSqlite != null);
    const met = measured.filter((row) => row.ratioToSqlite! >= POSTGRES_TARGET).length;
    if (measured.length > 0) lines.push(`Within ${POSTGRES_TARGET} of SQLite: ${met} of ${measured.length} scenarios.`);
  }
  return `${lines.join('\n')}\n`;
}

/**
 * D28 (issue 15): a Solo-plan user uploads ~9 MiB reports (50 analyzers x 1,500 issues) and reads
 * them back as fast as their rate limits allow (the real budgets: 60 uploads and 120 requests a
 * minute), while connections that never read ask for the same report; another user's
 * `GET /api/v1/tokens`, every 100 ms, must keep a p99 under 100 ms, and the server's RSS under 600 MiB.
 * Since D33, connections that ask for the report's exports and never read join them; and a second
 * service measures what 40 such connections add to its RSS with the attack's report.
 */
async function heavyReportsBench(dataDir: string) {
  const settingsOf = smoke
    ? { analyzers: 10, durationMs: 3_000, stalledConnections: 10, stalledExports: 4 }
    : { analyzers: 50, durationMs: 15_000, stalledConnections: 70, stalledExports: 40 };
  const env = serviceEnv(`sqlite:${join(dataDir, 'heavy.db')}`, { RATE_LIMIT_USER_BASE: '120', UPLOAD_RATE_LIMIT: '60' });
  const cli = (...cliArgs: string[]) =>
    execFileSync(process.execPath, [join(ROOT, 'bin/scoreboard.js'), ...cliArgs], { env, encoding: 'utf8' });
  cli('migrate');
  const solo = JSON.parse(cli('users:create', '--email', 'heavy@example.com', '--plan', 'solo', '--json')) as { token: string };
  const other = JSON.parse(cli('users:create', '--email', 'light@example.com', '--plan', 'enterprise', '--json')) as { token: string };
  const service = await startServer([...SERVICE_NODE_FLAGS, join(ROOT, 'bin/scoreboard.js'), 'serve'], env, '/healthz');
  try {
    const created = await fetch(`${service.url}/api/v1/projects`, {
      method: 'POST',
      headers: { authorization: `Bearer ${solo.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Heavy', framework_version: '12' }),
    });
    const { api_token: apiToken } = (await created.json()) as { api_token: string };
    const report = heavyReport(settingsOf.analyzers, 1_500);
    log(
      `D28: ${(report.length / 2 ** 20).toFixed(1)} MiB reports, ${settingsOf.stalledConnections} connections that never read the ` +
        `report and ${settingsOf.stalledExports} its exports`,
    );
    const result = await runHeavyReports({
      url: service.url,
      pid: service.pid,
      heavy: { token: solo.token, apiToken },
      otherToken: other.token,
      report: distinctRuns(report.toString(), 'heavy'),
      durationMs: settingsOf.durationMs,
      stalledConnections: settingsOf.stalledConnections,
      stalledExports: settingsOf.stalledExports,
      readers: 2,
      tokensEveryMs: 100,
    });
    log(`D28: tokens p99 ${result.tokens.p99} ms, peak RSS ${result.rssPeakMiB.toFixed(0)} MiB`);
    return { reportMiB: report.length / 2 ** 20, ...settingsOf, result, stalled: await stalledReadersBench(dataDir) };
  } finally {
    await service.stop();
  }
}

/**
 * D33's attack on a service of its own (D28's run leaves its heap grown, which would hide what the
 * connections add): a report of 60,000-character messages, and connections that ask for its CSV
 * and SARIF exports and never read.
 */
async function stalledReadersBench(dataDir: string) {
  const settingsOf = smoke ? { issues: 40, connections: 10, durationMs: 1_000 } : { issues: 150, connections: 40, durationMs: 5_000 };
  const env = serviceEnv(`sqlite:${join(dataDir, 'stalled.db')}`);
  const cli = (...cliArgs: string[]) =>
    execFileSync(process.execPath, [join(ROOT, 'bin/scoreboard.js'), ...cliArgs], { env, encoding: 'utf8' });
  cli('migrate');
  const user = JSON.parse(cli('users:create', '--email', 'stalled@example.com', '--plan', 'enterprise', '--json')) as { token: string };
  const service = await startServer([...SERVICE_NODE_FLAGS, join(ROOT, 'bin/scoreboard.js'), 'serve'], env, '/healthz');
  try {
    const created = await fetch(`${service.url}/api/v1/projects`, {
      method: 'POST',
      headers: { authorization: `Bearer ${user.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Stalled', framework_version: '12' }),
    });
    const { api_token: apiToken } = (await created.json()) as { api_token: string };
    const report = Buffer.from(JSON.stringify(longMessageReport(settingsOf.issues)));
    const result = await runStalledReaders({ url: service.url, pid: service.pid, token: user.token, apiToken, report, ...settingsOf });
    log(`D33: ${settingsOf.connections} stalled exports add ${result.rssGrowthMiB.toFixed(0)} MiB`);
    return { reportMiB: report.length / 2 ** 20, ...settingsOf, result };
  } finally {
    await service.stop();
  }
}

function renderHeavy(heavy: NonNullable<Awaited<ReturnType<typeof heavyReportsBench>>>): string {
  const { result, stalled } = heavy;
  const verdict = (ok: boolean) => (ok ? 'met' : '**not met**');
  return [
    '',
    '## D28: heavy reports do not stall light requests',
    '',
    `One Solo-plan user uploads ${heavy.reportMiB.toFixed(1)} MiB reports (${heavy.analyzers} analyzers x 1,500 issues) and two readers ` +
      `read them back (one with gzip, one without) as fast as the rate limits allow, for ${heavy.durationMs / 1000} s, while ` +
      `${heavy.stalledConnections} connections request the report and ${heavy.stalledExports} its CSV or SARIF export and never read. ` +
      'Another user asks for `GET /api/v1/tokens` every 100 ms.',
    '',
    '| figure | value | target |',
    '|---|---:|---|',
    `| uploads stored (refused busy) | ${result.uploads} (${result.uploadsRefusedBusy}) | |`,
    `| reads (MiB read; answered 429) | ${result.reads} (${result.readMiB.toFixed(0)}; ${result.rateLimited}) | |`,
    `| other user's GET /api/v1/tokens: answers, p50 / p99 / max ms | ${result.tokens.count}: ${result.tokens.p50} / ${result.tokens.p99} / ${result.tokens.max} | p99 < 100 ms: ${verdict(result.tokens.p99 < 100)} |`,
    `| server RSS: before / peak MiB | ${result.rssStartMiB.toFixed(0)} / ${result.rssPeakMiB.toFixed(0)} | < 600 MiB: ${verdict(result.rssPeakMiB < 600)} |`,
    `| errors | ${result.errors.length === 0 ? 'none' : result.errors.join(', ')} | none |`,
    '',
    '## D33: clients that stop reading hold a bounded buffer',
    '',
    `A fresh service stores a ${stalled.reportMiB.toFixed(1)} MiB report of ${stalled.issues} issues with 60,000-character messages; ` +
      `${stalled.connections} connections request its CSV or SARIF export (in turn) and never read, for ${stalled.durationMs / 1000} s.`,
    '',
    '| figure | value | target |',
    '|---|---:|---|',
    `| server RSS: baseline / peak MiB | ${stalled.result.rssBaselineMiB.toFixed(0)} / ${stalled.result.rssPeakMiB.toFixed(0)} | |`,
    `| growth over the baseline | ${stalled.result.rssGrowthMiB.toFixed(0)} MiB | ${stalled.connections} connections, < ${(100 * stalled.connections) / 40} MiB: ${verdict(stalled.result.rssGrowthMiB < (100 * stalled.connections) / 40)} |`,
    '',
  ].join('\n');
}

/** D30: 40 wrong sign-ins at once, without pause, while another user reads their tokens every 100 ms. */
async function signInStormBench(dataDir: string) {
  const settingsOf = { signIns: 40, durationMs: smoke ? 3_000 : 15_000 };
  // Each sign-in comes from an address of its own (X-Forwarded-For), so D8 never refuses one first.
  const env = serviceEnv(`sqlite:${join(dataDir, 'sign-in-storm.db')}`, { TRUST_PROXY: 'true' });
  const cli = (...cliArgs: string[]) =>
    execFileSync(process.execPath, [join(ROOT, 'bin/scoreboard.js'), ...cliArgs], { env, encoding: 'utf8' });
  cli('migrate');
  const other = JSON.parse(cli('users:create', '--email', 'light@example.com', '--plan', 'enterprise', '--json')) as { token: string };
  const service = await startServer([...SERVICE_NODE_FLAGS, join(ROOT, 'bin/scoreboard.js'), 'serve'], env, '/healthz');
  try {
    const result = await runSignInStorm({ url: service.url, otherToken: other.token, tokensEveryMs: 100, ...settingsOf });
    log(`D30: tokens p99 ${result.tokens.p99} ms while ${result.judged} sign-ins were judged`);
    return { ...settingsOf, result };
  } finally {
    await service.stop();
  }
}

function renderSignInStorm(storm: NonNullable<Awaited<ReturnType<typeof signInStormBench>>>): string {
  const { result } = storm;
  return [
    '',
    '## D30: password hashing does not stall light requests',
    '',
    `${storm.signIns} clients send wrong sign-ins without pause for ${storm.durationMs / 1000} s, each with an email and an address of ` +
      'its own (so every one reaches the hashing lane). Another user asks for `GET /api/v1/tokens` every 100 ms.',
    '',
    '| figure | value | target |',
    '|---|---:|---|',
    `| sign-ins judged (401) / refused by the lane (503) / refused 429 | ${result.judged} / ${result.refusedBusy} / ${result.refusedLimit} | |`,
    `| other user's GET /api/v1/tokens: answers, p50 / p99 / max ms | ${result.tokens.count}: ${result.tokens.p50} / ${result.tokens.p99} / ${result.tokens.max} | p99 < 100 ms: ${result.tokens.p99 < 100 ? 'met' : '**not met**'} |`,
    `| errors | ${result.errors.length === 0 ? 'none' : result.errors.join(', ')} | none |`,
    '',
  ].join('\n');
}

/**
 * What a stored report takes in the database, per recorded fixture: its results (compressed), its
 * issue rows (the bytes of their values) and, since D28, its stored answer (gzip).
 */
async function storageBench(dataDir: string) {
  const env = serviceEnv(`sqlite:${join(dataDir, 'storage.db')}`);
  const cli = (...cliArgs: string[]) =>
    execFileSync(process.execPath, [join(ROOT, 'bin/scoreboard.js'), ...cliArgs], { env, encoding: 'utf8' });
  cli('migrate');
  const user = JSON.parse(cli('users:create', '--email', 'storage@example.com', '--plan', 'enterprise', '--json')) as { token: string };
  const service = await startServer([...SERVICE_NODE_FLAGS, join(ROOT, 'bin/scoreboard.js'), 'serve'], env, '/healthz');
  const rows: { fixture: string; issues: number; results: number; issueRows: number; answer: number }[] = [];
  try {
    for (const name of ['report-full', 'report-large']) {
      const created = await fetch(`${service.url}/api/v1/projects`, {
        method: 'POST',
        headers: { authorization: `Bearer ${user.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name, framework_version: '12' }),
      });
      const { api_token: apiToken } = (await created.json()) as { api_token: string };
      const recorded = JSON.parse(readFileSync(join(ROOT, 'test/fixtures/client-wire/reports', `${name}.json`), 'utf8'));
      const body = JSON.stringify({ ...recorded, project_id: 'unknown' });
      const uploaded = await fetch(`${service.url}/api/reports`, {
        method: 'POST',
        headers: { authorization: `Bearer ${apiToken}`, 'content-type': 'application/json' },
        body,
      });
      if (uploaded.status !== 201) throw new Error(`storage: ${name} was answered ${uploaded.status}: ${await uploaded.text()}`);
      const { report } = (await uploaded.json()) as { report: { uuid: string; total_issues: number } };
      // The product's own binding: the better-sqlite3 build this Node can run (db/sqlite-binding.ts).
      const { SqliteDatabase } = (await import(pathToFileURL(join(ROOT, 'dist/db/sqlite-binding.js')).href)) as {
        SqliteDatabase: new (file: string, options: { readonly: boolean }) => SqliteHandle;
      };
      const sqlite = new SqliteDatabase(join(dataDir, 'storage.db'), { readonly: true });
      const bytes = (query: string) => Number((sqlite.prepare(query).pluck().get(report.uuid) as number | null) ?? 0);
      rows.push({
        fixture: name,
        issues: report.total_issues,
        results: bytes('select length(results) + coalesce(length(results_br), 0) from reports where uuid = ?'),
        issueRows: bytes(`select sum(${ISSUE_VALUE_BYTES}) from report_issues where report_id = (select id from reports where uuid = ?)`),
        answer: bytes('select length(gzip) from report_bodies where report_id = (select id from reports where uuid = ?)'),
      });
      sqlite.close();
    }
  } finally {
    await service.stop();
  }
  return rows;
}

interface SqliteHandle {
  prepare(sql: string): { pluck(): { get(...parameters: unknown[]): unknown } };
  close(): void;
}

/** The bytes of a report_issues row's values, as SQLite stores them (integers counted as 8). */
const ISSUE_VALUE_BYTES = ['fingerprint', 'analyzer_id', 'analyzer_name', 'category', 'severity', 'message', 'file', 'change']
  .map((column) => `coalesce(length(${column}), 0)`)
  .concat(['8 * 6'])
  .join(' + ');

function renderStorage(rows: Awaited<ReturnType<typeof storageBench>>): string {
  const kib = (bytes: number) => (bytes / 1024).toFixed(0);
  return [
    '',
    '## Storage per report',
    '',
    'Bytes of values, not counting SQLite pages and indexes. Before D28 a report was its results and its issue rows; it now also keeps its answer.',
    '',
    '| fixture | issues | results (Brotli) KiB | issue rows KiB | answer (gzip) KiB | before KiB | after KiB |',
    '|---|---:|---:|---:|---:|---:|---:|',
    ...rows.map(
      (row) =>
        `| ${row.fixture}.json | ${row.issues} | ${kib(row.results)} | ${kib(row.issueRows)} | ${kib(row.answer)} | ${kib(row.results + row.issueRows)} | ${kib(row.results + row.issueRows + row.answer)} |`,
    ),
    '',
  ].join('\n');
}

function log(message: string): void {
  process.stderr.write(`[bench] ${message}\n`);
}

await main();
