import { useLocation } from 'preact-iso';
import { useState } from 'preact/hooks';
import { pageUrl } from '../../../../src/dashboard/dashboard-pages.js';
import { api, call } from '../../api/client.js';
import { asProblem, type Problem } from '../../api/problems.js';
import type { ReportDetail } from './report-types.js';
import { ConfirmButton } from '../../components/confirm-button.js';
import { DangerZone } from '../../components/danger-zone.js';
import { ProblemMessage } from '../../components/problem-message.js';
import { ScoreGrade } from '../../components/score-grade.js';
import { SeverityChip } from '../../components/severity-chip.js';
import { formatDate, formatNumber } from '../../lib/format.js';
import { SEVERITIES, withQuery } from '../../lib/report-view.js';

/** The overview: the report's figures and its gate in words (where it comes from is in the page's header). */
export function ReportSummary({ report }: { report: ReportDetail }) {
  const { changes } = report;
  return (
    <>
      <section class="panel" aria-labelledby="report-summary-title">
        <h2 id="report-summary-title">Summary</h2>
        <dl class="facts report-facts">
          <div>
            <dt>Analyzed</dt>
            <dd>{formatDate(report.analyzed_at)}</dd>
          </div>
          <div>
            <dt>Score</dt>
            <dd class="score">
              <ScoreGrade score={report.score} />
            </dd>
          </div>
          <div>
            <dt>Analyzers</dt>
            <dd>
              {formatNumber(report.passed)} passed, {formatNumber(report.total - report.passed - report.skipped)} did not pass,{' '}
              {formatNumber(report.skipped)} skipped, of {formatNumber(report.total)}
            </dd>
          </div>
        </dl>
        <h3 class="report-subtitle">Issues by severity</h3>
        <dl class="facts report-severities">
          <div>
            <dt>Total</dt>
            <dd>{formatNumber(report.total_issues)}</dd>
          </div>
          {SEVERITIES.map((severity) => (
            <div key={severity}>
              <dt>
                <SeverityChip severity={severity} />
              </dt>
              <dd>{formatNumber(report.issues_by_severity[severity])}</dd>
            </div>
          ))}
        </dl>
        <h3 class="report-subtitle">Against the baseline</h3>
        {changes.baseline === null ? (
          <p class="muted">
            No baseline: this is the first report of its branch (or the one before it was deleted), so every issue counts as found.
          </p>
        ) : (
          <dl class="facts">
            <div>
              <dt>New</dt>
              <dd>{changes.new === null ? '—' : formatNumber(changes.new)}</dd>
            </div>
            <div>
              <dt>Fixed</dt>
              <dd>{changes.fixed === null ? '—' : formatNumber(changes.fixed)}</dd>
            </div>
            <div>
              <dt>Unchanged</dt>
              <dd>{changes.unchanged === null ? '—' : formatNumber(changes.unchanged)}</dd>
            </div>
            <div>
              <dt>Baseline</dt>
              <dd>
                <a href={pageUrl('report', { report: changes.baseline.uuid })}>{formatDate(changes.baseline.analyzed_at)}</a>
                {changes.baseline.branch !== null && <span class="muted"> on {changes.baseline.branch}</span>}
              </dd>
            </div>
          </dl>
        )}
      </section>
      <GatePanel gate={report.gate} />
    </>
  );
}

function GatePanel({ gate }: { gate: ReportDetail['gate'] }) {
  const { path } = useLocation();
  return (
    <section class="panel" aria-labelledby="report-gate-title">
      <h2 id="report-gate-title">Quality gate</h2>
      {gate === null ? (
        <p class="muted">This report was stored before Scoreboard kept gates, so it has none.</p>
      ) : (
        <>
          <p class={gate.passed ? 'gate gate-passed' : 'gate gate-failed'}>{gate.passed ? 'Passed' : 'Failed'}</p>
          {gate.reasons.length === 0 ? (
            <p class="muted">{gate.passed ? 'Every condition of the project’s gate was met.' : 'The gate gave no reason.'}</p>
          ) : (
            <ul class="gate-reasons">
              {gate.reasons.map((reason) => (
                <li key={reason}>{reason}</li>
              ))}
            </ul>
          )}
          {/* E8.4: what was dismissed when the report was stored did not count against the gate. */}
          {gate.dismissed > 0 && (
            <p class="muted gate-dismissed">
              {gate.dismissed === 1
                ? '1 dismissed issue was left out of the gate’s severity conditions.'
                : `${formatNumber(gate.dismissed)} dismissed issues were left out of the gate’s severity conditions.`}{' '}
              <a href={withQuery(path, {}, { tab: 'issues', state: 'dismissed' })}>See the dismissed issues</a>.
            </p>
          )}
        </>
      )}
    </section>
  );
}

/** Downloads (plain links: a GET sends the session cookie and needs no CSRF token), then deleting, apart in the danger zone. */
export function ReportActions({ report }: { report: ReportDetail }) {
  const { route } = useLocation();
  const projectUrl = pageUrl('project', { project: report.project_id });
  const [problem, setProblem] = useState<Problem | null>(null);
  const exportUrl = (format: 'sarif' | 'csv') => `/api/v1/reports/${encodeURIComponent(report.uuid)}/export?format=${format}`;
  const remove = async () => {
    setProblem(null);
    try {
      await call(api.DELETE('/api/v1/reports/{report}', { params: { path: { report: report.uuid } } }));
      route(projectUrl);
    } catch (error) {
      setProblem(asProblem(error));
    }
  };
  return (
    <>
      <section class="panel" aria-labelledby="report-actions-title">
        <h2 id="report-actions-title">Export</h2>
        <p class="report-actions">
          <a class="button" href={exportUrl('sarif')} download>
            Download SARIF
          </a>
          <a class="button" href={exportUrl('csv')} download>
            Download CSV
          </a>
        </p>
      </section>
      <DangerZone id="report-danger-title">
        <ProblemMessage problem={problem} />
        <div class="action">
          <p>Delete this report. The project keeps its other reports; a later report of its branch gets an older baseline.</p>
          <ConfirmButton
            label="Delete report"
            question="Delete this report for good? Its project keeps its other reports."
            onConfirm={remove}
          />
        </div>
      </DangerZone>
    </>
  );
}
