import { useRoute } from 'preact-iso';
import { pageUrl } from '../../../src/dashboard/dashboard-pages.js';
import { api, call } from '../api/client.js';
import { ProblemMessage } from '../components/problem-message.js';
import { formatDate } from '../lib/format.js';
import { useApi, usePageTitle } from '../lib/use-api.js';
import { ReportChangesSection } from './report/report-changes.js';
import { ReportIssuesSection } from './report/report-issues.js';
import { ReportResultsSection } from './report/report-results.js';
import { ReportSummary } from './report/report-summary.js';

/**
 * E7 report: summary, gate with its reasons, changes against the baseline, results by category,
 * issues by severity with their code, export links and delete. The report is loaded once (it
 * carries every result and issue); the changes come a page at a time from their own endpoint.
 */
export function ReportPage() {
  const { params } = useRoute();
  const reportId = params.report ?? '';
  const report = useApi(
    async () => (await call(api.GET('/api/v1/reports/{report}', { params: { path: { report: reportId } } }))).data,
    [reportId],
  );
  const projectId = report.data?.project_id;
  // Only for the project's name in the summary: the report itself carries its id.
  const project = useApi(
    async () =>
      projectId === undefined
        ? undefined
        : (await call(api.GET('/api/v1/projects/{project}', { params: { path: { project: projectId } } }))).data,
    [projectId],
  );
  const title = report.data ? `Report of ${formatDate(report.data.analyzed_at ?? report.data.created_at)}` : 'Report';
  usePageTitle(project.data ? `${title} · ${project.data.name}` : title);

  if (report.data === undefined) {
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
  return (
    <section aria-labelledby="report-title" class="report-page">
      <h1 id="report-title">{title}</h1>
      <ReportSummary report={report.data} projectName={project.data?.name ?? null} />
      <ReportChangesSection report={report.data} />
      <ReportResultsSection results={report.data.results} />
      <ReportIssuesSection results={report.data.results} />
    </section>
  );
}
