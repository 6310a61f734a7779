import { pageUrl } from '../../../../src/dashboard/dashboard-pages.js';
import type { CodeLinks } from '../../lib/code-links.js';
import { pullRequestLabel } from '../../lib/code-links.js';
import { ScoreGrade } from '../../components/score-grade.js';
import { formatNumber } from '../../lib/format.js';
import { scoreSentence } from '../../lib/report-tabs.js';
import type { ReportDetail } from './report-types.js';

interface HeaderProps {
  report: ReportDetail;
  projectName: string | null;
  links: CodeLinks | null;
}

/**
 * Where the report comes from in one line (project, branch, commit, pull request and its base
 * branch, linked into the repository where its host is known) and why it scores what it does.
 */
export function ReportContext({ report, projectName, links }: HeaderProps) {
  const commit = report.commit;
  const pr = report.pull_request;
  return (
    <>
      <p class="report-context">
        <a href={pageUrl('project', { project: report.project_id })}>{projectName ?? 'The project'}</a>
        {report.branch !== null && (
          <span>
            Branch <code>{report.branch}</code>
          </span>
        )}
        {commit !== null && (
          <span>
            Commit{' '}
            {links ? (
              <a href={links.commit(commit)}>
                <code>{commit.slice(0, 12)}</code>
              </a>
            ) : (
              <code>{commit.slice(0, 12)}</code>
            )}
          </span>
        )}
        {pr !== null && (
          <span class="report-pr">
            Pull request {links ? <a href={links.pullRequest(pr)}>{pullRequestLabel(links.host, pr)}</a> : <strong>#{pr}</strong>}
            {report.base_branch !== null && (
              <>
                {' '}
                into <code>{report.base_branch}</code>
              </>
            )}
          </span>
        )}
      </p>
      <p class="report-why">{scoreSentence(report)}</p>
    </>
  );
}

/** Score, gate and counts, kept in view while the person scrolls through a long list. */
export function StickySummary({ report }: { report: ReportDetail }) {
  const { gate, changes } = report;
  return (
    <section class="report-sticky" aria-label="Report at a glance">
      <span class="report-sticky-score">
        Score <ScoreGrade score={report.score} large />
      </span>
      {gate === null ? (
        <span class="muted">No gate</span>
      ) : (
        <span class={gate.passed ? 'gate gate-passed' : 'gate gate-failed'}>Gate {gate.passed ? 'passed' : 'failed'}</span>
      )}
      <span>
        <strong>{formatNumber(report.total_issues)}</strong> issues
      </span>
      {changes.new !== null && (
        <span>
          <strong>{formatNumber(changes.new)}</strong> new
        </span>
      )}
      {changes.fixed !== null && (
        <span>
          <strong>{formatNumber(changes.fixed)}</strong> fixed
        </span>
      )}
    </section>
  );
}
