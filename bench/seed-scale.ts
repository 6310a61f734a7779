import { randomBytes } from 'node:crypto';
import {
  ISSUE_COLUMNS,
  postgresWriter,
  randomToken,
  seed,
  sha256,
  sqliteWriter,
  uploadPayloads,
  uuidV7,
  type BulkWriter,
  type Seeded,
} from './seed.js';

/**
 * Issue 15 item 5: a database of 1,000,000 reports across 10,000 projects, seeded in minutes.
 *
 * The user, its tokens and the changes list's project (runs of report-large.json) come from seed.ts,
 * as the small seed has them (`base*` adds seed.ts's own projects: the small seed is seed.ts with
 * 10,000 projects x 10 reports, plus the hot project below). The bulk is written here:
 *
 * - `projects` projects (created a second apart, like seed.ts's), `reports` reports spread evenly
 *   over them, and one more project (the "hot" one, created before all others: the end of the
 *   project list) with `hotReports` reports;
 * - every bulk report is a run of report-small.json on `main`, stored as an upload stores it (the
 *   same normalised results, summary, gate and issue rows seed.ts computes, computed once and shared
 *   by every row): a project's first run has no baseline, each later one has the run before it;
 * - report ids are chosen here (so a run's baseline is the id before it, and a project's latest
 *   report is known when the project is written); SQLite: one prepared single-row insert per report,
 *   in one transaction; PostgreSQL: 10,000 reports per statement (`unnest` of one array per varying
 *   column, the shared payload as one parameter);
 * - the issue rows (7 per report) are copied inside the database from a temporary table of the two
 *   kinds' rows (first run, later run), 100,000 reports per statement.
 */
export interface ScaleSeeded extends Seeded {
  /** The project with `hotReports` reports, and its newest report's uuid. */
  hot: { projectId: string; reports: number };
  /** Every report in the database: seed.ts's, the bulk and the changes project's. */
  totalReports: number;
  seconds: { base: number; bulk: number; total: number };
}

const DAY = 86_400_000;

