import autocannon from 'autocannon';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import pg from 'pg';
import { SERVICE_NODE_FLAGS, serviceEnv, startServer, type ServerProcess } from './processes.js';
import { runSuffix, seedScale, type ScaleSeeded } from './seed-scale.js';

/**
 * Issue 15 item 5 (part of `npm run bench`, or `--only scale` for this part alone): the hot reads
 * on the small seed (seed.ts's 10,000 projects x 10 reports, plus a project of 10,000 reports: about
 * 110,000 reports) against the scale seed (seed-scale.ts: 10,000 projects, 1,000,000 reports, the
 * same 10,000-report project), on SQLite and PostgreSQL. Both seeds of a database are served at
 * once (one service each) and every scenario is loaded on one then the other, alternating which
 * goes first, so that both see the same machine. Then the statements each scenario runs are
 * captured in-process (the service's own app and repositories from dist/, with Kysely's query log)
 * and explained on the scale seed (SQLite `EXPLAIN QUERY PLAN`, PostgreSQL `EXPLAIN (ANALYZE, BUFFERS)`).
 */
export interface ScaleOptions {
  root: string;
  dataDir: string;
  smoke: boolean;
  /** PostgreSQL server (any database on it: the seeds get databases of their own, dropped afterwards); null: SQLite only. */
  postgresUrl: string | null;
  durationSeconds: number;
  warmupSeconds: number;
  /** Rounds per scenario (small, scale, then scale, small, ...): the medians are kept. */
  rounds: number;
  connections: number;
  heavyConnections: number;
  log: (message: string) => void;
}

interface ScaleRow {
  database: string;
  name: string;
  small: { requestsPerSecond: number; p99: number; errors: number };
  large: { requestsPerSecond: number; p99: number; errors: number };
}

interface Explained {
  database: string;
  scenario: string;
  statements: { sql: string; parameters: unknown[]; plan: string }[];
}

export interface ScaleResult {
  sizes: { small: Sizes; large: Sizes };
  seeding: { database: string; seed: string; reports: number; seconds: { base: number; bulk: number; total: number } }[];
  rows: ScaleRow[];
  explained: Explained[];
  skipped: string[];
  rounds: number;
}

interface Sizes {
  baseProjects: number;
  baseReportsPerProject: number;
  projects: number;
  reports: number;
  hotReports: number;
  changesProjectRuns: number;
}

