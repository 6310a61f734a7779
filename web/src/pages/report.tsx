import { useLocation, useRoute } from 'preact-iso';
import { useEffect, useMemo } from 'preact/hooks';
import { pageUrl } from '../../../src/dashboard/dashboard-pages.js';
import { api, call } from '../api/client.js';
import { ProblemMessage } from '../components/problem-message.js';
import { codeLinks } from '../lib/code-links.js';
import { formatDate } from '../lib/format.js';
import { tabCounts, tabParam } from '../lib/report-tabs.js';
import { useApi, usePageTitle } from '../lib/use-api.js';
import { useTriage } from './issues/triage.js';
import { FailedAnalyzers } from './report/failed-analyzers.js';
import { FixedIssues } from './report/fixed-issues.js';
import { IssueBrowser } from './report/issue-browser.js';
import { ReportContext, StickySummary } from './report/report-header.js';
import { ReportResultsSection } from './report/report-results.js';
import { ReportActions, ReportSummary } from './report/report-summary.js';
import { ReportTabs } from './report/report-tabs.js';
import { SuppressedIssues } from './report/suppressed-issues.js';

/**
 * E7 report, issue 31: where it comes from (linked into the repository), a summary that stays in
 * view, and its sections as tabs in the URL (`?tab=new`): the overview (figures, gate, results by
 * category, exports, delete), the new, fixed, all and suppressed issues, and the analyzers that did
 * not pass. The report is loaded once (it carries every result and issue); the fixed issues come a
 * page at a time from the changes endpoint, the issues suppressed in code from E8.6's endpoint.
 * E8.9: each issue shows its state, and a member sets the state of one issue or a selection.
 */
export function ReportPage() {
  const { params } = useRoute();
  const { query } = useLocation();
  const reportId = params.report ?? '';
  const report = useApi(
    // report-types.ts names the shapes as openapi-fetch hands them (api/types.ts's Received): no cast needed.
    async () => (await call(api.GET('/api/v1/reports/{report}', { params: { path: { report: reportId } } }))).data,
    [reportId],
  );
  const projectId = report.data?.project_id;
  // For the project's name and repository: the report itself carries only the project's id.
  const project = useApi(
    async () =>
      projectId === undefined
        ? undefined
        : (await call(api.GET('/api/v1/projects/{project}', { params: { path: { project: projectId } } }))).data,
    [projectId],
  );
  const title = report.data ? `Report of ${formatDate(report.data.analyzed_at ?? report.data.created_at)}` : 'Report';
  usePageTitle(project.data ? `${title} · ${project.data.name}` : title);
  const tab = tabParam(query.tab);
  const counts = useMemo(() => (report.data ? tabCounts(report.data) : null), [report.data]);
  // E8.9: one selection and panel per list (and per view of it); the states saved here last while the page is open.
  const triage = useTriage(project.data?.id, project.data?.team_id, `${reportId} ${tab} ${query.state ?? ''}`);
  const links = codeLinks(project.data?.repository_url);
  const commit = report.data?.commit ?? null;
  const fileLink = links && commit ? (file: string, line?: number | null) => links.file(commit, file, line) : null;

  // User Timing: the report on screen, for the browser test's measurement against navigation start.
  useEffect(() => {
    if (report.data) performance.mark('scoreboard:report-shown');
  }, [report.data]);

  if (report.data === undefined || counts === null) {
    return (
      <section aria-labelledby="report-title">
        <h1 id="report-title">Report</h1>
        {report.loading ? (
          <p aria-live="polite">Loading the report…</p>
        ) : (
          <>
            <ProblemMessage problem={report.problem} />
            <p>
              <a href={pageUrl('projects', {})}>Back to the projects</a>, where each project lists its reports.
            </p>
          </>
        )}
      </section>
    );
  }
  const { results } = report.data;
  return (
    <section aria-labelledby="report-title" class="report-page">
      <h1 id="report-title">{title}</h1>
      <ReportContext report={report.data} projectName={project.data?.name ?? null} links={links} />
      <StickySummary report={report.data} />
      <ReportTabs tab={tab} counts={counts} />
      {tab === 'overview' && (
        <>
          <ReportSummary report={report.data} />
          <ReportResultsSection results={results} />
          <ReportActions report={report.data} />
        </>
      )}
      {tab === 'new' && (
        <IssueBrowser
          kind="new"
          results={results}
          fileLink={fileLink}
          hint={report.data.changes.baseline === null ? 'Without a baseline nothing is new: see All issues.' : undefined}
          triage={triage}
        />
      )}
      {tab === 'fixed' && <FixedIssues report={report.data} fileLink={fileLink} triage={triage} />}
      {tab === 'issues' && <IssueBrowser kind="issues" results={results} fileLink={fileLink} triage={triage} />}
      {tab === 'suppressed' && <SuppressedIssues report={report.data} fileLink={fileLink} />}
      {tab === 'failed' && <FailedAnalyzers results={results} />}
    </section>
  );
}
