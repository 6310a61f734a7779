import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { execFileSync } from 'node:child_process';
import pg from 'pg';

/**
 * A fresh benchmark database: one enterprise user whose team has `projects` projects with
 * `reportsPerProject` reports each, the results of every report taken from the client's recorded
 * payloads (test/fixtures/client-wire). The schema comes from the product (`scoreboard migrate`,
 * `scoreboard users:create`); the bulk rows are written directly, in one transaction, because
 * 100,000 uploads over HTTP would take longer than the benchmark itself. The database is the one
 * `env.DATABASE_URL` names: a SQLite file (the benchmark) or a PostgreSQL schema (the soak's
 * scale-out mode); the columns are plain text and integers on both, so the same SQL fills both.
 */
export interface Seeded {
  /** The user's personal access token. */
  token: string;
  projectIds: string[];
  /** The API token of the first project (uploads go there). */
  apiToken: string;
  /** The API tokens of the first projects (up to 10), in the order of `projectIds`. */
  apiTokens: string[];
  /** The uuid of every seeded report. */
  reportIds: string[];
  reports: number;
}

/** Writes rows one statement at a time inside a transaction (`?` placeholders). */
interface BulkWriter {
  run(sql: string, params: unknown[]): Promise<void>;
  begin(): Promise<void>;
  commit(): Promise<void>;
  close(): Promise<void>;
}

export async function seed(options: {
  root: string;
  env: NodeJS.ProcessEnv;
  projects: number;
  reportsPerProject: number;
}): Promise<Seeded> {
  const { root, env } = options;
  const cli = (...args: string[]) =>
    execFileSync(process.execPath, [join(root, 'bin/scoreboard.js'), ...args], { env, encoding: 'utf8' });
  cli('migrate');
  const user = JSON.parse(cli('users:create', '--email', 'bench@example.com', '--plan', 'enterprise', '--json')) as {
    user: { id: number };
    team: { id: number };
    token: string;
  };
  // GET /tokens lists a few tokens, as a real account would have.
  for (let i = 0; i < 4; i++) cli('tokens:create', '--email', 'bench@example.com', '--name', `ci-${i}`, '--abilities', 'read');

  const databaseUrl = env.DATABASE_URL ?? '';
  const db = /^postgres(ql)?:/.test(databaseUrl)
    ? await postgresWriter(databaseUrl)
    : await sqliteWriter(root, databaseUrl.replace(/^sqlite:/, ''));

  // Realistic result payloads: mostly the small recorded report (10 analyzers), and the full one
  // (155 analyzers, 150 KB) for one report in fifty, to keep the file near 1.5 GB at full size.
  // Stored the way an upload stores them: the product's own normalisation and summary (a raw
  // fixture lacks e.g. `location: null`, and the report detail would fail to serialise it).
  const product = await productUploadCode(root);
  const payloads = ['report-small', 'report-full'].map((name) => {
    const body = JSON.parse(readFileSync(join(root, 'test/fixtures/client-wire/reports', `${name}.json`), 'utf8'));
    const results = product.normalizeResults(body.results);
    return {
      summary: product.summarizeResults(results),
      results: JSON.stringify(results),
      metadata: JSON.stringify(product.asObject(body.metadata)),
      clientSummary: body.summary === undefined ? null : JSON.stringify(body.summary),
      configuration: body.configuration === undefined ? null : JSON.stringify(product.normalizeConfiguration(body.configuration)),
    };
  });

  const insertProject = `insert into projects (id, team_id, name, description, repository_url, framework_version, settings, api_token_hash,
       latest_report_id, archived_at, created_at, updated_at)
     values (?, ?, ?, null, ?, '11', ?, ?, null, null, ?, ?)`;
  const insertReport = `insert into reports (uuid, project_id, score, total, passed, failed, warnings, skipped, errors, total_issues,
       issues_critical, issues_high, issues_medium, issues_low, issues_info, framework_version, package_version,
       total_execution_time, triggered_by, analyzed_at, created_at, results, metadata, pro_package_version,
       client_summary, configuration)
     values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, '11.44.2', 'v1.13.3', ?, 'ci_cd', ?, ?, ?, ?, null, ?, ?)`;
  const settings = JSON.stringify({ fail_on: 'high', fail_threshold: 60, primary_tracker: null, ticket_target_project_key: null, ticket_target_project_name: null });
  const projectIds: string[] = [];
  const apiTokens: string[] = [];
  const reportIds: string[] = [];
  const start = Date.UTC(2026, 0, 1);

  try {
    await db.begin();
    for (let p = 0; p < options.projects; p++) {
      const id = uuidV7(start + p * 1000);
      const token = randomToken();
      if (p < 10) apiTokens.push(token);
      const at = new Date(start + p * 1000).toISOString();
      await db.run(insertProject, [id, user.team.id, `Project ${p}`, `https://github.com/acme/project-${p}`, settings, sha256(token), at, at]);
      projectIds.push(id);
      for (let r = 0; r < options.reportsPerProject; r++) {
        const payload = payloads[(p * options.reportsPerProject + r) % 50 === 0 ? 1 : 0]!;
        const s = payload.summary;
        const analyzedAt = new Date(start + p * 1000 + r * 60_000).toISOString();
        const uuid = uuidV7(start + p * 1000 + r);
        const bySeverity = s.issues_by_severity;
        await db.run(insertReport, [uuid, id, s.score, s.total, s.passed, s.failed, s.warnings, s.skipped, s.errors,
          s.total_issues, bySeverity.critical, bySeverity.high, bySeverity.medium, bySeverity.low, bySeverity.info, 12.5,
          analyzedAt, analyzedAt, payload.results, payload.metadata, payload.clientSummary, payload.configuration]);
        reportIds.push(uuid);
      }
    }
    // The team's project count (migration 0003) and, D19, each project's pointer to its newest
    // report, as the service keeps them.
    await db.run('update teams set projects_count = (select count(*) from projects where projects.team_id = teams.id)', []);
    await db.run(
      `update projects set latest_report_id = (select r.id from reports r where r.project_id = projects.id
         order by r.analyzed_at desc, r.id desc limit 1)`,
      [],
    );
    await db.commit();
  } finally {
    await db.close();
  }
  return { token: user.token, projectIds, apiToken: apiTokens[0] ?? '', apiTokens, reportIds, reports: reportIds.length };
}

