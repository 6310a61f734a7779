import { useLocation } from 'preact-iso';
import { pageUrl } from '../../../../src/dashboard/dashboard-pages.js';
import { api, call } from '../../api/client.js';
import type { ProjectIssue } from '../../api/issues.js';
import { IssueStateLine } from '../../components/issue-state.js';
import { ProblemMessage } from '../../components/problem-message.js';
import { SeverityChip } from '../../components/severity-chip.js';
import { formatNumber } from '../../lib/format.js';
import { assigneeParam, ISSUE_STATUSES, issuesUrl, personName, STATUS_LABELS } from '../../lib/issue-triage.js';
import { branchLabel } from '../../lib/project-page.js';
import { choiceParam, pageParam, SEVERITIES } from '../../lib/report-view.js';
import { useApi } from '../../lib/use-api.js';
import { IssueTriage, SelectBox, type Triage, TriageBar, useTriage } from '../issues/triage.js';
import { FilePath } from '../report/file-path.js';
import { Pagination } from '../report/pagination.js';
import { ProjectSubpage, type SubpageProject } from './project-subpage.js';

/**
 * E8.9: the project's issues (E8.2's list: the issues of its latest report, or of a branch's), by
 * status, assignee (me, nobody, a member), severity and branch, a page at a time, all in the URL
 * (`?status=confirmed&assignee=me&page=2`). A member sets states here as on the report.
 */
export function ProjectIssuesPage() {
  return <ProjectSubpage title="Issues">{(project) => <ProjectIssues project={project} />}</ProjectSubpage>;
}

