import { useLocation } from 'preact-iso';
import { pageUrl } from '../../../src/dashboard/dashboard-pages.js';
import { api, call } from '../api/client.js';
import type { AssignedIssue } from '../api/issues.js';
import { IssueStateLine } from '../components/issue-state.js';
import { ProblemMessage } from '../components/problem-message.js';
import { SeverityChip } from '../components/severity-chip.js';
import { formatDate, formatNumber } from '../lib/format.js';
import { issuesUrl } from '../lib/issue-triage.js';
import { pageParam } from '../lib/report-view.js';
import { useApi, usePageTitle } from '../lib/use-api.js';
import { FilePath } from './report/file-path.js';
import { Pagination } from './report/pagination.js';

/**
 * E8.9 "Assigned to me": the issues assigned to the person in every project of their teams
 * (GET /user/issues, the latest decided first), a page at a time (`?page=2`), each with its project and the newest report
 * that holds it, where it is triaged.
 */
export function AssignedIssuesPage() {
  usePageTitle('Assigned to me');
  const { path, query, route } = useLocation();
  const page = pageParam(query.page);
  const issues = useApi(async () => call(api.GET('/api/v1/user/issues', { params: { query: { page } } })), [page]);
  const rows = issues.data?.data ?? [];
  const meta = issues.data?.meta;
  return (
    <section aria-labelledby="assigned-title">
      <h1 id="assigned-title">Assigned to me</h1>
      <p class="lead">The issues assigned to you in every project of your teams, the latest decided first.</p>
      <ProblemMessage problem={issues.problem} />
      {issues.loading && !issues.data && <p aria-live="polite">Loading your issues…</p>}
      {meta && meta.total > 0 && <p class="report-found">{meta.total === 1 ? '1 issue' : `${formatNumber(meta.total)} issues`}</p>}
      {issues.data && rows.length === 0 && (
        <p class="empty">Nothing is assigned to you. Issues are assigned from a report’s issue lists or a project’s Issues page.</p>
      )}
      {rows.length > 0 && (
        <ul class="issue-list">
          {rows.map((row) => (
            <AssignedItem key={`${row.project.id}:${row.fingerprint}`} row={row} />
          ))}
        </ul>
      )}
      {meta && meta.last_page > 1 && (
        <Pagination
          label="Pages of assigned issues"
          page={meta.current_page}
          lastPage={meta.last_page}
          summary={`${formatNumber(meta.from ?? 0)}–${formatNumber(meta.to ?? 0)} of ${formatNumber(meta.total)}`}
          onPage={(target) => {
            route(issuesUrl(path, query, { page: target }));
            document.getElementById('assigned-title')?.scrollIntoView({ block: 'start' });
          }}
        />
      )}
    </section>
  );
}

function AssignedItem({ row }: { row: AssignedIssue }) {
  const { issue } = row;
  return (
    <li class="issue">
      <p class="issue-message">
        <SeverityChip severity={issue.severity} />
        <span>{issue.message}</span>
      </p>
      <p class="issue-meta">
        <a href={pageUrl('projectIssues', { project: row.project.id })}>{row.project.name}</a>
        <span class="muted">{issue.analyzer_name}</span>
        {issue.location !== null && <FilePath file={issue.location.file} line={issue.location.line} />}
        {row.last_seen_report && (
          <a href={pageUrl('report', { report: row.last_seen_report.uuid })}>Last seen {formatDate(row.last_seen_report.analyzed_at)}</a>
        )}
      </p>
      <IssueStateLine state={row} />
    </li>
  );
}
