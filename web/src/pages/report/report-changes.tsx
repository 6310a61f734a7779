import { useLocation } from 'preact-iso';
import { api, call } from '../../api/client.js';
import { ProblemMessage } from '../../components/problem-message.js';
import { useApi } from '../../lib/use-api.js';
import { CHANGE_KINDS, type ChangeKind, choiceParam, fileAndLine, pageParam, SEVERITIES, withQuery } from '../../lib/report-view.js';
import { Pagination } from './pagination.js';
import { ScrollRegion } from '../../components/scroll-region.js';
import type { ReportDetail } from './report-types.js';

const KIND_LABELS: Record<ChangeKind, string> = { new: 'New', fixed: 'Fixed', unchanged: 'Unchanged' };

/**
 * E1.6: the report's issues against its baseline, a page at a time from the changes endpoint. Kind,
 * severity and page live in the query string (`?kind=new&severity=high&page=2`), so reload and back keep them.
 */
export function ReportChangesSection({ report }: { report: ReportDetail }) {
  const { path, query, route } = useLocation();
  const kind = choiceParam(query.kind, CHANGE_KINDS);
  const severity = choiceParam(query.severity, SEVERITIES);
  const page = pageParam(query.page);
  const changes = useApi(
    async () =>
      call(
        api.GET('/api/v1/reports/{report}/changes', {
          params: {
            path: { report: report.uuid },
            query: { page, ...(kind === null ? {} : { kind }), ...(severity === null ? {} : { severity }) },
          },
        }),
      ),
    [report.uuid, kind, severity, page],
  );
  const counts = report.changes;
  const linkTo = (changed: Record<string, string | number | null>) => withQuery(path, query, { ...changed, page: null });
  const rows = changes.data?.data ?? [];
  const meta = changes.data?.meta;

  return (
    <section class="panel" aria-labelledby="report-changes-title">
      <h2 id="report-changes-title">Changes</h2>
      {counts.baseline === null && (
        <p class="hint">Without a baseline nothing is new or fixed: the list shows every issue of the report.</p>
      )}
      <div class="report-filters">
        <nav aria-label="Kind of change">
          <ul class="report-tabs">
            <li>
              <a href={linkTo({ kind: null })} aria-current={kind === null ? 'page' : undefined}>
                All
              </a>
            </li>
            {CHANGE_KINDS.map((choice) => (
              <li key={choice}>
                <a href={linkTo({ kind: choice })} aria-current={kind === choice ? 'page' : undefined}>
                  {KIND_LABELS[choice]}
                  {counts[choice] !== null && <span class="muted"> ({counts[choice]})</span>}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <div class="field">
          <label for="changes-severity">Severity of changes</label>
          <select id="changes-severity" value={severity ?? ''} onChange={(event) => route(linkTo({ severity: event.currentTarget.value }))}>
            <option value="">Every severity</option>
            {SEVERITIES.map((choice) => (
              <option key={choice} value={choice}>
                {choice}
              </option>
            ))}
          </select>
        </div>
      </div>
      <ProblemMessage problem={changes.problem} />
      {changes.loading && <p aria-live="polite">Loading the changes…</p>}
      {!changes.loading && changes.data && rows.length === 0 && (
        <p class="empty">
          {kind === null && severity === null
            ? 'This report has no issues.'
            : 'No issues of this kind. Choose another kind or severity above.'}
        </p>
      )}
      {rows.length > 0 && (
        <ScrollRegion labelledBy="report-changes-title">
          <table class="report-table">
            <thead class="report-table-head">
              <tr>
                <th scope="col">Change</th>
                <th scope="col">Severity</th>
                <th scope="col">Issue</th>
                <th scope="col">Where</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((row) => (
                <tr key={`${row.change}-${row.fingerprint}`}>
                  <td>
                    {row.change === null ? (
                      <span class="muted">—</span>
                    ) : (
                      <span class={`change change-${row.change}`}>{KIND_LABELS[row.change]}</span>
                    )}
                  </td>
                  <td>
                    <span class={`severity severity-${row.severity}`}>{row.severity}</span>
                  </td>
                  <td>
                    {row.message}
                    <div class="muted">{row.analyzer_name}</div>
                  </td>
                  <td>
                    <code class="report-location">{fileAndLine(row.location) ?? '—'}</code>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollRegion>
      )}
      {meta && meta.last_page > 1 && (
        <Pagination
          label="Pages of changes"
          page={meta.current_page}
          lastPage={meta.last_page}
          summary={`${meta.from ?? 0}–${meta.to ?? 0} of ${meta.total}`}
          onPage={(target) => route(withQuery(path, query, { page: target }))}
        />
      )}
    </section>
  );
}