export async function runScaleBench(options: ScaleOptions): Promise<ScaleResult> {
  const { smoke, log } = options;
  const sizes = smoke
    ? {
        small: { baseProjects: 20, baseReportsPerProject: 10, projects: 0, reports: 0, hotReports: 100, changesProjectRuns: 3 },
        large: { baseProjects: 0, baseReportsPerProject: 0, projects: 19, reports: 1_900, hotReports: 100, changesProjectRuns: 3 },
      }
    : {
        small: { baseProjects: 10_000, baseReportsPerProject: 10, projects: 0, reports: 0, hotReports: 10_000, changesProjectRuns: 20 },
        large: { baseProjects: 0, baseReportsPerProject: 0, projects: 9_999, reports: 990_000, hotReports: 10_000, changesProjectRuns: 20 },
      };
  const result: ScaleResult = { sizes, seeding: [], rows: [], explained: [], skipped: [], rounds: options.rounds };
  const databases: ('SQLite' | 'PostgreSQL')[] = ['SQLite'];
  if (options.postgresUrl !== null) {
    try {
      const client = new pg.Client({ connectionString: options.postgresUrl });
      await client.connect();
      await client.end();
      databases.push('PostgreSQL');
    } catch (error) {
      result.skipped.push(`PostgreSQL (${options.postgresUrl}): ${(error as Error).message}`);
      log(`scale: PostgreSQL skipped: ${(error as Error).message}`);
    }
  }

  for (const database of databases) {
    const suffix = runSuffix();
    const targets = {
      small: await createDatabase(database, 'small', suffix, options),
      large: await createDatabase(database, 'large', suffix, options),
    };
    const services: ServerProcess[] = [];
    try {
      const seeded: Partial<Record<'small' | 'large', ScaleSeeded>> = {};
      for (const seed of ['small', 'large'] as const) {
        const size = sizes[seed];
        log(`scale: ${database}, ${seed} seed: ${size.baseProjects + size.projects + 1} projects`);
        const env = serviceEnv(targets[seed].url);
        seeded[seed] = await seedScale({ root: options.root, env, ...size, log: (message) => log(`${database} ${seed}: ${message}`) });
        const s = seeded[seed]!;
        result.seeding.push({ database, seed, reports: s.totalReports, seconds: s.seconds });
        log(`scale: ${database}, ${seed} seed: ${s.totalReports} reports in ${s.seconds.total.toFixed(1)} s`);
      }
      for (const seed of ['small', 'large'] as const) {
        services.push(
          await startServer(
            [...SERVICE_NODE_FLAGS, join(options.root, 'bin/scoreboard.js'), 'serve'],
            serviceEnv(targets[seed].url),
            '/healthz',
          ),
        );
      }
      const scenarios = { small: scenariosOf(seeded.small!, sizes.small), large: scenariosOf(seeded.large!, sizes.large) };
      for (const [index, scenario] of scenarios.large.entries()) {
        const rounds: Record<'small' | 'large', Awaited<ReturnType<typeof load>>[]> = { small: [], large: [] };
        for (let round = 0; round < options.rounds; round++) {
          // Alternate which seed goes first, so that a drift of the machine's load favours neither.
          const order = (index + round) % 2 === 0 ? (['small', 'large'] as const) : (['large', 'small'] as const);
          for (const seed of order) {
            const service = services[seed === 'small' ? 0 : 1]!;
            const own = scenarios[seed][index]!;
            rounds[seed].push(
              await load(service.url, own.path, seeded[seed]!.token, {
                connections: own.heavy ? options.heavyConnections : options.connections,
                warmupSeconds: round === 0 ? options.warmupSeconds : 1,
                durationSeconds: options.durationSeconds,
              }),
            );
          }
        }
        const row: ScaleRow = { database, name: scenario.name, small: medianOf(rounds.small), large: medianOf(rounds.large) };
        result.rows.push(row);
        log(
          `scale: ${database} ${row.name}: ${row.small.requestsPerSecond.toFixed(0)} → ${row.large.requestsPerSecond.toFixed(0)} req/s, ` +
            `p99 ${row.small.p99} → ${row.large.p99} ms`,
        );
      }
      for (const service of services.splice(0)) await service.stop();
      result.explained.push(...(await explainScenarios(options.root, database, targets.large.url, seeded.large!, scenarios.large)));
    } finally {
      for (const service of services) await service.stop();
      await targets.small.drop();
      await targets.large.drop();
    }
  }
  return result;
}

interface ScaleScenario {
  name: string;
  path: string;
  heavy?: boolean;
}

function scenariosOf(seeded: ScaleSeeded, size: Sizes): ScaleScenario[] {
  const show = seeded.projectIds[Math.floor(seeded.projectIds.length / 2)]!;
  const projects = size.baseProjects + size.projects + 1;
  const deepPage = Math.min(500, Math.ceil(projects / 20));
  const hot = seeded.hot.projectId;
  const hotDeep = Math.min(500, Math.ceil(size.hotReports / 20));
  return [
    { name: 'GET /api/v1/projects/{id}', path: `/api/v1/projects/${show}` },
    { name: 'GET /api/v1/projects?page=1', path: '/api/v1/projects?page=1' },
    { name: `GET /api/v1/projects?page=${deepPage}`, path: `/api/v1/projects?page=${deepPage}` },
    { name: `GET /api/v1/projects/{id}/reports (${size.hotReports} reports)`, path: `/api/v1/projects/${hot}/reports` },
    {
      name: `GET /api/v1/projects/{id}/reports?page=${hotDeep} (${size.hotReports} reports)`,
      path: `/api/v1/projects/${hot}/reports?page=${hotDeep}`,
    },
    {
      name: 'GET /api/v1/reports/{uuid}/changes (3,972 issues; 2 connections)',
      path: `/api/v1/reports/${seeded.changes!.reportId}/changes`,
      heavy: true,
    },
    { name: `GET /api/v1/projects/{id}/trend (${size.hotReports} reports)`, path: `/api/v1/projects/${hot}/trend` },
  ];
}

