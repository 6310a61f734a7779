import { v7 as uuidv7 } from 'uuid';
import type { Caller } from '../auth/caller.js';
import { recordAudit } from '../audit/audit-log.js';
import { recheckActor, type WriteCredential } from '../auth/write-credential.js';
import { asObject, pastTimestamp } from '../http/json-values.js';
import type { Clock } from '../clock.js';
import type { RepositoriesOn } from '../repositories.js';
import { inTransaction, type Db } from '../db/database.js';
import { lockForUpdate } from '../db/dialect.js';
import { notFound } from '../http/api-error.js';
import { pageOffset, paginationEnvelope, PAGE_SIZE } from '../http/pagination.js';
import { mayPerform, UUID_PATTERN, type ProjectAction } from '../projects/permissions.js';
import type { ProjectTokenCredential } from '../projects/project-api-token.js';
import { parseStoredSettings } from '../projects/settings.js';
import { normalizeConfiguration, normalizeResults } from './normalize-upload.js';
import type { IssueRow } from './changes.js';
import { applyQualityGate, type GateOutcome } from './quality-gate.js';
import { changeColumns, recordChanges } from './report-changes.js';
import type { StoredResult } from './report-results.js';
import { toReportDetail } from './report-detail.js';
import {
  toChangeItem,
  toReportListItem,
  toReportSummary,
  toTrendPoint,
  type ChangesFilter,
  type NewReport,
  type ReportRow,
} from './reports.repository.js';
import type { ReportDetail, ReportSummary } from './reports.schemas.js';
import { encodeResults, type ResultsColumns } from './stored-results.js';
import { summarizeResults } from './summarize.js';
import type { ReportUploadInput } from './upload.schemas.js';

/**
 * Reports: receiving uploads, reading and deleting them. Every write to `reports` goes through here
 * so that the project's latest-report pointer (D19) changes in the same transaction.
 */
