import type { Db } from '../db/database.js';
import { undismissedNew } from '../issues/undismissed-new.js';
import { SEVERITIES, type Severity, severitiesAtOrAbove } from '../reports/vocabulary.js';
import type { DigestProject, ListedIssue, ReportFacts } from './email-kinds.js';
import type { NewIssuesLevel } from './notification-vocabulary.js';

/**
 * E11.3's reads: what an email says, read when it is sent (so that an issue dismissed or reassigned
 * since, a report deleted, a member who left, are taken into account), and whom a report's events
 * concern, read when its emails are written.
 */

/** How many issues an email lists at most (E11.3). */
export const LISTED_MAX = 20;

export interface ReportRow extends ReportFacts {
  reportId: number;
  teamId: number;
  analyzedAt: string;
  pullRequest: string | null;
}

export async function readReport(db: Db, reportId: number): Promise<ReportRow | null> {
  const row = await db
    .selectFrom('reports as r')
    .innerJoin('projects as p', 'p.id', 'r.project_id')
    .select([
      'r.id',
      'r.uuid',
      'r.project_id',
      'r.score',
      'r.gate',
      'r.git_branch',
      'r.git_commit',
      'r.pull_request',
      'r.analyzed_at',
      'p.name as project_name',
      'p.team_id',
    ])
    .where('r.id', '=', reportId)
    .executeTakeFirst();
  if (row === undefined) return null;
  const gate = row.gate === null ? null : (JSON.parse(row.gate) as { passed: boolean; reasons?: string[] });
  return {
    reportId: row.id,
    teamId: row.team_id,
    analyzedAt: row.analyzed_at,
    pullRequest: row.pull_request,
    projectId: row.project_id,
    projectName: row.project_name,
    reportUuid: row.uuid,
    branch: row.git_branch,
    commit: row.git_commit,
    score: row.score,
    gate: gate === null ? null : { passed: gate.passed === true, reasons: gate.reasons ?? [] },
    hadPrevious: false,
  };
}

/** Reports of the same branch, pull requests' left out (E11.3: they never notify). */
function sameBranch(db: Db, report: ReportRow) {
  let query = db.selectFrom('reports').where('project_id', '=', report.projectId).where('pull_request', 'is', null);
  query = report.branch === null ? query.where('git_branch', 'is', null) : query.where('git_branch', '=', report.branch);
  return query;
}

/**
 * E11.3's flip: `gate_failed` when the report's gate failed and the report before it on its branch
 * (D19's order) passed, had no gate, or does not exist; `gate_recovered` when it passes and that
 * one failed. A report that arrived after a later-analysed one of its branch (a late upload) flips
 * nothing: the news it would bring is already old.
 */
export async function gateFlip(
  db: Db,
  report: ReportRow,
): Promise<{ kind: 'gate_failed' | 'gate_recovered'; hadPrevious: boolean } | null> {
  if (report.gate === null || report.pullRequest !== null) return null;
  const overtaken = await sameBranch(db, report)
    .select('id')
    .where('id', '<', report.reportId)
    .where('analyzed_at', '>', report.analyzedAt)
    .limit(1)
    .executeTakeFirst();
  if (overtaken !== undefined) return null;
  const previous = await sameBranch(db, report)
    .select('gate')
    .where((eb) =>
      eb.or([
        eb('analyzed_at', '<', report.analyzedAt),
        eb.and([eb('analyzed_at', '=', report.analyzedAt), eb('id', '<', report.reportId)]),
      ]),
    )
    .orderBy('analyzed_at', 'desc')
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
  const previousFailed = previous?.gate != null && (JSON.parse(previous.gate) as { passed?: unknown }).passed === false;
  if (!report.gate.passed && !previousFailed) return { kind: 'gate_failed', hadPrevious: previous !== undefined };
  if (report.gate.passed && previousFailed) return { kind: 'gate_recovered', hadPrevious: true };
  return null;
}

/** How many undismissed new issues the report has of each severity. */
export async function newIssueCounts(db: Db, report: ReportRow, now: string): Promise<Map<Severity, number>> {
  const rows = await undismissedNew(db, report.projectId, report.reportId, now)
    .select(['i.severity', (eb) => eb.fn.countAll<number | string>().as('n')])
    .groupBy('i.severity')
    .execute();
  return new Map(rows.map((row) => [row.severity as Severity, Number(row.n)]));
}

/** The issues a level counts: `high` counts critical and high. */
export function countAt(counts: Map<Severity, number>, level: Exclude<NewIssuesLevel, 'none'>): number {
  let sum = 0;
  for (const severity of severitiesAtOrAbove(level)) sum += counts.get(severity) ?? 0;
  return sum;
}

/** Up to LISTED_MAX undismissed new issues at `level` or above, most severe first, in upload order within a severity. */
export async function listedNewIssues(
  db: Db,
  report: ReportRow,
  level: Exclude<NewIssuesLevel, 'none'>,
  now: string,
): Promise<ListedIssue[]> {
  const rows = await undismissedNew(db, report.projectId, report.reportId, now)
    .where('i.severity', 'in', [...severitiesAtOrAbove(level)])
    .select(['i.severity', 'i.analyzer_name', 'i.message', 'i.file', 'i.line'])
    .orderBy('i.severity_rank')
    .orderBy('i.position')
    .orderBy('i.id')
    .limit(LISTED_MAX)
    .execute();
  return rows.map((row) => ({
    severity: row.severity as Severity,
    analyzerName: row.analyzer_name,
    message: row.message,
    file: row.file,
    line: row.line,
  }));
}

