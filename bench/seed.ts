import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { execFileSync } from 'node:child_process';

/**
 * A fresh benchmark database: one enterprise user whose team has `projects` projects with
 * `reportsPerProject` reports each, the results of every report taken from the client's recorded
 * payloads (test/fixtures/client-wire). The schema comes from the product (`scoreboard migrate`,
 * `scoreboard users:create`); the bulk rows are written directly, in one transaction, because
 * 100,000 uploads over HTTP would take longer than the benchmark itself.
 */
export interface Seeded {
  /** The user's personal access token. */
  token: string;
  projectIds: string[];
  /** The API token of the first project (uploads go there). */
  apiToken: string;
  reports: number;
}

interface FixtureResult {
  status: string;
  issues: unknown[] | Record<string, unknown>;
}

export async function seed(options: {
  root: string;
  databaseFile: string;
  env: NodeJS.ProcessEnv;
  projects: number;
  reportsPerProject: number;
}): Promise<Seeded> {
  const { root, databaseFile, env } = options;
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

  const { SqliteDatabase } = (await import(pathToFileURL(join(root, 'dist/db/sqlite-binding.js')).href)) as {
    SqliteDatabase: new (file: string) => any;
  };
  const db = new SqliteDatabase(databaseFile);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = OFF');

  // Realistic result payloads: mostly the small recorded report (10 analyzers), and the full one
  // (155 analyzers, 150 KB) for one report in fifty, to keep the file near 1.5 GB at full size.
  const payloads = ['report-small', 'report-full'].map((name) => {
    const body = JSON.parse(readFileSync(join(root, 'test/fixtures/client-wire/reports', `${name}.json`), 'utf8'));
    return { body, summary: summarize(body.results as FixtureResult[]), results: JSON.stringify(body.results), metadata: JSON.stringify(body.metadata) };
  });

  const insertProject = db.prepare(
    `insert into projects (id, team_id, name, description, repository_url, framework_version, settings, api_token_hash,
       latest_report_id, archived_at, created_at, updated_at)
     values (?, ?, ?, null, ?, '11', ?, ?, null, null, ?, ?)`,
  );
  const insertReport = db.prepare(
    `insert into reports (uuid, project_id, score, total, passed, failed, warnings, skipped, errors, total_issues,
       issues_critical, issues_high, issues_medium, issues_low, issues_info, framework_version, package_version,
       total_execution_time, triggered_by, analyzed_at, created_at, results, metadata, pro_package_version,
       client_summary, configuration)
     values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, '11.44.2', 'v1.13.3', ?, 'ci_cd', ?, ?, ?, ?, null, null, '{}')`,
  );
  const settings = JSON.stringify({ fail_on: 'high', fail_threshold: 60, primary_tracker: null, ticket_target_project_key: null, ticket_target_project_name: null });
  const projectIds: string[] = [];
  let apiToken = '';
  const start = Date.UTC(2026, 0, 1);
  let reports = 0;

  db.transaction(() => {
    for (let p = 0; p < options.projects; p++) {
      const id = uuidV7(start + p * 1000);
      const token = randomToken();
      if (p === 0) apiToken = token;
      const at = new Date(start + p * 1000).toISOString();
      insertProject.run(id, user.team.id, `Project ${p}`, `https://github.com/acme/project-${p}`, settings, sha256(token), at, at);
      projectIds.push(id);
      for (let r = 0; r < options.reportsPerProject; r++) {
        const payload = payloads[(p * options.reportsPerProject + r) % 50 === 0 ? 1 : 0]!;
        const s = payload.summary;
        const analyzedAt = new Date(start + p * 1000 + r * 60_000).toISOString();
        insertReport.run(uuidV7(start + p * 1000 + r), id, s.score, s.total, s.passed, s.failed, s.warnings, s.skipped, s.errors,
          s.totalIssues, s.critical, s.high, s.medium, s.low, s.info, 12.5, analyzedAt, analyzedAt, payload.results, payload.metadata);
        reports += 1;
      }
    }
    // The team's project count (migration 0003) and, D19, each project's pointer to its newest
    // report, as the service keeps them.
    db.prepare('update teams set projects_count = (select count(*) from projects where projects.team_id = teams.id)').run();
    db.prepare(
      `update projects set latest_report_id = (select r.id from reports r where r.project_id = projects.id
         order by r.analyzed_at desc, r.id desc limit 1)`,
    ).run();
  })();
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
  return { token: user.token, projectIds, apiToken, reports };
}

function summarize(results: FixtureResult[]) {
  const count = (status: string) => results.filter((r) => r.status === status).length;
  const issues = results.flatMap((r) => (Array.isArray(r.issues) ? r.issues : Object.values(r.issues))) as { severity: string }[];
  const bySeverity = (severity: string) => issues.filter((i) => i.severity === severity).length;
  const passed = count('passed');
  const skipped = count('skipped');
  return {
    total: results.length,
    passed,
    failed: count('failed'),
    warnings: count('warning'),
    skipped,
    errors: count('error'),
    totalIssues: issues.length,
    critical: bySeverity('critical'),
    high: bySeverity('high'),
    medium: bySeverity('medium'),
    low: bySeverity('low'),
    info: bySeverity('info'),
    score: results.length - skipped === 0 ? 100 : Math.round((100 * passed) / (results.length - skipped)),
  };
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
