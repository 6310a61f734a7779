import type { Db } from '../db/database.js';
import { undismissedNew } from '../issues/undismissed-new.js';
import type { Severity } from '../reports/vocabulary.js';
import { ANNOTATIONS_MAX, type AnnotationIssue, type FeedbackFacts, type FeedbackIssue, LISTED_ISSUES_MAX } from './feedback-text.js';
import { type CodeHostProvider, fileUrl } from './repository-names.js';

/**
 * What E10's feedback says of a stored report, read when the call is made rather than when the
 * report was stored: an issue dismissed in between (E8) is left out, as the dashboard leaves it out.
 * The report's own columns hold its score, gate and counts (E1.4, E1.8); its new issues are its
 * `report_issues` rows marked `new`, most severe first, in upload order within a severity.
 */

export interface ReportFeedback {
  facts: FeedbackFacts;
  reportId: number;
  analyzedAt: string;
}

export interface FeedbackHost {
  provider: CodeHostProvider;
  base_url: string;
  repository: string;
}

/** The report's feedback, or null when the report is gone (deleted since its upload). */
export async function readFeedback(
  db: Db,
  input: { projectId: string; reportId: number; host: FeedbackHost; dashboardBase: string; now: string },
): Promise<ReportFeedback | null> {
  const report = await db
    .selectFrom('reports as r')
    .innerJoin('projects as p', 'p.id', 'r.project_id')
    .leftJoin('reports as b', 'b.id', 'r.baseline_report_id')
    .select([
      'r.id',
      'r.uuid',
      'r.score',
      'r.gate',
      'r.changes_new',
      'r.changes_fixed',
      'r.git_commit',
      'r.git_branch',
      'r.base_branch',
      'r.pull_request',
      'r.analyzed_at',
      'p.name as project_name',
      'b.score as baseline_score',
      'b.git_branch as baseline_branch',
    ])
    .where('r.id', '=', input.reportId)
    .where('r.project_id', '=', input.projectId)
    .executeTakeFirst();
  if (report === undefined) return null;

  const listed = undismissedNew(db, input.projectId, report.id, input.now);
  const [rows, counted] = await Promise.all([
    listed
      .select(['i.severity', 'i.analyzer_name', 'i.message', 'i.file', 'i.line'])
      .orderBy('i.severity_rank')
      .orderBy('i.position')
      .orderBy('i.id')
      .limit(LISTED_ISSUES_MAX)
      .execute(),
    listed.select((eb) => eb.fn.countAll<number | string>().as('n')).executeTakeFirst(),
  ]);
  const commit = report.git_commit;
  const newIssues: FeedbackIssue[] = rows.map((row) => ({
    severity: row.severity as Severity,
    analyzerName: row.analyzer_name,
    message: row.message,
    file: row.file,
    line: row.line,
    fileUrl: row.file !== null && commit !== null ? fileUrl(input.host, commit, row.file, row.line) : null,
  }));
  const gate = report.gate === null ? null : (JSON.parse(report.gate) as { passed: boolean; reasons?: string[] });
  const reportUrl = `${input.dashboardBase}/reports/${encodeURIComponent(report.uuid)}`;
  return {
    reportId: report.id,
    analyzedAt: report.analyzed_at,
    facts: {
      projectId: input.projectId,
      projectName: report.project_name,
      reportUrl,
      changesUrl: `${reportUrl}?tab=new`,
      commit,
      branch: report.git_branch,
      baseBranch: report.baseline_branch ?? report.base_branch,
      pullRequest: report.pull_request,
      score: report.score,
      baselineScore: report.baseline_score ?? null,
      gate: gate === null ? null : { passed: gate.passed, reasons: gate.reasons ?? [] },
      newCount: report.changes_new,
      fixedCount: report.changes_fixed,
      newIssues,
      newIssuesTotal: Number(counted?.n ?? 0),
    },
  };
}

/** E10.5: the report's undismissed new issues that name a file and a line, most severe first, at most 1,000. */
export async function annotationIssues(db: Db, projectId: string, reportId: number, now: string): Promise<AnnotationIssue[]> {
  const rows = await undismissedNew(db, projectId, reportId, now)
    .where('i.file', 'is not', null)
    .where('i.line', '>', 0)
    .select(['i.severity', 'i.analyzer_name', 'i.message', 'i.file', 'i.line'])
    .orderBy('i.severity_rank')
    .orderBy('i.position')
    .orderBy('i.id')
    .limit(ANNOTATIONS_MAX)
    .execute();
  return rows.map((row) => ({
    severity: row.severity as Severity,
    analyzerName: row.analyzer_name,
    message: row.message,
    file: row.file!,
    line: row.line!,
  }));
}