export async function seedScale(options: {
  root: string;
  env: NodeJS.ProcessEnv;
  /** Bulk projects (besides the hot one and seed.ts's). */
  projects: number;
  /** Reports spread over the bulk projects. */
  reports: number;
  hotReports: number;
  changesProjectRuns: number;
  /** seed.ts's own projects and reports per project (the small seed), 0 by default. */
  baseProjects?: number;
  baseReportsPerProject?: number;
  log?: (message: string) => void;
}): Promise<ScaleSeeded> {
  const log = options.log ?? (() => {});
  const started = Date.now();
  const base = await seed({
    root: options.root,
    env: options.env,
    projects: options.baseProjects ?? 0,
    reportsPerProject: options.baseReportsPerProject ?? 0,
    changesProjectRuns: options.changesProjectRuns,
  });
  const baseSeconds = (Date.now() - started) / 1000;
  log(`scale seed: seed.ts part (${base.reports} reports, changes project) in ${baseSeconds.toFixed(1)} s`);

  const databaseUrl = options.env.DATABASE_URL ?? '';
  const postgres = /^postgres(ql)?:/.test(databaseUrl);
  const db: BulkWriter = postgres
    ? await postgresWriter(databaseUrl)
    : await sqliteWriter(options.root, databaseUrl.replace(/^sqlite:/, ''));
  const { settings, stored } = await uploadPayloads(options.root);
  const { first, next } = stored.small;
  const bulkStarted = Date.now();
  let hot: ScaleSeeded['hot'];
  const projectIds: string[] = [];
  const badgeKeys: string[] = [];
  const reportIds: string[] = [];
  let totalReports = 0;
  try {
    await db.begin();
    const teamId = Number((await db.first('select id from teams order by id limit 1', []))!.id);
    let nextId = Number((await db.first('select coalesce(max(id), 0) as id from reports', []))!.id) + 1;
    const firstBulkId = nextId;

    const start = Date.UTC(2026, 0, 1);
    // Projects: the bulk ones a second apart from seed.ts's first (so with a base seed they are
    // interleaved in time, never equal), the hot one three days before (after the changes project).
    const plan: { id: string; name: string; at: number; reports: number }[] = [];
    const perProject = options.projects > 0 ? Math.floor(options.reports / options.projects) : 0;
    const extra = options.projects > 0 ? options.reports - perProject * options.projects : 0;
    for (let p = 0; p < options.projects; p++) {
      const at = start + p * 1000 + 500;
      plan.push({ id: uuidV7(at), name: `Bulk ${p}`, at, reports: perProject + (p < extra ? 1 : 0) });
    }
    const hotAt = start - 3 * DAY;
    plan.push({ id: uuidV7(hotAt), name: 'Hot', at: hotAt, reports: options.hotReports });
    hot = { projectId: plan.at(-1)!.id, reports: options.hotReports };

    // Reports of one statement (PostgreSQL) or one transaction's worth of rows (SQLite).
    const varying = ['id', 'uuid', 'project_id', 'at', 'baseline_report_id', 'changes_new', 'changes_fixed', 'changes_unchanged', 'gate'];
    const constants: [string, unknown][] = [
      ...Object.entries(first.payload.summaryColumns),
      ['framework_version', '11.44.2'],
      ['package_version', 'v1.13.3'],
      ['total_execution_time', 12.5],
      ['triggered_by', 'ci_cd'],
      ['results', first.payload.stored.results],
      ['results_br', first.payload.stored.results_br],
      ['metadata', first.payload.metadata],
      ['client_summary', first.payload.clientSummary],
      ['configuration', first.payload.configuration],
      ['git_branch', first.payload.git.branch],
      ['git_commit', first.payload.git.commit],
      ['pull_request', first.payload.git.pull_request],
      ['base_branch', first.payload.git.base_branch],
    ];
    const columns = [
      'id',
      'uuid',
      'project_id',
      'analyzed_at',
      'created_at',
      'fingerprinted_at',
      'baseline_report_id',
      'changes_new',
      'changes_fixed',
      'changes_unchanged',
      'gate',
      ...constants.map(([column]) => column),
    ];
    const pgTypes = ['int', 'text', 'text', 'text', 'int', 'int', 'int', 'int', 'text'];
    const insertBatch = postgres
      ? // One statement per batch: one array per varying column; the shared payload once.
        `insert into reports (${columns.join(', ')})
         select u.id, u.uuid, u.project_id, u.at, u.at, u.at, u.baseline_report_id, u.changes_new, u.changes_fixed,
           u.changes_unchanged, u.gate, ${constants.map(([column]) => `?::${pgTypeOf(column)}`).join(', ')}
         from unnest(${pgTypes.map((type) => `?::${type}[]`).join(', ')}) as u(${varying.join(', ')})`
      : `insert into reports (${columns.join(', ')}) values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ${constants.map(() => '?').join(', ')})`;
    const constantValues = constants.map(([, value]) => value);
    const batch: unknown[][] = varying.map(() => []);
    let batched = 0;
    const flush = async () => {
      if (batched === 0) return;
      if (postgres) await db.run(insertBatch, [...constantValues, ...batch]);
      for (const values of batch) values.length = 0;
      batched = 0;
    };
    const addReport = async (row: unknown[]) => {
      if (!postgres) {
        const [id, uuid, projectId, at, baseline, changesNew, changesFixed, changesUnchanged, gate] = row;
        await db.run(insertBatch, [
          id,
          uuid,
          projectId,
          at,
          at,
          at,
          baseline,
          changesNew,
          changesFixed,
          changesUnchanged,
          gate,
          ...constantValues,
        ]);
        return;
      }
      for (let i = 0; i < row.length; i++) batch[i]!.push(row[i]);
      if (++batched === 10_000) await flush();
    };

    const projectColumns = [
      'id',
      'team_id',
      'name',
      'repository_url',
      'framework_version',
      'settings',
      'api_token_hash',
      'badge_key',
      'latest_report_id',
      'created_at',
      'updated_at',
    ];
    const projectRows: unknown[][] = [];
    for (const project of plan) {
      const at = new Date(project.at).toISOString();
      const token = randomToken();
      const badgeKey = randomToken().slice(0, 32);
      const lastId = project.reports > 0 ? nextId + project.reports - 1 : null;
      projectRows.push([
        project.id,
        teamId,
        project.name,
        `https://github.com/acme/${project.name.toLowerCase().replace(/ /g, '-')}`,
        '11',
        settings,
        sha256(token),
        badgeKey,
        lastId,
        at,
        at,
      ]);
      if (project !== plan.at(-1)) {
        projectIds.push(project.id);
        badgeKeys.push(badgeKey);
      }
      nextId += project.reports;
    }
    await db.insertMany('projects', projectColumns, projectRows);
    log(`scale seed: ${plan.length} projects`);

    nextId = firstBulkId;
    let written = 0;
    for (const project of plan) {
      for (let r = 0; r < project.reports; r++) {
        const at = project.at + r * 60_000;
        const uuid = uuidV7(at);
        const kind = r === 0 ? first : next;
        await addReport([
          nextId,
          uuid,
          project.id,
          new Date(at).toISOString(),
          r === 0 ? null : nextId - 1,
          kind.counts?.new ?? null,
          kind.counts?.fixed ?? null,
          kind.counts?.unchanged ?? null,
          kind.gate,
        ]);
        if (project !== plan.at(-1) && reportIds.length < 100_000) reportIds.push(uuid);
        nextId++;
        if (++written % 200_000 === 0) log(`scale seed: ${written} reports (${((Date.now() - bulkStarted) / 1000).toFixed(0)} s)`);
      }
    }
    await flush();
    const lastBulkId = nextId - 1;
    log(`scale seed: ${written} reports written (${((Date.now() - bulkStarted) / 1000).toFixed(0)} s)`);

    // The issue rows: 7 per report, copied inside the database from the two kinds' rows.
    const integer = new Set(['change_rank', 'severity_rank', 'line', 'column_number', 'position']);
    await db.run(
      `create temporary table seed_issue_templates (kind integer, seq integer, ${ISSUE_COLUMNS.map((c) => `${c} ${integer.has(c) ? 'integer' : 'text'}`).join(', ')})`,
      [],
    );
    for (const [kind, rows] of [first.rows, next.rows].entries()) {
      for (const [seq, row] of rows.entries()) {
        await db.run(`insert into seed_issue_templates values (?, ?, ${ISSUE_COLUMNS.map(() => '?').join(', ')})`, [
          kind,
          seq,
          ...ISSUE_COLUMNS.map((column) => row[column as keyof typeof row] ?? null),
        ]);
      }
    }
    for (let from = firstBulkId; from <= lastBulkId; from += 100_000) {
      await db.run(
        `insert into report_issues (report_id, ${ISSUE_COLUMNS.join(', ')})
         select r.id, ${ISSUE_COLUMNS.map((c) => `t.${c}`).join(', ')}
         from reports r join seed_issue_templates t on t.kind = case when r.baseline_report_id is null then 0 else 1 end
         where r.id >= ? and r.id < ? order by r.id, t.seq`,
        [from, Math.min(from + 100_000, lastBulkId + 1)],
      );
    }
    await db.run('drop table seed_issue_templates', []);
    log(`scale seed: issue rows (${((Date.now() - bulkStarted) / 1000).toFixed(0)} s)`);

    await db.run('update teams set projects_count = (select count(*) from projects where projects.team_id = teams.id)', []);
    // Ids were chosen here: the sequence must continue after them (PostgreSQL; SQLite's
    // autoincrement follows the largest id by itself).
    if (postgres) await db.run(`select setval(pg_get_serial_sequence('reports', 'id'), (select max(id) from reports))`, []);
    totalReports = Number((await db.first('select count(*) as n from reports', []))!.n);
    // On PostgreSQL the commit also vacuums and analyses (seed.ts's writer): the visibility map of
    // the new rows now (index-only scans need it), rather than autovacuum's pass over a million new
    // rows in the middle of the measurement.
    await db.commit();
  } finally {
    await db.close();
  }
  const bulkSeconds = (Date.now() - bulkStarted) / 1000;
  return {
    ...base,
    projectIds: [...base.projectIds, ...projectIds],
    badgeKeys: [...base.badgeKeys, ...badgeKeys],
    reportIds: [...base.reportIds, ...reportIds],
    reports: base.reports + reportIds.length,
    hot: hot!,
    totalReports,
    seconds: { base: baseSeconds, bulk: bulkSeconds, total: (Date.now() - started) / 1000 },
  };
}

/** The PostgreSQL type of a shared report column (a parameter in a select list has none of its own). */
function pgTypeOf(column: string): string {
  if (column === 'results_br') return 'bytea';
  if (column === 'total_execution_time') return 'double precision';
  return /^(score|total|passed|failed|warnings|skipped|errors|total_issues|issues_\w+)$/.test(column) ? 'int' : 'text';
}

// A random suffix for names that must not collide across runs (the PostgreSQL databases).
export const runSuffix = () => randomBytes(4).toString('hex');
