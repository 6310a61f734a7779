import { useLocation } from 'preact-iso';
import { api, call } from '../../api/client.js';
import { IssueStateLine } from '../../components/issue-state.js';
import { ProblemMessage } from '../../components/problem-message.js';
import { SeverityChip } from '../../components/severity-chip.js';
import { formatNumber } from '../../lib/format.js';
import { STATE_VIEWS, type StateView } from '../../lib/issue-triage.js';
import { choiceParam, pageParam, SEVERITIES, withQuery } from '../../lib/report-view.js';
import { useApi } from '../../lib/use-api.js';
import { IssueTriage, SelectBox, type Triage, TriageBar } from '../issues/triage.js';
import { FilePath } from './file-path.js';
import { StateViews } from './issue-browser.js';
import { Pagination } from './pagination.js';
import type { ReportDetail } from './report-types.js';

/**
 * E1.6's fixed issues: those of the baseline this report no longer has. They are not in the report
 * itself, so they come a page at a time from the changes endpoint; severity and page live in the
 * query string (`?tab=fixed&severity=high&page=2`), so reload and back keep them. E8.3: the
 * dismissed ones apart (`&state=dismissed`), each with its state; E8.9: a member sets their states.
 */
export function FixedIssues({
  report,
  fileLink,
  triage,
}: {
  report: ReportDetail;
  fileLink: ((file: string, line?: number | null) => string) | null;
  triage: Triage;
}) {
  const { path, query, route } = useLocation();
  const severity = choiceParam(query.severity, SEVERITIES);
  const view: StateView = choiceParam(query.state, STATE_VIEWS) ?? 'open';
  const page = pageParam(query.page);
  const baseline = report.changes.baseline;
  const changes = useApi(
    async () =>
      baseline === null
        ? undefined
        : call(
            api.GET('/api/v1/reports/{report}/changes', {
              params: {
                path: { report: report.uuid },
                query: { page, kind: 'fixed', state: view, ...(severity === null ? {} : { severity }) },
              },
            }),
          ),
    [report.uuid, severity, page, view, baseline === null],
  );
  const rows = changes.data?.data ?? [];
  const meta = changes.data?.meta;

  return (
    <section class="panel triage-scope" aria-labelledby="report-fixed-title">
      <h2 id="report-fixed-title">Fixed issues</h2>
      {baseline === null ? (
        <p class="empty">Without a baseline nothing is fixed: this is the first report of its branch.</p>
      ) : (
        <>
          <StateViews
            label="Fixed issues by decision"
            view={view}
            counts={null}
            href={(choice) => withQuery(path, query, { state: choice === 'open' ? null : choice, page: null })}
          />
          <div class="report-filters">
            <div class="field">
              <label for="fixed-severity">Severity of fixed issues</label>
              <select
                id="fixed-severity"
                value={severity ?? ''}
                onChange={(event) => route(withQuery(path, query, { severity: event.currentTarget.value, page: null }))}
              >
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
          {changes.loading && <p aria-live="polite">Loading the fixed issues…</p>}
          {!changes.loading && changes.data && rows.length === 0 && (
            <p class="empty">
              {severity !== null
                ? 'No fixed issue of this severity. Choose another above.'
                : view === 'dismissed'
                  ? 'No fixed issue was dismissed.'
                  : 'Nothing of the baseline was fixed, or every fixed issue was dismissed.'}
            </p>
          )}
          <TriageBar triage={triage} onPage={rows.map((row) => row.fingerprint)} />
          {rows.length > 0 && (
            <ul class="issue-list">
              {rows.map((row) => {
                const state = triage.stateOf(row.fingerprint, row.state);
                return (
                  <li key={row.fingerprint} class="issue">
                    <p class="issue-message">
                      <SelectBox triage={triage} fingerprint={row.fingerprint} label={row.message} />
                      <SeverityChip severity={row.severity} />
                      <span>{row.message}</span>
                      <span class="change change-fixed">Fixed</span>
                    </p>
                    <p class="issue-meta">
                      <span class="muted">{row.analyzer_name}</span>
                      {row.location !== null && (
                        <FilePath
                          file={row.location.file}
                          line={row.location.line}
                          href={fileLink?.(row.location.file, row.location.line)}
                        />
                      )}
                    </p>
                    <div class="issue-triage">
                      <IssueStateLine state={state} />
                      <IssueTriage triage={triage} fingerprint={row.fingerprint} label={row.message} state={state} />
                    </div>
                  </li>
                );
              })}
            </ul>
          )}
          {meta && meta.last_page > 1 && (
            <Pagination
              label="Pages of fixed issues"
              page={meta.current_page}
              lastPage={meta.last_page}
              summary={`${formatNumber(meta.from ?? 0)}–${formatNumber(meta.to ?? 0)} of ${formatNumber(meta.total)}`}
              onPage={(target) => {
                route(withQuery(path, query, { page: target }));
                // The next page starts at the list's top, not at the foot where its button was.
                document.getElementById('report-fixed-title')?.scrollIntoView({ block: 'start' });
              }}
            />
          )}
        </>
      )}
    </section>
  );
}