async function sqliteWriter(root: string, file: string): Promise<BulkWriter> {
  const { SqliteDatabase } = (await import(pathToFileURL(join(root, 'dist/db/sqlite-binding.js')).href)) as {
    SqliteDatabase: new (file: string) => any;
  };
  const db = new SqliteDatabase(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = OFF');
  const statements = new Map<string, any>();
  return {
    async run(sql, params) {
      let statement = statements.get(sql);
      if (!statement) statements.set(sql, (statement = db.prepare(sql)));
      statement.run(...params);
    },
    async begin() {
      db.exec('begin');
    },
    async commit() {
      db.exec('commit');
    },
    async close() {
      if (db.inTransaction) db.exec('rollback');
      db.pragma('wal_checkpoint(TRUNCATE)');
      db.close();
    },
  };
}

async function postgresWriter(url: string): Promise<BulkWriter> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  let inTransaction = false;
  return {
    async run(sql, params) {
      let n = 0;
      await client.query(sql.replace(/\?/g, () => `$${++n}`), params);
    },
    async begin() {
      await client.query('begin');
      inTransaction = true;
    },
    async commit() {
      await client.query('commit');
      inTransaction = false;
      // Fresh tables: give the planner their statistics now rather than when autovacuum gets to it.
      await client.query('analyze');
    },
    async close() {
      if (inTransaction) await client.query('rollback');
      await client.end();
    },
  };
}

/** The service's own upload normalisation and summary (from dist/, built before the harness runs). */
async function productUploadCode(root: string) {
  const load = (path: string) => import(pathToFileURL(join(root, 'dist', path)).href);
  const normalize = {
    ...((await load('reports/normalize-upload.js')) as {
      normalizeResults(results: unknown): unknown[];
      normalizeConfiguration(configuration: unknown): unknown;
    }),
    ...((await load('http/json-values.js')) as { asObject(value: unknown): unknown }),
  };
  const { summarizeResults } = (await load('reports/summarize.js')) as {
    summarizeResults(results: unknown[]): {
      score: number;
      total: number;
      passed: number;
      failed: number;
      warnings: number;
      skipped: number;
      errors: number;
      total_issues: number;
      issues_by_severity: Record<'critical' | 'high' | 'medium' | 'low' | 'info', number>;
    };
  };
  return { ...normalize, summarizeResults };
}

const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');

function randomToken(): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  return Array.from(randomBytes(40), (byte) => alphabet[byte % alphabet.length]).join('');
}

/** A UUID v7 for the given time (ids sort by creation, D11). */
function uuidV7(ms: number): string {
  const bytes = randomBytes(16);
  bytes.writeUIntBE(ms, 0, 6);
  bytes[6] = (bytes[6]! & 0x0f) | 0x70;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
