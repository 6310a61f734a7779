import type { Clock } from '../clock.js';
import { markConnectionUsed, type OpenedConnection, openConnection } from '../connections/connections.repository.js';
import { createInstallationTokens, type InstallationTokens } from '../connections/github-app.js';
import { callOutcomeOf, type ProviderHttp } from '../connections/provider-http.js';
import type { Db } from '../db/database.js';
import { enqueueOutbox, type NewOutboxMessage } from '../outbox/outbox-queue.js';
import type { CallOutcome, OutboxCall, OutboxHandler } from '../outbox/outbox-worker.js';
import type { StoredReport } from '../reports/report-stored.js';
import { type SecretBox, SecretBoxError } from '../secrets/secret-box.js';
import { createCodeHostRepository } from './code-host.repository.js';
import { annotationIssues, readFeedback, type ReportFeedback } from './feedback-facts.js';
import {
  ANNOTATIONS_PER_REQUEST,
  checkRunAnnotations,
  checkRunOutput,
  type CodeHostKind,
  pullRequestComment,
  statusDescription,
} from './feedback-text.js';
import { annotateCheckRun, createCheckRun, createComment, createdId, editComment, type HostCall, setCommitStatus } from './host-calls.js';
import { type CodeHostProvider, isCodeHostProvider } from './repository-names.js';

/**
 * E10.2–E10.5: what a stored report tells its project's code host. In the upload's transaction
 * (reports/report-stored.ts) the project's link decides which messages go to the outbox: a status
 * for a report with a commit, a comment for one with a pull request. The outbox worker makes the
 * calls on E6's schedule. A message names the report, never its contents: the call reads the
 * report then, so an issue dismissed meanwhile is left out, and a burst of reports on one pull
 * request edits one comment in their order (one ordering key per pull request); a report older
 * (D19) than the one the comment shows leaves it alone. Credentials are opened at the call.
 */

export const COMMIT_STATUS = 'commit_status';
export const PULL_REQUEST_COMMENT = 'pull_request_comment';

interface FeedbackPayload {
  team_id: number;
  connection_id: string;
  repository: string;
  report_id: number;
  analyzed_at: string;
  commit: string | null;
  pull_request: string | null;
  dashboard_base: string;
}

/** A commit as a path segment: hexadecimal, as git writes it (a short one too); anything else gets no status. */
const COMMIT_PATTERN = /^[0-9a-f]{7,64}$/i;
/** A pull request's number, as every host's API addresses it. */
const PULL_REQUEST_PATTERN = /^[1-9][0-9]{0,18}$/;

const failed = (error: string, retry = false): CallOutcome => ({ ok: false, status: null, error, retry });
/** Succeeded with nothing to send: the outcome says so by having no status. */
const NOTHING_TO_SEND: CallOutcome = { ok: true, status: null };

/** D19's order: later analysed, or analysed at once and stored later. */
const isOlder = (a: { analyzedAt: string; id: number }, b: { analyzedAt: string; id: number }) =>
  a.analyzedAt < b.analyzedAt || (a.analyzedAt === b.analyzedAt && a.id < b.id);

