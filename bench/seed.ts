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
  /** The badge key (E2.2) of every project of `projectIds`, in the same order. */
  badgeKeys: string[];
  /** The uuid of every seeded report (of `projectIds`' projects). */
  reportIds: string[];
  reports: number;
  /**
   * Issue 13's large uploads: projects (not in `projectIds`) whose null branch holds one run of
   * `report-large.json` (3,972 issues, no git metadata), so that every upload of it there has a
   * baseline of that size; with their API tokens, in the same order.
   */
  large: { projectIds: string[]; apiTokens: string[] };
  /**
   * A project (not in `projectIds`) with runs of `report-large.json` on the null branch: a variant
   * (about one issue in ten missing, one in twenty reworded), then the fixture itself, compared with
   * it, then the fixture again, each compared with the one before. `reportId` is the second run,
   * whose changes list has new, fixed and unchanged issues (E1.6). Null when not seeded.
   */
  changes: { projectId: string; reportId: string } | null;
}

/** The columns of a `report_issues` row a seed writes, besides its `report_id`. */
export const ISSUE_COLUMNS = [
  'change',
  'change_rank',
  'severity_rank',
  'fingerprint',
  'analyzer_id',
  'analyzer_name',
  'category',
  'severity',
  'message',
  'file',
  'line',
  'column_number',
  'position',
] as const;

/** Writes rows inside a transaction (`?` placeholders); PostgreSQL's may defer inserts and write them together. */
export interface BulkWriter {
  run(sql: string, params: unknown[]): Promise<void>;
  /** The first row of a query (`?` placeholders), or undefined. */
  first(sql: string, params: unknown[]): Promise<Record<string, unknown> | undefined>;
  /** An `insert` into a table with an `id` key; returns the new row's id. */
  insert(sql: string, params: unknown[]): Promise<number>;
  /** Inserts `rows` (values in the order of `columns`) into `table`. */
  insertMany(table: string, columns: readonly string[], rows: unknown[][]): Promise<void>;
  begin(): Promise<void>;
  commit(): Promise<void>;
  close(): Promise<void>;
}

