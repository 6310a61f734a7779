import { v7 as uuidv7 } from 'uuid';
import { recordEvent } from '../webhooks/webhook-events.js';
import type { Caller } from '../auth/caller.js';
import { recordAudit } from '../audit/audit-log.js';
import type { WriteCredential } from '../auth/write-credential.js';
import { pastTimestamp } from '../wire/json-values.js';
import type { Clock } from '../clock.js';
import { inTransaction, type Db } from '../db/database.js';
import { lockForUpdate } from '../db/dialect.js';
import { notFound } from '../wire/api-error.js';
import { pageOffset, paginationEnvelope, PAGE_SIZE } from '../wire/pagination.js';
import { permittedOr404, UUID_PATTERN, type ProjectAction } from '../projects/permissions.js';
import type { ProjectForWrite } from '../projects/project-write-access.js';
import type { ProjectTokenCredential } from '../projects/project-api-token.js';
import { parseStoredSettings } from '../projects/settings.js';
import { compactMarks } from './answer/detail-body.js';
import { statesForDetail } from './answer/detail-states.js';
import { statesGeneration, toIssueState, type StateRow } from '../issues/state-reads.js';
import type { StateColumns } from './store/report-reads.js';
import { gitContextOf } from './upload/git-context.js';
import type { HeavyWork } from './threads/heavy-work.js';
import { bodyInMemory, storedBody, type ReportBody } from './answer/stored-body.js';
import { applyQualityGate, withoutDismissed, type GateIssues, type GateOutcome } from './upload/quality-gate.js';
import { chooseBaseline, compareUploadedIssues } from './changes/baseline-comparison.js';
import type { StoredResult } from './results/stored-result.js';
import { countColumnsOf, toReportSummary } from './report-summary.js';
import {
  type ChangeRow,
  type ChangesFilter,
  type NewReport,
  type ProjectIssuesFilter,
  type ReportRow,
  toChangeItem,
  toReportListItem,
  toTrendPoint,
} from './store/report-rows.js';
import type { ReportSummary } from './reports.schemas.js';
import type { ResultsColumns } from './results/results-encoding.js';
import { identitiesAt, prepareResults, type ProcessedUpload } from './upload/process-upload.js';
import { CHANGE_CODES } from './changes/issue-changes.js';
import type { UploadDecisions } from '../issues/upload-decisions.js';
import type { ReportStoredHook } from './report-stored.js';
import { createReportStore } from './store/report-store.js';
import { createUploadReceipts, RECEIPT_LIFETIME_MS, type UploadReceipt } from './store/upload-receipts.js';

/**
 * Reports: receiving uploads, reading and deleting them. Every write to `reports` goes through here
 * so that the project's latest-report pointer (D19) changes in the same transaction.
 */