function ProjectIssues({ project }: { project: SubpageProject }) {
  const { path, query, route } = useLocation();
  const status = choiceParam(query.status, ISSUE_STATUSES);
  const severity = choiceParam(query.severity, SEVERITIES);
  const assignee = assigneeParam(query.assignee);
  // `branch=` (empty) is the reports without a branch, as in the API; absent: the project's latest report.
  const branch = query.branch;
  const page = pageParam(query.page);
  const branches = useApi(
    async () => (await call(api.GET('/api/v1/projects/{project}/branches', { params: { path: { project: project.id } } }))).data,
    [project.id],
  );
  const issues = useApi(
    async () =>
      call(
        api.GET('/api/v1/projects/{project}/issues', {
          params: {
            path: { project: project.id },
            query: {
              page,
              ...(status === null ? {} : { status }),
              ...(severity === null ? {} : { severity }),
              ...(assignee === null ? {} : { assignee }),
              ...(branch === undefined ? {} : { branch }),
            },
          },
        }),
      ),
    [project.id, status, severity, assignee, branch, page],
  );
  const triage = useTriage(project.id, project.teamId, `${project.id} ${path} ${JSON.stringify(query)}`, issues.reload);
  const members = triage.team?.members ?? [];
  const filter = (changes: Record<string, string | number | null>) => route(issuesUrl(path, query, changes));
  const rows = issues.data?.data ?? [];
  const meta = issues.data?.meta;

  return (
    <div class="triage-scope">
      <p class="lead">
        The issues of the project’s latest report{branch === undefined ? '' : ` on ${branchLabel(branch === '' ? null : branch)}`}, most
        severe first, each with what was decided about it. A decision holds on every branch and in every later report.
      </p>
      <div class="report-filters issue-filters">
        <div class="field">
          <label for="issues-status">Status</label>
          <select id="issues-status" value={status ?? ''} onChange={(event) => filter({ status: event.currentTarget.value })}>
            <option value="">Any status</option>
            {ISSUE_STATUSES.map((choice) => (
              <option key={choice} value={choice}>
                {STATUS_LABELS[choice]}
              </option>
            ))}
          </select>
        </div>
        <div class="field">
          <label for="issues-assignee">Assignee</label>
          <select id="issues-assignee" value={assignee ?? ''} onChange={(event) => filter({ assignee: event.currentTarget.value })}>
            <option value="">Anyone or nobody</option>
            <option value="me">Me</option>
            <option value="none">Nobody</option>
            {members.map((member) => (
              <option key={member.id} value={String(member.id)}>
                {personName(member, member.email)}
              </option>
            ))}
            {/* A member in the URL the team list does not name (yet): still the value shown. */}
            {assignee !== null && assignee !== 'me' && assignee !== 'none' && !members.some((member) => String(member.id) === assignee) && (
              <option value={assignee}>User {assignee}</option>
            )}
          </select>
        </div>
        <div class="field">
          <label for="issues-severity">Severity</label>
          <select id="issues-severity" value={severity ?? ''} onChange={(event) => filter({ severity: event.currentTarget.value })}>
            <option value="">Every severity</option>
            {SEVERITIES.map((choice) => (
              <option key={choice} value={choice}>
                {choice}
              </option>
            ))}
          </select>
        </div>
        {branches.data && branches.data.length > 1 && (
          <div class="field inline-select">
            <label for="issues-branch">Branch</label>
            <select
              id="issues-branch"
              value={branch ?? '*latest'}
              onChange={(event) => filter({ branch: event.currentTarget.value === '*latest' ? null : event.currentTarget.value })}
            >
              <option value="*latest">The latest report, any branch</option>
              {branches.data.map(({ name }) => (
                <option key={name ?? ''} value={name ?? ''}>
                  {branchLabel(name)}
                </option>
              ))}
            </select>
          </div>
        )}
      </div>
      <ProblemMessage problem={issues.problem} />
      {issues.loading && !issues.data && <p aria-live="polite">Loading the issues…</p>}
      {meta && (
        <p class="report-found" aria-live="polite">
          {meta.total === 1 ? '1 issue' : `${formatNumber(meta.total)} issues`}
        </p>
      )}
      {issues.data && rows.length === 0 && (
        <p class="empty">
          {status === null && severity === null && assignee === null
            ? 'No issues: the latest report found nothing, or the project has no report yet.'
            : 'No issue matches these filters. Choose others above.'}
        </p>
      )}
      <TriageBar triage={triage} onPage={rows.map((row) => row.fingerprint)} />
      {rows.length > 0 && (
        <ul class="issue-list">
          {rows.map((row) => (
            <ProjectIssueItem key={row.fingerprint} row={row} triage={triage} />
          ))}
        </ul>
      )}
      {meta && meta.last_page > 1 && (
        <Pagination
          label="Pages of issues"
          page={meta.current_page}
          lastPage={meta.last_page}
          summary={`${formatNumber(meta.from ?? 0)}–${formatNumber(meta.to ?? 0)} of ${formatNumber(meta.total)}`}
          onPage={(target) => {
            route(issuesUrl(path, query, { page: target }));
            document.getElementById('subpage-title')?.scrollIntoView({ block: 'start' });
          }}
        />
      )}
      <p>
        <a href={pageUrl('assignedIssues', {})}>Issues assigned to me</a>, in every project.
      </p>
    </div>
  );
}

function ProjectIssueItem({ row, triage }: { row: ProjectIssue; triage: Triage }) {
  const state = triage.stateOf(row.fingerprint, row.state);
  return (
    <li class="issue">
      <p class="issue-message">
        <SelectBox triage={triage} fingerprint={row.fingerprint} label={row.message} />
        <SeverityChip severity={row.severity} />
        <span>{row.message}</span>
        {row.change === 'new' && <span class="tag">New</span>}
      </p>
      <p class="issue-meta">
        <span class="muted">{row.analyzer_name}</span>
        {row.location !== null && <FilePath file={row.location.file} line={row.location.line} />}
      </p>
      <div class="issue-triage">
        <IssueStateLine state={state} />
        <IssueTriage triage={triage} fingerprint={row.fingerprint} label={row.message} state={state} />
      </div>
    </li>
  );
}