export function createCodeHostFeedback(deps: {
  db: Db;
  clock: Clock;
  secrets: SecretBox;
  http: ProviderHttp;
  tokens?: InstallationTokens;
}) {
  const { db, clock } = deps;
  const tokens = deps.tokens ?? createInstallationTokens({ http: deps.http, clock });
  const repository = createCodeHostRepository(db);

  /** Opens the connection, reads the report and finds where to call; the work makes the call. */
  async function attempt(
    call: OutboxCall,
    work: (context: {
      host: HostCall;
      feedback: ReportFeedback;
      payload: FeedbackPayload;
      provider: CodeHostProvider;
    }) => Promise<CallOutcome>,
  ): Promise<CallOutcome> {
    const payload = call.payload as FeedbackPayload;
    const projectId = call.project_id!;
    let connection: OpenedConnection | null;
    try {
      connection = await openConnection(db, deps.secrets, payload.team_id, payload.connection_id);
    } catch (error) {
      if (!(error instanceof SecretBoxError)) throw error;
      // E9.2: sealed under a key this instance does not hold; restarting with it lets the call through.
      return failed("the connection's credentials cannot be opened with the configured keys; nothing was sent", true);
    }
    if (connection === null) return failed('the connection was deleted; nothing was sent');
    if (!isCodeHostProvider(connection.provider)) return failed(`a ${connection.provider} connection is not a code host; nothing was sent`);
    const provider = connection.provider;
    const feedback = await readFeedback(db, {
      projectId,
      reportId: payload.report_id,
      host: { provider, base_url: connection.base_url, repository: payload.repository },
      dashboardBase: payload.dashboard_base,
      now: clock.now().toISOString(),
    });
    if (feedback === null) return failed('the report was deleted; nothing was sent');
    const target = await tokens.targetFor(connection);
    if (!target.ok) return callOutcomeOf({ ok: false, failure: target.failure });
    const outcome = await work({
      host: { http: deps.http, target: target.target, provider, repository: payload.repository },
      feedback,
      payload,
      provider,
    });
    if (outcome.ok && outcome.status !== null) await markConnectionUsed(db, connection.id, clock.now().toISOString());
    return outcome;
  }

  /** E10.2, or E10.5's check run for a GitHub App. */
  const commitStatus: OutboxHandler = (call) =>
    attempt(call, async ({ host, feedback, payload, provider }) => {
      const { facts } = feedback;
      const sha = payload.commit!;
      const passed = facts.gate?.passed !== false;
      if (provider !== 'github_app') {
        return callOutcomeOf(await setCommitStatus(host, sha, { passed, description: statusDescription(facts), url: facts.reportUrl }));
      }
      return checkRun(host, feedback, sha, passed);
    });

  /**
   * A check run with up to 1,000 annotations, 50 a request: created with the first, updated with
   * the rest. What was sent is recorded after each request, so an attempt made again after a
   * failure goes on from there instead of creating a second run.
   */
  async function checkRun(host: HostCall, feedback: ReportFeedback, sha: string, passed: boolean): Promise<CallOutcome> {
    const now = clock.now().toISOString();
    const annotations = checkRunAnnotations(await annotationIssues(db, feedback.facts.projectId, feedback.reportId, now));
    const output = checkRunOutput(feedback.facts);
    let run = await repository.checkRun(feedback.reportId);
    let status: number | null = null;
    if (run === undefined) {
      const first = annotations.slice(0, ANNOTATIONS_PER_REQUEST);
      const result = await createCheckRun(host, { sha, passed, detailsUrl: feedback.facts.reportUrl, output, annotations: first });
      const id = createdId(result);
      if (!result.ok || id === null)
        return result.ok ? failed("GitHub's answer did not name the check run created") : callOutcomeOf(result);
      status = result.answer.status;
      run = { report_id: feedback.reportId, check_run_id: id, annotations_sent: first.length, updated_at: now };
      await repository.saveCheckRun(run);
    }
    for (let sent = run.annotations_sent; sent < annotations.length; sent += ANNOTATIONS_PER_REQUEST) {
      const batch = annotations.slice(sent, sent + ANNOTATIONS_PER_REQUEST);
      const result = await annotateCheckRun(host, run.check_run_id, output, batch);
      if (!result.ok) return callOutcomeOf(result);
      status = result.answer.status;
      await repository.saveCheckRun({ ...run, annotations_sent: sent + batch.length, updated_at: clock.now().toISOString() });
    }
    return { ok: true, status };
  }

  /** E10.3: the pull request's one comment, created, edited in place, or created again when it was deleted. */
  const pullRequestCommentHandler: OutboxHandler = (call) =>
    attempt(call, async ({ host, feedback, payload, provider }) => {
      const projectId = call.project_id!;
      const pullRequest = payload.pull_request!;
      const shown = await repository.comment(projectId, payload.repository, pullRequest);
      const report = { analyzedAt: feedback.analyzedAt, id: feedback.reportId };
      if (shown !== undefined && isOlder(report, { analyzedAt: shown.report_analyzed_at, id: shown.report_id })) return NOTHING_TO_SEND;
      const kind: CodeHostKind = provider === 'github_app' ? 'github' : provider;
      const markdown = pullRequestComment(feedback.facts, kind);
      let result = shown === undefined ? null : await editComment(host, pullRequest, shown.comment_id, markdown);
      let commentId = shown?.comment_id ?? null;
      // Deleted by someone on the host (a 404 from the edit): a new comment takes its place.
      if (result === null || (!result.ok && result.failure.kind === 'http' && result.failure.status === 404)) {
        result = await createComment(host, pullRequest, markdown);
        commentId = createdId(result);
        if (result.ok && commentId === null) return failed("the host's answer did not name the comment created");
      }
      if (!result.ok) return callOutcomeOf(result);
      await repository.saveComment({
        project_id: projectId,
        repository: payload.repository,
        pull_request: pullRequest,
        comment_id: commentId!,
        report_id: feedback.reportId,
        report_analyzed_at: feedback.analyzedAt,
        updated_at: clock.now().toISOString(),
      });
      return { ok: true, status: result.answer.status };
    });

  return {
    /** The outbox's handlers of the two kinds (features.ts gives them to the worker). */
    handlers: { [COMMIT_STATUS]: commitStatus, [PULL_REQUEST_COMMENT]: pullRequestCommentHandler } as Record<string, OutboxHandler>,

    /** In the upload's transaction: the messages the project's link asks for, if it has one. */
    async reportStored(trx: Db, report: StoredReport): Promise<void> {
      const link = await createCodeHostRepository(trx).find(report.projectId);
      if (link === undefined) return;
      const payload: FeedbackPayload = {
        team_id: link.team_id,
        connection_id: link.connection_id,
        repository: link.repository,
        report_id: report.reportId,
        analyzed_at: report.analyzedAt,
        commit: report.commit,
        pull_request: report.pullRequest,
        dashboard_base: report.dashboardBase,
      };
      const common = { project_id: report.projectId, owner: String(link.team_id), target: link.connection_id, payload };
      const messages: NewOutboxMessage[] = [];
      if (link.commit_status === 1 && report.commit !== null && COMMIT_PATTERN.test(report.commit)) {
        // Several reports of one commit (a run again): their statuses in order, the last one standing.
        messages.push({
          ...common,
          kind: COMMIT_STATUS,
          ordering_key: `code-host:${report.projectId}:commit:${report.commit.toLowerCase()}`,
        });
      }
      if (link.pull_request_comment === 1 && report.pullRequest !== null && PULL_REQUEST_PATTERN.test(report.pullRequest)) {
        messages.push({
          ...common,
          kind: PULL_REQUEST_COMMENT,
          ordering_key: `code-host:${report.projectId}:${link.repository}:pull:${report.pullRequest}`,
        });
      }
      if (messages.length > 0) await enqueueOutbox(trx, clock, messages);
    },
  };
}

export type CodeHostFeedback = ReturnType<typeof createCodeHostFeedback>;