export function createReportsService(deps: { db: Db; clock: Clock; repositories: RepositoriesOn }) {
  const { db, repositories } = deps;
  const now = () => deps.clock.now().toISOString();
  const reports = repositories(db).reports;

  /**
   * Stores a report with what E1 records about it (git context, baseline, fingerprints, changes)
   * and moves the project's latest-report pointer; the caller holds the project's lock. `gateOf`
   * decides the stored gate from the changes (E1.7, E1.8).
   */
  async function insertReport(
    trx: Db,
    report: ReportToStore,
    results: readonly StoredResult[],
    gateOf: (newIssues: readonly IssueRow[]) => GateOutcome | null,
  ): Promise<{ row: NewReport; id: number; gate: GateOutcome | null }> {
    const repository = repositories(trx).reports;
    const metadata = JSON.parse(report.metadata) as Record<string, unknown>;
    const changes = await recordChanges(repository, {
      projectId: report.project_id,
      results,
      metadata,
      analyzedAt: report.analyzed_at,
      id: null,
    });
    // E1.7: without a baseline every issue counts as new.
    const gate = gateOf(changes.rows.filter((issue) => issue.change === 'new' || (changes.counts === null && issue.change === null)));
    const row: NewReport = {
      ...report,
      ...encodeResults(results),
      ...changeColumns(changes),
      gate: gate === null ? null : JSON.stringify({ passed: gate.passed, reasons: gate.reasons }),
      fingerprinted_at: report.created_at,
    };
    const id = await repository.insert(row);
    await repository.insertIssues(id, changes.rows);
    await repository.refreshLatest(report.project_id);
    return { row, id, gate };
  }

  return {
    /** The operator's (and the test factories') way to store a report, all or nothing; no gate is recorded. */
    async storeReport(report: ReportToStore, results: readonly StoredResult[] = []): Promise<number> {
      return inTransaction(db, async (trx) => {
        await lockForUpdate(trx, 'projects', report.project_id);
        return (await insertReport(trx, report, results, () => null)).id;
      });
    },

    /**
     * CLIENT-WIRE.md "What the service does with a report": normalise the PHP encodings, recompute
     * the summary from the results (the client's `summary` is kept only as sent), store, and apply
     * the project's quality gate to what was stored.
     */
    async receiveUpload(
      credential: ProjectTokenCredential,
      projectId: string,
      upload: ReportUploadInput,
    ): Promise<{ report: ReportSummary; gate: GateOutcome }> {
      const results = normalizeResults(upload.results);
      const counts = summarizeResults(results);
      const receivedAt = now();
      const report: ReportToStore = {
        uuid: uuidv7(),
        project_id: projectId,
        score: counts.score,
        total: counts.total,
        passed: counts.passed,
        failed: counts.failed,
        warnings: counts.warnings,
        skipped: counts.skipped,
        errors: counts.errors,
        total_issues: counts.total_issues,
        issues_critical: counts.issues_by_severity.critical,
        issues_high: counts.issues_by_severity.high,
        issues_medium: counts.issues_by_severity.medium,
        issues_low: counts.issues_by_severity.low,
        issues_info: counts.issues_by_severity.info,
        // The client calls it laravel_version; framework_version is accepted as an alias.
        framework_version: upload.laravel_version ?? upload.framework_version ?? null,
        package_version: upload.package_version ?? null,
        pro_package_version: upload.pro_package_version ?? null,
        // The client sends the sum of the analyzers' times; older ones may not.
        total_execution_time: upload.total_execution_time ?? sumExecutionTimes(results),
        triggered_by: upload.triggered_by ?? null,
        // D2: stored in UTC; a client that sends no time is taken to have analysed just now.
        analyzed_at: upload.analyzed_at ? pastTimestamp(upload.analyzed_at, 'analyzed_at', deps.clock.now()) : receivedAt,
        created_at: receivedAt,
        metadata: JSON.stringify(asObject(upload.metadata)),
        client_summary: upload.summary === undefined ? null : JSON.stringify(upload.summary),
        configuration: upload.configuration === undefined ? null : JSON.stringify(normalizeConfiguration(upload.configuration)),
      };
      // D22: stored only if the token still names this project and it is not archived, as of this
      // transaction; the gate applies the settings of that same moment.
      const stored = await inTransaction(db, async (trx) => {
        const settings = parseStoredSettings((await credential.recheck(trx)).settings);
        return insertReport(trx, report, results, (newIssues) => applyQualityGate(settings, { score: counts.score, results, newIssues }));
      });
      return { report: toReportSummary({ ...stored.row, id: stored.id }), gate: stored.gate! };
    },

    /** Paginated like D16, newest analyzed_at first (the order of D19); one branch's (E1.6), `null` for none. */
    async listReports(projectId: string, page: number, path: string, branch?: string | null) {
      const total = await reports.countForProject(projectId, branch);
      const offset = pageOffset(page);
      const rows = offset >= total ? [] : await reports.listForProject(projectId, { limit: PAGE_SIZE, offset }, branch);
      const filters = { branch: branch === undefined ? undefined : (branch ?? '') };
      return { data: rows.map(toReportListItem), ...paginationEnvelope({ path, page, total, count: rows.length, filters }) };
    },

    /** E2.1: the last `limit` reports of the project (or of one branch, `null` for none), oldest first. */
    async trend(projectId: string, branch: string | null | undefined, limit: number) {
      return { data: (await reports.trend(projectId, branch, limit)).map(toTrendPoint) };
    },

    /** E1.6: the latest report of each branch of the project, newest first. */
    async listBranches(projectId: string) {
      const rows = await reports.latestPerBranch(projectId);
      return { data: rows.map((row) => ({ name: row.git_branch, latest_report: toReportListItem(row) })) };
    },

    /** E1.6: the report's issues against its baseline, with the baseline's fixed ones; paginated like D16. */
    async listChanges(report: { id: number }, filter: ChangesFilter, page: number, path: string) {
      const total = await reports.countChanges(report.id, filter);
      const offset = pageOffset(page);
      const rows = offset >= total ? [] : await reports.listChanges(report.id, filter, { limit: PAGE_SIZE, offset });
      return {
        data: rows.map(toChangeItem),
        ...paginationEnvelope({ path, page, total, count: rows.length, filters: { kind: filter.kind, severity: filter.severity } }),
      };
    },

    /** D15 through the parent project: the report, if the caller may perform `action` on its project; else 404. */
    async resolveReport(caller: Caller, reportParam: string, action: ProjectAction): Promise<ReportRow> {
      if (!UUID_PATTERN.test(reportParam)) throw notFound();
      const found = await reports.findForMember(reportParam.toLowerCase(), caller.userId);
      if (!found || !mayPerform(found.role, action)) throw notFound();
      const { role: _role, ...report } = found;
      return report;
    },

    async detail(report: ReportRow): Promise<ReportDetail> {
      const detail = toReportDetail(report, report.fingerprinted_at === null ? null : await reports.issueMarks(report.id));
      // Deleted since it was resolved (D11's 404).
      if (detail === null) throw notFound();
      return detail;
    },

    /**
     * Deleting the latest report makes the next one latest (D19). Through the API the caller's
     * credential and role are checked again in the transaction (D22); the operator passes none.
     */
    async deleteReport(
      report: { id: number; project_id: string; uuid?: string; analyzed_at?: string },
      credential?: WriteCredential,
    ): Promise<void> {
      await inTransaction(db, async (trx) => {
        let audit: (() => Promise<void>) | null = null;
        if (credential) {
          const { caller, actor } = await recheckActor(credential, trx);
          const project = await repositories(trx).projects.findForMemberInTransaction(report.project_id, caller.userId);
          if (!project || !mayPerform(project.role, 'delete')) throw notFound();
          // E5: the report as the API names it (its uuid), in its project's team.
          audit = () =>
            recordAudit(trx, deps.clock, actor, {
              action: 'report.deleted',
              target: { type: 'report', id: report.uuid ?? report.id },
              teamId: project.team_id,
              details: { project_id: report.project_id, analyzed_at: report.analyzed_at ?? null },
            });
        } else {
          await lockForUpdate(trx, 'projects', report.project_id);
        }
        const repository = repositories(trx).reports;
        // Deleted meanwhile by someone else: there is nothing left to delete (D11's 404).
        if (!(await repository.delete(report.id))) throw notFound();
        await repository.refreshLatest(report.project_id);
        await audit?.();
      });
    },
  };
}

export type ReportsService = ReturnType<typeof createReportsService>;

/** The columns E1 fills in itself when a report is stored. */
type RecordedColumns =
  | 'git_branch'
  | 'git_commit'
  | 'pull_request'
  | 'base_branch'
  | 'baseline_report_id'
  | 'changes_new'
  | 'changes_fixed'
  | 'changes_unchanged'
  | 'gate'
  | 'fingerprinted_at';

/** A report to store: its columns, but for what E1 records and its results (given apart, parsed). */
export type ReportToStore = Omit<NewReport, RecordedColumns | keyof ResultsColumns>;

/** Rounded to microseconds, so 0.4 + 0.2 reads 0.6 and not 0.6000000000000001. */
function sumExecutionTimes(results: readonly { execution_time: number }[]): number {
  return Math.round(results.reduce((sum, result) => sum + result.execution_time, 0) * 1e6) / 1e6;
}
