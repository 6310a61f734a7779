import { useLocation } from 'preact-iso';
import { useMemo } from 'preact/hooks';
import {
  choiceParam,
  fileAndLine,
  groupBySeverity,
  type IssueRow,
  issuesBySeverity,
  pageOf,
  pageParam,
  SEVERITIES,
  withQuery,
} from '../../lib/report-view.js';
import { CodeSnippet } from './code-snippet.js';
import { Pagination } from './pagination.js';
import type { ReportIssue, ReportResult } from './report-types.js';

/** Issues a page: enough to read, few enough that a 3,000-issue report stays quick. */
export const ISSUES_PER_PAGE = 50;

/**
 * Every issue of the report, most severe first, 50 a page (`?issues_page=2`, `?issue_severity=high`),
 * each with its location and, on request, its code: the snippet renders only when opened.
 */
export function ReportIssuesSection({ results }: { results: ReportResult[] }) {
  const { path, query, route } = useLocation();
  const severity = choiceParam(query.issue_severity, SEVERITIES);
  const all = useMemo(() => issuesBySeverity(results), [results]);
  const filtered = useMemo(() => (severity === null ? all : all.filter((row) => row.issue.severity === severity)), [all, severity]);
  const shown = pageOf(filtered, pageParam(query.issues_page), ISSUES_PER_PAGE);

  return (
    <section class="panel" aria-labelledby="report-issues-title">
      <h2 id="report-issues-title">Issues by severity</h2>
      <div class="report-filters">
        <div class="field">
          <label for="issues-severity">Severity of issues</label>
          <select
            id="issues-severity"
            value={severity ?? ''}
            onChange={(event) => route(withQuery(path, query, { issue_severity: event.currentTarget.value, issues_page: null }))}
          >
            <option value="">Every severity ({all.length})</option>
            {SEVERITIES.map((choice) => (
              <option key={choice} value={choice}>
                {choice}
              </option>
            ))}
          </select>
        </div>
      </div>
      {shown.total === 0 && (
        <p class="empty">
          {all.length === 0
            ? 'No issues: every analyzer that ran found nothing to report.'
            : 'No issue has this severity. Choose another above.'}
        </p>
      )}
      {groupBySeverity(shown.items).map((group) => (
        <div key={group.severity} class="report-severity-group">
          <h3>
            <span class={`severity severity-${group.severity}`}>{group.severity}</span>
          </h3>
          <ul class="issue-list">
            {group.rows.map((row) => (
              <IssueItem key={`${row.analyzerId}-${row.issue.fingerprint}`} row={row} />
            ))}
          </ul>
        </div>
      ))}
      {shown.lastPage > 1 && (
        <Pagination
          label="Pages of issues"
          page={shown.page}
          lastPage={shown.lastPage}
          summary={`${shown.from}–${shown.to} of ${shown.total}`}
          onPage={(target) => route(withQuery(path, query, { issues_page: target }))}
        />
      )}
    </section>
  );
}

function IssueItem({ row }: { row: IssueRow<ReportIssue> }) {
  const { issue } = row;
  const where = fileAndLine(issue.location);
  return (
    <li class="issue">
      <p class="issue-message">
        {issue.message}
        {issue.change === 'new' && <span class="tag">New</span>}
      </p>
      <p class="issue-meta">
        <span class="muted">{row.analyzerName}</span>
        {where !== null && <code class="report-location">{where}</code>}
      </p>
      {issue.recommendation !== '' && <p class="issue-recommendation">{issue.recommendation}</p>}
      {issue.code_snippet && Object.keys(issue.code_snippet.lines).length > 0 && (
        <CodeSnippet snippet={issue.code_snippet} where={where ?? row.analyzerName} />
      )}
    </li>
  );
}