export async function seed(options: {
  root: string;
  env: NodeJS.ProcessEnv;
  projects: number;
  reportsPerProject: number;
  /** Projects seeded with one `report-large.json` run each, for large uploads (default 0). */
  largeProjects?: number;
  /** Runs in the project of `changes` (0, the default: no such project; else at least 2). */
  changesProjectRuns?: number;
}): Promise<Seeded> {
  const { root, env } = options;
  const cli = (...args: string[]) => execFileSync(process.execPath, [join(root, 'bin/scoreboard.js'), ...args], { env, encoding: 'utf8' });
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

  const { settings, fixture, payloadOf, storedAgainst, stored } = await uploadPayloads(root);
  type Stored = ReturnType<typeof storedAgainst>;

  const insertProject = `insert into projects (id, team_id, name, description, repository_url, framework_version, settings, api_token_hash,
       badge_key, latest_report_id, archived_at, created_at, updated_at)
     values (?, ?, ?, null, ?, '11', ?, ?, ?, null, null, ?, ?)`;
  const summaryColumns = Object.keys(payloadOf(fixture('report-small')).summaryColumns);
  const insertReport = `insert into reports (uuid, project_id, ${summaryColumns.join(', ')}, framework_version, package_version,
       total_execution_time, triggered_by, analyzed_at, created_at, results, results_br, metadata, pro_package_version,
       client_summary, configuration, git_branch, git_commit, pull_request, base_branch, baseline_report_id,
       changes_new, changes_fixed, changes_unchanged, gate, fingerprinted_at)
     values (?, ?, ${summaryColumns.map(() => '?').join(', ')}, '11.44.2', 'v1.13.3', ?, 'ci_cd', ?, ?, ?, ?, ?, null, ?, ?,
       ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`;
  const issueColumns = ['report_id', ...ISSUE_COLUMNS] as const;
  const projectIds: string[] = [];
  const apiTokens: string[] = [];
  const badgeKeys: string[] = [];
  const reportIds: string[] = [];
  const start = Date.UTC(2026, 0, 1);

  /** Inserts a project; returns its API token and badge key (32 of [A-Za-z0-9], as badge-key.ts makes them). */
  const addProject = async (id: string, name: string, at: string) => {
    const token = randomToken();
    const badgeKey = randomToken().slice(0, 32);
    await db.run(insertProject, [
      id,
      user.team.id,
      name,
      `https://github.com/acme/${name.toLowerCase().replace(/ /g, '-')}`,
      settings,
      sha256(token),
      badgeKey,
      at,
      at,
    ]);
    return { token, badgeKey };
  };
  /** Inserts a report as `report` says, compared with the report `baselineId` (or none); returns its id. */
  const addReport = async (projectId: string, uuid: string, analyzedAt: string, report: Stored, baselineId: number | null) => {
    const { payload, counts } = report;
    const git = payload.git;
    const id = await db.insert(insertReport, [
      uuid,
      projectId,
      ...Object.values(payload.summaryColumns),
      12.5,
      analyzedAt,
      analyzedAt,
      payload.stored.results,
      payload.stored.results_br,
      payload.metadata,
      payload.clientSummary,
      payload.configuration,
      git.branch,
      git.commit,
      git.pull_request,
      git.base_branch,
      baselineId,
      counts?.new ?? null,
      counts?.fixed ?? null,
      counts?.unchanged ?? null,
      report.gate,
      analyzedAt,
    ]);
    await db.insertMany(
      'report_issues',
      issueColumns,
      report.rows.map((row) => [id, ...issueColumns.slice(1).map((column) => row[column as keyof typeof row] ?? null)]),
    );
    return id;
  };

  const large: Seeded['large'] = { projectIds: [], apiTokens: [] };
  let changes: Seeded['changes'] = null;
  const changesRuns = options.changesProjectRuns ?? 0;
  try {
    await db.begin();
    for (let p = 0; p < options.projects; p++) {
      const id = uuidV7(start + p * 1000);
      const { token, badgeKey } = await addProject(id, `Project ${p}`, new Date(start + p * 1000).toISOString());
      if (p < 10) apiTokens.push(token);
      projectIds.push(id);
      badgeKeys.push(badgeKey);
      let latestMain: number | null = null;
      for (let r = 0; r < options.reportsPerProject; r++) {
        const kind = (p * options.reportsPerProject + r) % 50 === 0 ? stored.full : stored.small;
        const analyzedAt = new Date(start + p * 1000 + r * 60_000).toISOString();
        const uuid = uuidV7(start + p * 1000 + r);
        const reportId = await addReport(id, uuid, analyzedAt, latestMain === null ? kind.first : kind.next, latestMain);
        if (kind === stored.small) latestMain = reportId;
        reportIds.push(uuid);
      }
    }

    if ((options.largeProjects ?? 0) > 0 || changesRuns > 0) {
      // report-large.json has no git metadata: all its runs are on the null branch. Seeded a day
      // (and two) before the fixture's analyzed_at, so that an upload of it comes after them in
      // D19's order and takes the newest of them as its baseline. Created before every other
      // project (the end of the project list), and not in `projectIds`.
      const body = fixture('report-large');
      const fixtureTime = Date.parse(body.analyzed_at);
      const original = payloadOf(body);
      const variant = payloadOf({ ...body, results: largeVariant(body.results) });
      const first = storedAgainst(variant, null);
      for (let p = 0; p < (options.largeProjects ?? 0); p++) {
        const id = uuidV7(start - 86_400_000 + p * 1000);
        large.apiTokens.push((await addProject(id, `Large ${p}`, new Date(start - 86_400_000 + p * 1000).toISOString())).token);
        large.projectIds.push(id);
        await addReport(id, uuidV7(fixtureTime - 86_400_000 + p), new Date(fixtureTime - 86_400_000).toISOString(), first, null);
      }
      if (changesRuns > 0) {
        const id = uuidV7(start - 2 * 86_400_000);
        await addProject(id, 'Changes', new Date(start - 2 * 86_400_000).toISOString());
        const againstVariant = storedAgainst(original, variant);
        const again = storedAgainst(original, original);
        let previous: number | null = null;
        for (let run = 0; run < Math.max(2, changesRuns); run++) {
          const at = fixtureTime - (changesRuns + 1 - run) * 86_400_000;
          const uuid = uuidV7(at);
          previous = await addReport(
            id,
            uuid,
            new Date(at).toISOString(),
            run === 0 ? first : run === 1 ? againstVariant : again,
            previous,
          );
          if (run === 1) changes = { projectId: id, reportId: uuid };
        }
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
  return {
    token: user.token,
    projectIds,
    apiToken: apiTokens[0] ?? '',
    apiTokens,
    badgeKeys,
    reportIds,
    reports: reportIds.length,
    large,
    changes,
  };
}

/**
 * The stored forms of the recorded payloads (shared by seed.ts and seed-scale.ts): `payloadOf` a body
 * as an upload stores it, `storedAgainst` what it stores against a baseline, and the small and full
 * reports as a project's first run and as a later one.
 */
export async function uploadPayloads(root: string) {
  // Realistic result payloads: mostly the small recorded report (10 analyzers), and the full one
  // (155 analyzers, 150 KB) for one report in fifty, to keep the file near 1.5 GB at full size.
  // Stored the way an upload stores them: the product's own normalisation, summary and, since
  // issue 13, git context, fingerprints, baseline, changes, gate and issue rows (E1), so that the
  // service's start finds nothing to back-fill (a raw fixture also lacks e.g. `location: null`,
  // and the report detail would fail to serialise it).
  const product = await productUploadCode(root);
  const settings = JSON.stringify({
    fail_on: 'high',
    fail_threshold: 60,
    primary_tracker: null,
    ticket_target_project_key: null,
    ticket_target_project_name: null,
    fail_on_new: 'high',
  });
  const gateSettings = product.parseStoredSettings(settings);
  const fixture = (name: string) => JSON.parse(readFileSync(join(root, 'test/fixtures/client-wire/reports', `${name}.json`), 'utf8'));

  /** A payload as stored: its columns but for E1's, its issues (fingerprinted) and its git context. */
  const payloadOf = (body: any) => {
    const results = product.normalizeResults(body.results);
    const metadata = product.asObject(body.metadata) as Record<string, unknown>;
    return {
      results,
      issues: product.fingerprintResults(results),
      // The row's results columns, compressed as an upload stores them (once per payload).
      stored: product.encodeResults(results),
      summary: product.summarizeResults(results),
      // The summary's columns, as an upload stores them (reports/report-summary.ts).
      summaryColumns: product.countColumnsOf(product.summarizeResults(results)),
      git: product.gitContextOf(metadata),
      metadata: JSON.stringify(metadata),
      clientSummary: body.summary === undefined ? null : JSON.stringify(body.summary),
      configuration: body.configuration === undefined ? null : JSON.stringify(product.normalizeConfiguration(body.configuration)),
    };
  };
  type Payload = ReturnType<typeof payloadOf>;
  /** What an upload of `payload` against a baseline with `baseline`'s issues (or none) stores. */
  const storedAgainst = (payload: Payload, baseline: Payload | null) => {
    let before = null;
    if (baseline !== null) {
      const fingerprints = baseline.issues.map((issue) => issue.fingerprint);
      const missing = new Set(product.missingFromReport(fingerprints, payload.issues));
      before = { fingerprints, gone: baseline.issues.filter((issue) => missing.has(issue.fingerprint)) };
    }
    const { rows, counts } = product.compareWithBaseline(payload.issues, before);
    const newBySeverity = { critical: 0, high: 0, medium: 0, low: 0, info: 0 };
    for (const row of rows) if (row.change === 'new' || (counts === null && row.change === null)) newBySeverity[row.severity] += 1;
    const { failedAnalyzers } = product.prepareResults(payload.results);
    const gate = product.applyQualityGate(gateSettings, { score: payload.summary.score, failedAnalyzers, newBySeverity });
    return { payload, rows, counts, gate: JSON.stringify({ passed: gate.passed, reasons: gate.reasons }) };
  };

  // The small report is a run of `main`, the full one a pull request into `main`: either's baseline
  // is the project's previous small report (E1.3), whose issues are always the small report's.
  const [small, full] = ['report-small', 'report-full'].map((name) => payloadOf(fixture(name))) as [Payload, Payload];
  const stored = {
    small: { first: storedAgainst(small, null), next: storedAgainst(small, small) },
    full: { first: storedAgainst(full, null), next: storedAgainst(full, small) },
  };
  return { product, settings, fixture, payloadOf, storedAgainst, stored };
}

/**
 * An earlier run of `report-large.json` (its results as sent): every tenth issue not there yet and
 * every twentieth (of the rest) worded differently, so that the fixture compared with it has new,
 * fixed and unchanged issues.
 */
function largeVariant(results: { issues?: unknown }[]): unknown[] {
  let n = 0;
  return results.map((result) => {
    if (!Array.isArray(result.issues)) return result;
    const issues = [];
    for (const issue of result.issues as { message: string }[]) {
      n++;
      if (n % 10 === 0) continue;
      issues.push(n % 20 === 5 ? { ...issue, message: `${issue.message} (earlier wording)` } : issue);
    }
    return { ...result, issues };
  });
}

export async function sqliteWriter(root: string, file: string): Promise<BulkWriter> {
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
    async first(sql, params) {
      let statement = statements.get(sql);
      if (!statement) statements.set(sql, (statement = db.prepare(sql)));
      return statement.get(...params);
    },
    async insert(sql, params) {
      let statement = statements.get(sql);
      if (!statement) statements.set(sql, (statement = db.prepare(sql)));
      return Number(statement.run(...params).lastInsertRowid);
    },
    async insertMany(table, columns, rows) {
      // One prepared single-row statement: SQLite in process does not gain from multi-row inserts.
      const sql = `insert into ${table} (${columns.join(', ')}) values (${columns.map(() => '?').join(', ')})`;
      let statement = statements.get(sql);
      if (!statement) statements.set(sql, (statement = db.prepare(sql)));
      for (const row of rows) statement.run(...row);
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

/**
 * PostgreSQL: a round trip per row would make the full seed (100,000 reports, about 900,000 issue
 * rows) take many minutes, so inserts are buffered and written as multi-row statements. An
 * `insert` that must return its new id takes one of a block of ids reserved from the table's
 * sequence (`nextval`, 1,000 at a time) and writes it explicitly, so that the caller gets its id
 * without waiting for the row. Buffers are written in the order of their first use (projects,
 * reports, issue rows: each references only rows written before it) whenever one is full, and before
 * any other statement and the commit.
 */
export async function postgresWriter(url: string): Promise<BulkWriter> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  let inTransaction = false;
  /** PostgreSQL's limit is 65,535 parameters a statement; rows per statement also stay under ROWS. */
  const MAX_PARAMETERS = 60_000;
  const ROWS = 1_000;
  interface Buffered {
    /** `insert into t (a, b)` */
    head: string;
    /** One row's values, `?` for each parameter (literals kept as they are). */
    tuple: string;
    perRow: number;
    rows: unknown[][];
  }
  const buffers = new Map<string, Buffered>();
  const reserved = new Map<string, number[]>();
  const numbered = (sql: string, start = 0) => {
    let n = start;
    return sql.replace(/\?/g, () => `$${++n}`);
  };
  const parse = (sql: string) => /^\s*(insert into (\w+) \(([^)]*)\))\s*values\s*\(([\s\S]*)\)\s*$/i.exec(sql);
  const buffer = async (key: string, head: string, tuple: string, params: unknown[]) => {
    let buffered = buffers.get(key);
    if (!buffered) buffers.set(key, (buffered = { head, tuple, perRow: params.length, rows: [] }));
    buffered.rows.push(params);
    if (buffered.rows.length >= Math.min(ROWS, Math.floor(MAX_PARAMETERS / Math.max(1, buffered.perRow)))) await flush();
  };
  const flush = async () => {
    for (const buffered of buffers.values()) {
      const { rows, perRow } = buffered;
      const per = Math.min(ROWS, Math.floor(MAX_PARAMETERS / Math.max(1, perRow)));
      for (let first = 0; first < rows.length; first += per) {
        const chunk = rows.slice(first, first + per);
        let n = 0;
        const values = chunk.map(() => {
          const tuple = numbered(buffered.tuple, n);
          n += perRow;
          return `(${tuple})`;
        });
        await client.query(`${buffered.head} values ${values.join(', ')}`, chunk.flat());
      }
      buffered.rows = [];
    }
  };
  const nextId = async (table: string) => {
    let ids = reserved.get(table);
    if (!ids || ids.length === 0) {
      const result = await client.query(`select nextval(pg_get_serial_sequence($1, 'id'))::bigint as id from generate_series(1, ${ROWS})`, [
        table,
      ]);
      reserved.set(table, (ids = result.rows.map((row: { id: string }) => Number(row.id))));
    }
    return ids.shift()!;
  };
  return {
    async run(sql, params) {
      const insert = parse(sql);
      if (insert) return buffer(sql, insert[1]!, insert[4]!, params);
      await flush();
      await client.query(numbered(sql), params);
    },
    async first(sql, params) {
      await flush();
      let n = 0;
      const result = await client.query(
        sql.replace(/\?/g, () => `$${++n}`),
        params,
      );
      return result.rows[0];
    },
    async insert(sql, params) {
      const insert = parse(sql);
      if (!insert) throw new Error(`not an insert: ${sql}`);
      const [, , table, columns, tuple] = insert;
      const id = await nextId(table!);
      await buffer(sql, `insert into ${table} (id, ${columns})`, `?, ${tuple}`, [id, ...params]);
      return id;
    },
    async insertMany(table, columns, rows) {
      const head = `insert into ${table} (${columns.join(', ')})`;
      const tuple = columns.map(() => '?').join(', ');
      for (const row of rows) await buffer(head, head, tuple, row);
    },
    async begin() {
      await client.query('begin');
      inTransaction = true;
    },
    async commit() {
      await flush();
      await client.query('commit');
      inTransaction = false;
      // Fresh tables: give the planner their statistics, and the visibility map its pages (index-only
      // scans, such as the deep page's, read the table for every row until a vacuum has set them),
      // now rather than when autovacuum gets to them, in the middle of a measurement.
      await client.query('vacuum (analyze)');
    },
    async close() {
      if (inTransaction) await client.query('rollback');
      await client.end();
    },
  };
}

/** The service's own upload normalisation and summary (from dist/, built before the harness runs). */
export async function productUploadCode(root: string) {
  const load = (path: string) => import(pathToFileURL(join(root, 'dist', path)).href);
  const normalize = {
    ...((await load('reports/upload/normalize-upload.js')) as {
      normalizeResults(results: unknown): unknown[];
      normalizeConfiguration(configuration: unknown): unknown;
    }),
    ...((await load('wire/json-values.js')) as { asObject(value: unknown): unknown }),
  };
  const { countColumnsOf } = (await load('reports/report-summary.js')) as {
    countColumnsOf(counts: unknown): Record<string, number>;
  };
  const { summarizeResults } = (await load('reports/results/summarize.js')) as {
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
  // Issue 13 (E1): git context, fingerprints, changes and the gate, as an upload computes them.
  // These shapes restate src/reports/changes/issue-changes.ts: the harness is compiled apart from src/ (its own
  // rootDir) and loads the product from dist/, as the service runs it.
  type Severity = 'critical' | 'high' | 'medium' | 'low' | 'info';
  interface IssueRow {
    change: 'new' | 'fixed' | 'unchanged' | null;
    change_rank: number;
    severity_rank: number;
    fingerprint: string;
    analyzer_id: string;
    analyzer_name: string;
    category: string | null;
    severity: Severity;
    message: string;
    file: string | null;
    line: number | null;
    column_number: number | null;
    position: number | null;
  }
  type IssueRecord = Omit<IssueRow, 'change' | 'change_rank' | 'severity_rank' | 'position'>;
  const changes = (await load('reports/changes/issue-changes.js')) as {
    fingerprintResults(results: unknown[]): IssueRecord[];
    missingFromReport(baselineFingerprints: readonly string[], issues: readonly IssueRecord[]): string[];
    compareWithBaseline(
      issues: readonly IssueRecord[],
      baseline: { fingerprints: readonly string[]; gone: readonly IssueRecord[] } | null,
    ): { rows: IssueRow[]; counts: { new: number; fixed: number; unchanged: number } | null };
  };
  const { gitContextOf } = (await load('reports/upload/git-context.js')) as {
    gitContextOf(metadata: Record<string, unknown>): {
      branch: string | null;
      commit: string | null;
      pull_request: string | null;
      base_branch: string | null;
    };
  };
  const { applyQualityGate } = (await load('reports/upload/quality-gate.js')) as {
    applyQualityGate(
      settings: unknown,
      report: { score: number; failedAnalyzers: unknown[]; newBySeverity: Record<Severity, number> },
    ): { passed: boolean; reasons: string[] };
  };
  const { prepareResults } = (await load('reports/upload/process-upload.js')) as {
    prepareResults(results: unknown[]): { failedAnalyzers: unknown[] };
  };
  const { parseStoredSettings } = (await load('projects/settings.js')) as { parseStoredSettings(json: string): unknown };
  const { encodeResults } = (await load('reports/results/results-encoding.js')) as {
    encodeResults(results: unknown[]): { results: string; results_br: Buffer };
  };
  return {
    ...normalize,
    summarizeResults,
    countColumnsOf,
    fingerprintResults: changes.fingerprintResults,
    missingFromReport: changes.missingFromReport,
    compareWithBaseline: changes.compareWithBaseline,
    gitContextOf,
    applyQualityGate,
    prepareResults,
    parseStoredSettings,
    encodeResults,
  };
}

export const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');

export function randomToken(): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  return Array.from(randomBytes(40), (byte) => alphabet[byte % alphabet.length]).join('');
}

/** A UUID v7 for the given time (ids sort by creation, D11). */
export function uuidV7(ms: number): string {
  const bytes = randomBytes(16);
  bytes.writeUIntBE(ms, 0, 6);
  bytes[6] = (bytes[6]! & 0x0f) | 0x70;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