/** The database of one seed: a SQLite file, or a PostgreSQL database of its own on the server. */
async function createDatabase(database: 'SQLite' | 'PostgreSQL', seed: string, suffix: string, options: ScaleOptions) {
  if (database === 'SQLite') {
    const dir = join(options.dataDir, `scale-${seed}`);
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    return { url: `sqlite:${join(dir, 'bench.db')}`, drop: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  const name = `scoreboard_scale_${seed}_${suffix}`;
  const admin = async (statement: string) => {
    const client = new pg.Client({ connectionString: options.postgresUrl! });
    await client.connect();
    try {
      await client.query(statement);
    } finally {
      await client.end();
    }
  };
  await admin(`create database ${name}`);
  const url = new URL(options.postgresUrl!);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => admin(`drop database if exists ${name} with (force)`) };
}

/** The median round's req/s and p99 (each its own median), and every round's errors. */
function medianOf(rounds: { requestsPerSecond: number; p99: number; errors: number }[]) {
  const median = (values: number[]) => {
    const sorted = [...values].sort((a, b) => a - b);
    const middle = Math.floor(sorted.length / 2);
    return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
  };
  return {
    requestsPerSecond: median(rounds.map((round) => round.requestsPerSecond)),
    p99: median(rounds.map((round) => round.p99)),
    errors: rounds.reduce((sum, round) => sum + round.errors, 0),
  };
}

async function load(
  base: string,
  path: string,
  token: string,
  options: { connections: number; warmupSeconds: number; durationSeconds: number },
) {
  const requests = [{ method: 'GET' as const, path, headers: { authorization: `Bearer ${token}` } }];
  const run = (duration: number) => autocannon({ url: base, connections: options.connections, duration, requests, timeout: 10 });
  if (options.warmupSeconds > 0) await run(options.warmupSeconds);
  const result = await run(options.durationSeconds);
  // As run.ts: completed requests over the measured time; any non-2xx answer is an error.
  return {
    requestsPerSecond: result.requests.total / result.duration,
    p99: result.latency.p99,
    errors: result.non2xx + result.errors + result.timeouts,
  };
}

/**
 * The statements each scenario runs, as the service runs them: the service's own app (dist/) on
 * the scale seed's database with Kysely's query log, each request sent twice (the first use of a
 * token also writes last_used_at) and the second's statements kept; each read statement explained.
 */
async function explainScenarios(
  root: string,
  database: string,
  url: string,
  seeded: ScaleSeeded,
  scenarios: ScaleScenario[],
): Promise<Explained[]> {
  const load = (path: string) => import(pathToFileURL(join(root, 'dist', path)).href);
  const { createDatabase: openDb } = (await load('db/database.js')) as {
    createDatabase(url: string, options: { onQuery(event: { query: { sql: string; parameters: readonly unknown[] } }): void }): any;
  };
  const { loadConfig } = (await load('config.js')) as { loadConfig(env: NodeJS.ProcessEnv, options: { dotenv: boolean }): any };
  const { createApp } = (await load('app.js')) as { createApp(config: unknown, deps: { db: unknown }): Promise<any> };
  let captured: { sql: string; parameters: unknown[] }[] = [];
  const db = openDb(url, { onQuery: (event) => captured.push({ sql: event.query.sql, parameters: [...event.query.parameters] }) });
  const config = loadConfig({ ...serviceEnv(url), LOG_LEVEL: 'error' }, { dotenv: false });
  const app = await createApp(config, { db });
  const explain = await explainer(root, url);
  const explained: Explained[] = [];
  try {
    for (const scenario of scenarios) {
      for (let round = 0; round < 2; round++) {
        captured = [];
        const response = await app.inject({ method: 'GET', url: scenario.path, headers: { authorization: `Bearer ${seeded.token}` } });
        if (response.statusCode !== 200)
          throw new Error(`${scenario.path} answered ${response.statusCode}: ${response.body.slice(0, 200)}`);
      }
      const statements = [];
      for (const statement of captured) {
        if (!/^\s*(select|with)\b/i.test(statement.sql)) continue;
        statements.push({ ...statement, plan: await explain(statement.sql, statement.parameters) });
      }
      explained.push({ database, scenario: scenario.name, statements });
    }
  } finally {
    await app.close();
    await explain.close();
  }
  return explained;
}

async function explainer(root: string, url: string) {
  if (url.startsWith('sqlite:')) {
    const { SqliteDatabase } = (await import(pathToFileURL(join(root, 'dist/db/sqlite-binding.js')).href)) as {
      SqliteDatabase: new (file: string, options: { readonly: boolean }) => any;
    };
    const sqlite = new SqliteDatabase(url.slice('sqlite:'.length), { readonly: true });
    const explain = async (sql: string, parameters: unknown[]) => {
      const rows = sqlite.prepare(`explain query plan ${sql}`).all(...parameters) as { id: number; parent: number; detail: string }[];
      const depth = new Map<number, number>([[0, 0]]);
      return rows
        .map((row) => {
          const level = (depth.get(row.parent) ?? 0) + 1;
          depth.set(row.id, level);
          return `${'  '.repeat(level - 1)}${row.detail}`;
        })
        .join('\n');
    };
    return Object.assign(explain, { close: async () => sqlite.close() });
  }
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const explain = async (sql: string, parameters: unknown[]) => {
    const { rows } = await client.query(`explain (analyze, buffers) ${sql}`, parameters);
    return rows.map((row: Record<string, string>) => row['QUERY PLAN']).join('\n');
  };
  return Object.assign(explain, { close: () => client.end() });
}

/** The section of the benchmark's report. */
export function renderScale(result: ScaleResult, smoke: boolean): string {
  const { small, large } = result.sizes;
  const count = (s: Sizes) => s.baseProjects * s.baseReportsPerProject + s.reports + s.hotReports;
  const lines = [
    '',
    `## Issue 15: ${smoke ? 'scale (smoke)' : '1,000,000 reports'}`,
    '',
    `Small seed: ${small.baseProjects + small.projects} projects x ${small.baseReportsPerProject} reports (seed.ts) plus a project of ` +
      `${small.hotReports} reports; scale seed: ${large.projects} projects sharing ${large.reports} reports (seed-scale.ts) plus the ` +
      `${large.hotReports}-report project (${count(small)} and ${count(large)} reports, besides the changes project's ${large.changesProjectRuns} runs of report-large.json). ` +
      `Medians of ${result.rounds} round${result.rounds === 1 ? '' : 's'} per scenario (alternating which seed goes first). ` +
      "Ratio: scale req/s over small req/s; within 20 %: req/s at least 0.80 of the small seed's and p99 at most 1.2 times it (or 2 ms more).",
    '',
    '| seeding | reports | seed.ts part s | bulk s | total s |',
    '|---|---:|---:|---:|---:|',
    ...result.seeding.map(
      (s) =>
        `| ${s.database}, ${s.seed} seed | ${s.reports} | ${s.seconds.base.toFixed(1)} | ${s.seconds.bulk.toFixed(1)} | ${s.seconds.total.toFixed(1)} |`,
    ),
    '',
    '| database | scenario | small req/s | small p99 ms | scale req/s | scale p99 ms | ratio | within 20 % |',
    '|---|---|---:|---:|---:|---:|---:|---|',
    ...result.rows.map((row) => {
      const ratio = row.large.requestsPerSecond / row.small.requestsPerSecond;
      const within = ratio >= 0.8 && (row.large.p99 <= row.small.p99 * 1.2 || row.large.p99 <= row.small.p99 + 2);
      const rate = (value: number) => value.toFixed(value < 100 ? 1 : 0);
      const errors = row.small.errors + row.large.errors > 0 ? ` (errors ${row.small.errors} / ${row.large.errors})` : '';
      return `| ${row.database} | ${row.name} | ${rate(row.small.requestsPerSecond)} | ${row.small.p99} | ${rate(row.large.requestsPerSecond)} | ${row.large.p99} | ${ratio.toFixed(2)} | ${within ? 'yes' : '**no**'}${errors} |`;
    }),
    ...result.skipped.map((skipped) => `\nSkipped: ${skipped}`),
    '',
  ];
  return lines.join('\n');
}

/** The plans, for bench/results/scale-explain.md. */
export function renderExplained(result: ScaleResult): string {
  const lines = ['# Plans of the hot queries on the scale seed', ''];
  for (const entry of result.explained) {
    lines.push(`## ${entry.database}: ${entry.scenario}`, '');
    for (const statement of entry.statements) {
      lines.push(
        '```sql',
        statement.sql,
        `-- parameters: ${JSON.stringify(statement.parameters)}`,
        '```',
        '',
        '```',
        statement.plan,
        '```',
        '',
      );
    }
  }
  return lines.join('\n');
}