/** The team's members, with their address. */
export function teamMembers(db: Db, teamId: number): Promise<{ id: number; email: string }[]> {
  return db
    .selectFrom('team_members as m')
    .innerJoin('users as u', 'u.id', 'm.user_id')
    .select(['u.id', 'u.email'])
    .where('m.team_id', '=', teamId)
    .orderBy('u.id')
    .execute();
}

/** The user and whether they are in `teamId` (when given): null for a deleted user. */
export async function recipient(db: Db, userId: number, teamId?: number): Promise<{ email: string; member: boolean } | null> {
  const user = await db.selectFrom('users').select('email').where('id', '=', userId).executeTakeFirst();
  if (user === undefined) return null;
  if (teamId === undefined) return { email: user.email, member: true };
  const member = await db
    .selectFrom('team_members')
    .select('user_id')
    .where('team_id', '=', teamId)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return { email: user.email, member: member !== undefined };
}

/** A person as an email names them: their name, else their address. */
export async function personName(db: Db, userId: number | null): Promise<string> {
  if (userId === null) return 'Someone';
  const user = await db.selectFrom('users').select(['name', 'email']).where('id', '=', userId).executeTakeFirst();
  return user === undefined ? 'Someone' : user.name?.trim() || user.email;
}

/** The issues of `fingerprints` still assigned to `userId` in the project, most severe first. */
export async function assignedIssues(
  db: Db,
  projectId: string,
  userId: number,
  fingerprints: readonly string[],
): Promise<{ issues: ListedIssue[]; total: number }> {
  const rows = await db
    .selectFrom('issue_states')
    .select(['severity', 'analyzer_name', 'message', 'file', 'line'])
    .where('project_id', '=', projectId)
    .where('assignee_id', '=', userId)
    .where('fingerprint', 'in', fingerprints.length > 0 ? [...fingerprints] : [''])
    .execute();
  const rank = (severity: string) => SEVERITIES.indexOf(severity as Severity);
  rows.sort((a, b) => rank(a.severity) - rank(b.severity));
  return {
    total: rows.length,
    issues: rows.slice(0, LISTED_MAX).map((row) => ({
      severity: row.severity,
      analyzerName: row.analyzer_name,
      message: row.message,
      file: row.file,
      line: row.line,
    })),
  };
}

/**
 * E11.3's digest for one user: each project of their teams (muted ones left out) that had a report
 * in the week `[from, to)`, pull requests' left out. Its score and gate now are its latest report's
 * at the week's end; its score a week before is the latest report of that same branch before the
 * week; its new and fixed issues are the sums of E1's changes over that branch's reports of the week.
 */
export async function digestProjects(db: Db, userId: number, week: { from: string; to: string }): Promise<DigestProject[]> {
  const projects = await db
    .selectFrom('projects as p')
    .innerJoin('team_members as m', (join) => join.onRef('m.team_id', '=', 'p.team_id').on('m.user_id', '=', userId))
    .leftJoin('notification_mutes as n', (join) => join.onRef('n.project_id', '=', 'p.id').on('n.user_id', '=', userId))
    .where('n.user_id', 'is', null)
    .where((eb) =>
      eb.exists(
        eb
          .selectFrom('reports as r')
          .select('r.id')
          .whereRef('r.project_id', '=', 'p.id')
          .where('r.pull_request', 'is', null)
          .where('r.analyzed_at', '>=', week.from)
          .where('r.analyzed_at', '<', week.to),
      ),
    )
    .select(['p.id', 'p.name'])
    .orderBy('p.name')
    .orderBy('p.id')
    .execute();
  const out: DigestProject[] = [];
  for (const project of projects) {
    const latest = await db
      .selectFrom('reports')
      .select(['id', 'score', 'gate', 'git_branch'])
      .where('project_id', '=', project.id)
      .where('pull_request', 'is', null)
      .where('analyzed_at', '<', week.to)
      .orderBy('analyzed_at', 'desc')
      .orderBy('id', 'desc')
      .limit(1)
      .executeTakeFirstOrThrow();
    const branch = (query: ReturnType<typeof branchReports>) =>
      latest.git_branch === null ? query.where('git_branch', 'is', null) : query.where('git_branch', '=', latest.git_branch);
    const branchReports = () => db.selectFrom('reports').where('project_id', '=', project.id).where('pull_request', 'is', null);
    const [before, sums] = await Promise.all([
      branch(branchReports())
        .select('score')
        .where('analyzed_at', '<', week.from)
        .orderBy('analyzed_at', 'desc')
        .orderBy('id', 'desc')
        .limit(1)
        .executeTakeFirst(),
      branch(branchReports())
        .select((eb) => [
          eb.fn.countAll<number | string>().as('reports'),
          eb.fn.sum<number | string | null>('changes_new').as('new_issues'),
          eb.fn.sum<number | string | null>('changes_fixed').as('fixed_issues'),
        ])
        .where('analyzed_at', '>=', week.from)
        .where('analyzed_at', '<', week.to)
        .executeTakeFirstOrThrow(),
    ]);
    const gate = latest.gate === null ? null : (JSON.parse(latest.gate) as { passed?: unknown }).passed === false ? 'failed' : 'passed';
    out.push({
      projectId: project.id,
      projectName: project.name,
      score: latest.score,
      scoreBefore: before?.score ?? null,
      gate,
      reports: Number(sums.reports),
      newIssues: Number(sums.new_issues ?? 0),
      fixedIssues: Number(sums.fixed_issues ?? 0),
    });
  }
  return out;
}
