import { useLocation } from 'preact-iso';
import { useMemo } from 'preact/hooks';
import { categoryLabel, choiceParam, countByStatus, RESULT_STATUSES, resultsByCategory, withQuery } from '../../lib/report-view.js';
import { ScrollRegion } from '../../components/scroll-region.js';
import { formatNumber } from '../../lib/format.js';
import type { ReportResult } from './report-types.js';

/** Every analyzer's result grouped by category, filtered by status through the query string (`?status=failed`). */
export function ReportResultsSection({ results }: { results: ReportResult[] }) {
  const { path, query, route } = useLocation();
  const status = choiceParam(query.status, RESULT_STATUSES);
  const counts = useMemo(() => countByStatus(results), [results]);
  const groups = useMemo(() => resultsByCategory(results, status), [results, status]);

  return (
    <section class="panel" aria-labelledby="report-results-title">
      <h2 id="report-results-title">Results by category</h2>
      <div class="report-filters">
        <div class="field">
          <label for="results-status">Status</label>
          <select
            id="results-status"
            value={status ?? ''}
            onChange={(event) => route(withQuery(path, query, { status: event.currentTarget.value }))}
          >
            <option value="">Every status ({formatNumber(results.length)})</option>
            {RESULT_STATUSES.map((choice) => (
              <option key={choice} value={choice}>
                {choice} ({formatNumber(counts[choice])})
              </option>
            ))}
          </select>
        </div>
      </div>
      {groups.length === 0 && (
        <p class="empty">
          {results.length === 0
            ? 'This report has no results: no analyzer ran.'
            : 'No result has this status. Choose another status above.'}
        </p>
      )}
      {groups.map((group) => {
        const headingId = `results-${group.category.replace(/[^A-Za-z0-9_-]/g, '-')}`;
        return (
          <div key={group.category} class="report-category">
            <h3 id={headingId}>
              {categoryLabel(group.category)} <span class="muted">({group.results.length})</span>
            </h3>
            <ScrollRegion labelledBy={headingId}>
              <table class="report-table stacked-table">
                <thead class="report-table-head">
                  <tr>
                    <th scope="col">Analyzer</th>
                    <th scope="col">Status</th>
                    <th scope="col">Message</th>
                    <th scope="col" class="number">
                      Issues
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {group.results.map((result) => (
                    <tr key={result.analyzer_id}>
                      <th scope="row" class="report-row-name">
                        {result.analyzer_name}
                      </th>
                      <td class="short" data-label="Status">
                        <span class={`status status-${result.status}`}>{result.status}</span>
                      </td>
                      <td data-label="Message">{result.message}</td>
                      <td class="number" data-label="Issues">
                        {formatNumber(result.issues.length)}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </ScrollRegion>
          </div>
        );
      })}
    </section>
  );
}
