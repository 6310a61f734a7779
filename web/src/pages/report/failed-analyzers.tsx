import { useLocation } from 'preact-iso';
import { useMemo } from 'preact/hooks';
import { formatNumber } from '../../lib/format.js';
import { didNotPass } from '../../lib/report-tabs.js';
import { categoryLabel, RESULT_STATUSES, withQuery } from '../../lib/report-view.js';
import type { ReportResult } from './report-types.js';

/**
 * The analyzers that cost the score (failed, errored or warned), the worst first, each with its
 * message and a link to its issues in the "All issues" list.
 */
export function FailedAnalyzers({ results }: { results: ReportResult[] }) {
  const { path } = useLocation();
  const failed = useMemo(
    () =>
      results
        .filter((result) => didNotPass(result.status))
        .sort(
          (a, b) => RESULT_STATUSES.indexOf(a.status) - RESULT_STATUSES.indexOf(b.status) || a.analyzer_name.localeCompare(b.analyzer_name),
        ),
    [results],
  );
  return (
    <section class="panel" aria-labelledby="report-failed-title">
      <h2 id="report-failed-title">Failed analyzers</h2>
      <p class="hint">An analyzer that failed, ended in an error or warned did not pass: each lowers the score.</p>
      {failed.length === 0 ? (
        <p class="empty">Every analyzer that ran passed.</p>
      ) : (
        <ul class="issue-list">
          {failed.map((result) => (
            <li key={result.analyzer_id} class="issue">
              <p class="issue-message">
                <span class={`status status-${result.status}`}>{result.status}</span>
                <span>{result.analyzer_name}</span>
              </p>
              <p class="issue-meta">
                <span class="muted">{categoryLabel(result.category ?? '')}</span>
                {result.issues.length > 0 && (
                  <a href={withQuery(path, {}, { tab: 'issues', q: result.analyzer_id })}>
                    {formatNumber(result.issues.length)} {result.issues.length === 1 ? 'issue' : 'issues'}
                  </a>
                )}
              </p>
              {result.message !== '' && <p class="issue-recommendation">{result.message}</p>}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