export function createReportsService(deps: {
  db: Db;
  clock: Clock;
  projectForWrite: ProjectForWrite;
  heavyWork: HeavyWork;
  /** E8.4, E8.5: what the project's issue states do to a report being stored (issues/upload-decisions.ts). */
  uploadDecisions: UploadDecisions;
  /** What other features do once an upload is stored, in its transaction (report-stored.ts). */
  reportStored?: readonly ReportStoredHook[];
}) {
  const { db, heavyWork } = deps;
  const now = () => deps.clock.now().toISOString();
  const reports = createReportStore(db);

  /**
   * Stores a report with what E1 records about it (git context, baseline, changes) and moves the
   * project's latest-report pointer; the caller holds the project's lock. `gateOf` decides the
   * stored gate from the changes (E1.7, E1.8), without the issues under a dismissal in force at
   * `receivedAt` (E8.4); states move to reformatted issues first (E8.5). The issues arrive
   * prepared (upload/process-upload.ts).
   */
  async function insertReport(
    trx: Db,
    report: ReportToStore,
    prepared: PreparedReport,
    gateOf: (issues: GateIssues) => GateOutcome | null,
    receivedAt: string,
  ) {
    const repository = createReportStore(trx);
    const baseline = await chooseBaseline(repository, report.project_id, prepared.git, { analyzed_at: report.analyzed_at, id: null });
    const comparison = await compareUploadedIssues(repository, prepared.issues, baseline);
    const isNew = (index: number) => comparison.changes[index] !== UNCHANGED;
    const states = await deps.uploadDecisions(trx, {
      projectId: report.project_id,
      report: { uuid: report.uuid, analyzed_at: report.analyzed_at },
      now: receivedAt,
      issues: {
        count: prepared.issues.count,
        fingerprints: prepared.issues.fingerprints,
        isNew,
        identities: (indexes) => identitiesAt(prepared.issues, indexes),
      },
    });
    const gate = gateOf(
      withoutDismissed(
        { failedAnalyzers: prepared.failedAnalyzers, newBySeverity: comparison.newBySeverity },
        states.dismissed,
        prepared.issues.severityRanks,
        isNew,
      ),
    );
    const row: NewReport = {
      ...report,
      results: '',
      results_br: Buffer.from(prepared.resultsBr.buffer, prepared.resultsBr.byteOffset, prepared.resultsBr.byteLength),
      git_branch: prepared.git.branch,
      git_commit: prepared.git.commit,
      pull_request: prepared.git.pull_request,
      base_branch: prepared.git.base_branch,
      baseline_report_id: baseline?.id ?? null,
      changes_new: comparison.counts?.new ?? null,
      changes_fixed: comparison.counts?.fixed ?? null,
      changes_unchanged: comparison.counts?.unchanged ?? null,
      gate: gate === null ? null : JSON.stringify({ passed: gate.passed, reasons: gate.reasons, dismissed: gate.dismissed }),
      fingerprinted_at: report.created_at,
    };
    const id = await repository.insert(row);
    await repository.insertPreparedIssues(id, prepared.issues, comparison.changes);
    await repository.insertIssues(id, comparison.fixed);
    await repository.refreshLatest(report.project_id);
    await states.recordSeen(trx, id);
    return { row, id, gate, baseline, changes: comparison.changes };
  }

  /**
   * D28: the report's answer, serialised and compressed once, as it is stored. Not part of the
   * upload's transaction (a thread builds it, and the database is not held meanwhile); if it cannot
   * be stored now (the pool is full, the report was deleted), the first read builds it instead.
   */
  async function storeBody(stored: Awaited<ReturnType<typeof insertReport>>, prepared: PreparedReport): Promise<void> {
    const { id, baseline, changes } = stored;
    const reportRow = rowOf(stored);
    const fingerprints = prepared.issues.fingerprints;
    try {
      // E8.3: the states as of now, read after the upload's transaction; the generation before them.
      const generation = await statesGeneration(db, reportRow.project_id);
      const at = now();
      const states = await statesForDetail(db, reportRow.project_id, fingerprints, at, generation);
      const body = prepared.detail
        ? await heavyWork.assembleDetailBody({ row: reportRow, template: prepared.detail, fingerprints, changes, states: states.texts })
        : await heavyWork.buildDetailBody({
            row: reportRow,
            results: { text: '', compressed: prepared.resultsBr },
            marks: { fingerprints, changes },
            states: states.texts,
          });
      if (body !== null) await reports.storeBody(id, baseline?.id ?? null, body, { generation, freshUntil: states.freshUntil, at });
    } catch {
      // Only a cache of what the report's rows say: the next read builds it again.
    }
  }

  /** A page of issue rows as changes items, each with its state as of `at` (E8.3), read in the same statement. */
  function withStates(rows: readonly (ChangeRow & StateColumns)[], at: string) {
    return rows.map((row) => toChangeItem(row, toIssueState(row.fingerprint, stateRowOf(row), at)));
  }

  /** D40: the answer an earlier identical upload got; its report as it is now (a delete takes the receipt with it). */
  async function answerOf(receipt: UploadReceipt): Promise<{ report: ReportSummary; gate: GateOutcome }> {
    const row = receipt.report_id === null ? undefined : await reports.findListRow(receipt.report_id);
    if (row === undefined || receipt.gate === null) throw new Error('an upload receipt without its report');
    // A receipt kept before E8.4 has no `dismissed`: nothing was left out then.
    return { report: toReportSummary(row), gate: { dismissed: 0, ...(JSON.parse(receipt.gate) as Omit<GateOutcome, 'dismissed'>) } };
  }

  return {
    /** The operator's (and the test factories') way to store a report, all or nothing; no gate is recorded. */
    async storeReport(report: ReportToStore, results: readonly StoredResult[] = []): Promise<number> {
      const prepared: PreparedReport = {
        ...prepareResults(results),
        git: gitContextOf(JSON.parse(report.metadata) as Record<string, unknown>),
      };
      return inTransaction(db, async (trx) => {
        await lockForUpdate(trx, 'projects', report.project_id);
        return (await insertReport(trx, report, prepared, () => null, now())).id;
      });
    },

    /**
     * CLIENT-WIRE.md "What the service does with a report": `upload` was parsed, normalised and
     * summarised off the event loop (upload/process-upload.ts); store it and apply the project's
     * quality gate to what was stored.
     */
    async receiveUpload(
      credential: ProjectTokenCredential,
      projectId: string,
      upload: ProcessedUpload,
      /** Where the dashboard is, as the upload's request saw it (D16), for the links that follow the upload. */
      dashboardBase: string,
    ): Promise<{ report: ReportSummary; gate: GateOutcome }> {
      const { counts } = upload;
      const receivedAt = now();
      const report: ReportToStore = {
        uuid: uuidv7(),
        project_id: projectId,
        ...countColumnsOf(counts),
        framework_version: upload.frameworkVersion,
        package_version: upload.packageVersion,
        pro_package_version: upload.proPackageVersion,
        total_execution_time: upload.totalExecutionTime,
        triggered_by: upload.triggeredBy,
        // D2: stored in UTC; a client that sends no time is taken to have analysed just now.
        analyzed_at: upload.analyzedAt ? pastTimestamp(upload.analyzedAt, 'analyzed_at', deps.clock.now()) : receivedAt,
        created_at: receivedAt,
        metadata: upload.metadata,
        client_summary: upload.clientSummary,
        configuration: upload.configuration,
      };
      // D22: stored only if the token still names this project and it is not archived, as of this
      // transaction; the gate applies the settings of that same moment.
      const outcome = await inTransaction(db, async (trx) => {
        const settings = parseStoredSettings((await credential.recheck(trx)).settings);
        // D40: the same upload again within 24 hours (a client retrying after a lost answer) is
        // answered with what the first one was; nothing is stored and no event is sent again.
        const receipts = createUploadReceipts(trx);
        const freshAfter = new Date(Date.parse(receivedAt) - RECEIPT_LIFETIME_MS).toISOString();
        const earlier = await receipts.claim(projectId, upload.bodyDigest, receivedAt, freshAfter);
        if (earlier !== null) return { kind: 'retried' as const, earlier };
        const inserted = await insertReport(
          trx,
          report,
          upload,
          (issues) => applyQualityGate(settings, { score: counts.score, ...issues }),
          receivedAt,
        );
        await receipts.complete(projectId, upload.bodyDigest, inserted.id, JSON.stringify(inserted.gate));
        // E6: the events, in the upload's transaction (the outbox); `report` in the list-item shape.
        const data = { report: toReportListItem(rowOf(inserted)) };
        const events =
          inserted.gate?.passed === false ? (['report.created', 'report.gate_failed'] as const) : (['report.created'] as const);
        await recordEvent(trx, deps.clock, projectId, events, data);
        const stored = {
          projectId,
          reportId: inserted.id,
          uuid: report.uuid,
          branch: upload.git.branch,
          commit: upload.git.commit,
          pullRequest: upload.git.pull_request,
          analyzedAt: report.analyzed_at,
          dashboardBase,
        };
        for (const hook of deps.reportStored ?? []) await hook(trx, stored);
        return { kind: 'stored' as const, inserted };
      });
      if (outcome.kind === 'retried') return answerOf(outcome.earlier);
      const stored = outcome.inserted;
      await storeBody(stored, upload);
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

    /**
     * E2.1: the last `limit` reports of the project (or of one branch, `null` for none), oldest first.
     * Each point has exactly E2.1's fields; the dashboard asks for the commit too (`withCommit`).
     */
    async trend(projectId: string, branch: string | null | undefined, limit: number, withCommit = false) {
      const rows = await reports.trend(projectId, branch, limit);
      return { data: rows.map((row) => (withCommit ? { ...toTrendPoint(row), commit: row.git_commit } : toTrendPoint(row))) };
    },

    /**
     * E1.6: the latest report of each branch of the project, newest first; with `withCount` (the
     * dashboard's choice of a default branch) also how many reports each branch has.
     */
    async listBranches(projectId: string, withCount = false) {
      const rows = await reports.latestPerBranch(projectId);
      return {
        data: rows.map((row) => ({
          name: row.git_branch,
          ...(withCount ? { report_count: row.report_count } : {}),
          latest_report: toReportListItem(row),
        })),
      };
    },

    /** The latest report of each of the project's pull requests, newest first; paginated like D16. */
    async listPullRequests(projectId: string, page: number, path: string) {
      const total = await reports.countPullRequests(projectId);
      const offset = pageOffset(page);
      const rows = offset >= total ? [] : await reports.latestPerPullRequest(projectId, { limit: PAGE_SIZE, offset });
      return {
        data: rows.map((row) => ({ pull_request: row.pull_request!, latest_report: toReportListItem(row) })),
        ...paginationEnvelope({ path, page, total, count: rows.length }),
      };
    },

    /**
     * E1.6: the report's issues against its baseline, with the baseline's fixed ones; paginated like
     * D16. Each with its project's state (E8.3) as of now, which `filter.state` may narrow to.
     */
    async listChanges(report: { id: number; project_id: string }, filter: ChangesFilter, page: number, path: string) {
      const at = now();
      const total = await reports.countChanges(report, filter, at);
      const offset = pageOffset(page);
      const rows = offset >= total ? [] : await reports.listChanges(report, filter, at, { limit: PAGE_SIZE, offset });
      return {
        data: withStates(rows, at),
        ...paginationEnvelope({
          path,
          page,
          total,
          count: rows.length,
          filters: { kind: filter.kind, severity: filter.severity, state: filter.state },
        }),
      };
    },

    /**
     * E8.2: the issues of the project's latest report (D19), or of one branch's (`null`: the reports
     * without one), each as a changes item with its state as of now; paginated like D16. No report:
     * an empty list.
     */
    async listProjectIssues(
      projectId: string,
      query: { branch: string | null | undefined; filter: ProjectIssuesFilter; filters: Record<string, string | undefined> },
      page: number,
      path: string,
    ) {
      const at = now();
      const reportId = await reports.latestReportId(projectId, query.branch);
      const report = reportId === undefined ? null : { id: reportId, project_id: projectId };
      const total = report === null ? 0 : await reports.countProjectIssues(report, query.filter, at);
      const offset = pageOffset(page);
      const rows =
        report === null || offset >= total ? [] : await reports.listProjectIssues(report, query.filter, at, { limit: PAGE_SIZE, offset });
      return {
        data: withStates(rows, at),
        ...paginationEnvelope({ path, page, total, count: rows.length, filters: query.filters }),
      };
    },

    /** D15 through the parent project: the report, if the caller may perform `action` on its project; else 404. */
    async resolveReport(caller: Caller, reportParam: string, action: ProjectAction): Promise<ReportRow> {
      if (!UUID_PATTERN.test(reportParam)) throw notFound();
      return permittedOr404(await reports.findForMember(reportParam.toLowerCase(), caller.userId), action);
    },

    /**
     * D28: the report's answer as gzip-compressed JSON: the one stored, else built (on a thread when
     * the report is large) and stored for the next read. A report the back-fill has not fingerprinted
     * yet is answered without storing: its changes are still to come. E8.3: a stored answer shows
     * the states of its time; one whose project's states changed since (the generation moved), or
     * whose shown acceptance has expired (`fresh_until`), is built again and replaces it.
     */
    async detailBody(report: ReportRow): Promise<ReportBody> {
      const at = now();
      // Read before the states, so that a change made meanwhile leaves the stored answer out of date.
      const generation = await statesGeneration(db, report.project_id);
      const stored = await reports.bodyOf(report.id);
      if (stored && stored.states_generation === generation && (stored.fresh_until === null || stored.fresh_until > at)) {
        return storedBody(stored, (id, offset, size) => reports.bodyPiece(id, offset, size));
      }
      const fingerprinted = report.fingerprinted_at !== null;
      const marks = fingerprinted ? compactMarks(await reports.issueMarks(report.id)) : null;
      const results = await reports.resultsOf(report.id);
      // Deleted since it was resolved (D11's 404): the row, or its issue rows (a null body).
      if (!results) throw notFound();
      const states = await statesForDetail(db, report.project_id, marks?.fingerprints ?? null, at, generation);
      const body = await heavyWork.buildDetailBody({
        row: report,
        results: { text: results.results, compressed: results.results_br },
        marks,
        states: states.texts,
      });
      if (body === null) throw notFound();
      if (fingerprinted) {
        await reports.storeBody(report.id, report.baseline_report_id, body, { generation, freshUntil: states.freshUntil, at });
      }
      return bodyInMemory(body);
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
          const { project, actor } = await deps.projectForWrite(trx, credential, report.project_id, 'delete');
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
        // Deleted meanwhile by someone else: there is nothing left to delete (D11's 404).
        if ((await createReportStore(trx).deleteReports(report.project_id, [report.id])) === 0) throw notFound();
        await audit?.();
      });
    },
  };
}

