import { useLocation } from 'preact-iso';
import { api, call } from '../../api/client.js';
import { ProblemMessage } from '../../components/problem-message.js';
import { SeverityChip } from '../../components/severity-chip.js';
import { formatNumber } from '../../lib/format.js';
import { SUPPRESSION_LABELS, SUPPRESSION_TYPES, suppressionSentence } from '../../lib/issue-triage.js';
import { choiceParam, pageParam, withQuery } from '../../lib/report-view.js';
import { useApi } from '../../lib/use-api.js';
import { FilePath } from './file-path.js';
import { Pagination } from './pagination.js';
import type { ReportDetail } from './report-types.js';

/**
 * E8.6's "Suppressed in code": the issues the client package left out of the run (an inline
 * comment, its configuration, its baseline), each with the suppression's type and description,
 * a page at a time from the service, filtered by type (`?tab=suppressed&type=inline&page=2`).
 */
export function SuppressedIssues({
  report,
  fileLink,
}: {
  report: ReportDetail;
  fileLink: ((file: string, line?: number | null) => string) | null;
}) {
  const { path, query, route } = useLocation();
  const type = choiceParam(query.type, SUPPRESSION_TYPES);
  const page = pageParam(query.page);
  const list = useApi(
    async () =>
      call(
        api.GET('/api/v1/reports/{report}/suppressed', {
          params: { path: { report: report.uuid }, query: { page, ...(type === null ? {} : { type }) } },
        }),
      ),
    [report.uuid, type, page],
  );
  const rows = list.data?.data ?? [];
  const meta = list.data?.meta;
  return (
    <section class="panel" aria-labelledby="report-suppressed-title">
      <h2 id="report-suppressed-title">Suppressed in code</h2>
      <p class="hint">
        Issues the client package did not count: suppressed by a comment in the code (inline), by its configuration, or by its baseline.
      </p>
      <div class="report-filters">
        <div class="field">
          <label for="suppressed-type">Suppressed by</label>
          <select
            id="suppressed-type"
            value={type ?? ''}
            onChange={(event) => route(withQuery(path, query, { type: event.currentTarget.value, page: null }))}
          >
            <option value="">Any suppression</option>
            {SUPPRESSION_TYPES.map((choice) => (
              <option key={choice} value={choice}>
                {SUPPRESSION_LABELS[choice]}
              </option>
            ))}
          </select>
        </div>
      </div>
      <ProblemMessage problem={list.problem} />
      {list.loading && <p aria-live="polite">Loading the suppressed issues…</p>}
      {meta && (
        <p class="report-found" aria-live="polite">
          {`${formatNumber(meta.total)} ${meta.total === 1 ? 'issue' : 'issues'}`}
        </p>
      )}
      {!list.loading && list.data && rows.length === 0 && (
        <p class="empty">
          {type === null ? 'The client suppressed no issue in this run.' : 'No issue suppressed this way. Choose another above.'}
        </p>
      )}
      {rows.length > 0 && (
        <ul class="issue-list">
          {rows.map((row, index) => (
            <li key={`${row.analyzer_id}:${index}`} class="issue">
              <p class="issue-message">
                <SeverityChip severity={row.severity} />
                <span>{row.message}</span>
              </p>
              <p class="issue-meta">
                <span class="muted">{row.analyzer_name}</span>
                {row.location !== null && (
                  <FilePath file={row.location.file} line={row.location.line} href={fileLink?.(row.location.file, row.location.line)} />
                )}
              </p>
              <p class="issue-suppression">{suppressionSentence(row.suppression)}</p>
            </li>
          ))}
        </ul>
      )}
      {meta && meta.last_page > 1 && (
        <Pagination
          label="Pages of suppressed issues"
          page={meta.current_page}
          lastPage={meta.last_page}
          summary={`${formatNumber(meta.from ?? 0)}–${formatNumber(meta.to ?? 0)} of ${formatNumber(meta.total)}`}
          onPage={(target) => {
            route(withQuery(path, query, { page: target }));
            document.getElementById('report-suppressed-title')?.scrollIntoView({ block: 'start' });
          }}
        />
      )}
    </section>
  );
}