export type ReportsService = ReturnType<typeof createReportsService>;

const UNCHANGED = CHANGE_CODES.indexOf('unchanged');

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

/** What storing a report needs besides its columns, prepared from its results (upload/process-upload.ts). */
type PreparedReport = Pick<ProcessedUpload, 'git' | 'failedAnalyzers' | 'resultsBr' | 'issues' | 'detail'>;

/** A report just stored, as a read finds it (its columns but the results, and its baseline's). */
function rowOf(stored: {
  row: NewReport;
  id: number;
  baseline: { uuid: string; analyzed_at: string; git_branch: string | null; git_commit: string | null } | null;
}): ReportRow {
  const { results: _text, results_br: _bytes, ...columns } = stored.row;
  return {
    ...columns,
    id: stored.id,
    baseline_uuid: stored.baseline?.uuid ?? null,
    baseline_analyzed_at: stored.baseline?.analyzed_at ?? null,
    baseline_branch: stored.baseline?.git_branch ?? null,
    baseline_commit: stored.baseline?.git_commit ?? null,
  };
}

/** The state an issue list row carries (report-reads.ts' StateColumns); undefined: nobody decided about it. */
function stateRowOf(row: ChangeRow & StateColumns): StateRow | undefined {
  if (row.state_status === null) return undefined;
  return {
    fingerprint: row.fingerprint,
    status: row.state_status,
    comment: row.state_comment,
    assignee_id: row.state_assignee_id,
    assignee_name: row.state_assignee_name,
    expires_at: row.state_expires_at,
    updated_by_id: row.state_updated_by_id,
    updated_by_name: row.state_updated_by_name,
    updated_at: row.state_updated_at!,
    last_seen_uuid: row.state_last_seen_uuid,
    last_seen_analyzed_at: row.state_last_seen_analyzed_at,
    previous_fingerprints: row.state_previous_fingerprints ?? '[]',
    ticket_provider: row.ticket_provider,
    ticket_key: row.ticket_key,
    ticket_url: row.ticket_url,
    ticket_created_at: row.ticket_created_at,
    ticket_created_by_id: row.ticket_created_by_id,
    ticket_created_by_name: row.ticket_created_by_name,
    ticket_closed_at: row.ticket_closed_at,
    // The issue as last seen: not shown beside the issue itself.
    analyzer_id: row.analyzer_id,
    analyzer_name: row.analyzer_name,
    category: row.category,
    severity: row.severity,
    message: row.message,
    file: row.file,
    line: row.line,
    column_number: row.column_number,
  };
}
