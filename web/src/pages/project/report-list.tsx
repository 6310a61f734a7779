import { pageUrl } from '../../../../src/dashboard/dashboard-pages.js';
import { ScoreGrade } from '../../components/score-grade.js';
import { ScrollRegion } from '../../components/scroll-region.js';
import { api, call } from '../../api/client.js';
import { ProblemMessage } from '../../components/problem-message.js';
import type { CodeLinks } from '../../lib/code-links.js';
import { formatDate } from '../../lib/format.js';
import { branchLabel, type ProjectQuery } from '../../lib/project-page.js';
import { useApi } from '../../lib/use-api.js';
import { BranchName, CommitRef, PullRequestRef } from './code-refs.js';
import { PageNav } from './page-nav.js';
import { GateStatus } from '../../components/gate-status.js';

/** The branch filter's value for "every branch" (git refuses `*` in a branch name, so no branch is called that). */
const ALL = '*';

interface ReportListProps {
  projectId: string;
  branches: readonly { name: string | null }[];
  /** The branch filter from the URL: undefined for every branch, '' for the reports without one. */
  branch: string | undefined;
  page: number;
  /** Links into the project's repository, when its host is known. */
  links: CodeLinks | null;
  onChange: (changes: ProjectQuery) => void;
}

/** A project's reports, newest first, a page at a time (D16), filtered by branch; both in the page's URL. */
export function ReportList({ projectId, branches, branch, page, links, onChange }: ReportListProps) {
  const reports = useApi(
    async () =>
      call(
        api.GET('/api/v1/projects/{project}/reports', {
          params: { path: { project: projectId }, query: { page, ...(branch === undefined ? {} : { branch }) } },
        }),
      ),
    [projectId, page, branch],
  );
  const meta = reports.data?.meta;
  return (
    <section class="panel" aria-labelledby="reports-title">
      <div class="page-heading">
        <h2 id="reports-title">Reports</h2>
        <div class="inline-field">
          <label for="reports-branch">Branch</label>
          <select
            id="reports-branch"
            value={branch ?? ALL}
            onChange={(event) => {
              const value = event.currentTarget.value;
              onChange({ branch: value === ALL ? undefined : value, page: 1 });
            }}
          >
            <option value={ALL}>All branches</option>
            {branches.map(({ name }) => (
              <option key={name ?? ''} value={name ?? ''}>
                {branchLabel(name)}
              </option>
            ))}
          </select>
        </div>
      </div>
      <ProblemMessage problem={reports.problem} />
      {reports.data?.data.length === 0 && (
        <p class="empty">No reports here. Choose “All branches”, or upload a report with the client package.</p>
      )}
      {reports.data && reports.data.data.length > 0 && (
        <ScrollRegion label="Reports">
          <table class="report-table project-reports stacked-table">
            <thead>
              <tr>
                <th scope="col">Analyzed</th>
                <th scope="col">Branch</th>
                <th scope="col">Pull request</th>
                <th scope="col">Commit</th>
                <th scope="col" class="number">
                  Score
                </th>
                <th scope="col">Gate</th>
                <th scope="col" class="number">
                  New
                </th>
                <th scope="col" class="number">
                  Fixed
                </th>
              </tr>
            </thead>
            <tbody>
              {reports.data.data.map((report) => (
                <tr key={report.uuid}>
                  <th scope="row" data-label="Analyzed">
                    <a href={pageUrl('report', { report: report.uuid })}>{formatDate(report.analyzed_at)}</a>
                  </th>
                  <td data-label="Branch">{report.branch === null ? '—' : <BranchName name={report.branch} />}</td>
                  <td data-label="Pull request">
                    {report.pull_request === null ? (
                      '—'
                    ) : (
                      <PullRequestRef number={report.pull_request} base={report.base_branch} links={links} />
                    )}
                  </td>
                  <td data-label="Commit">{report.commit === null ? '—' : <CommitRef sha={report.commit} links={links} />}</td>
                  <td class="number" data-label="Score">
                    <ScoreGrade score={report.score} />
                  </td>
                  <td class="short" data-label="Gate">
                    <GateStatus passed={report.gate?.passed ?? null} />
                  </td>
                  <td class="number" data-label="New">
                    {report.changes.new ?? '—'}
                  </td>
                  <td class="number" data-label="Fixed">
                    {report.changes.fixed ?? '—'}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollRegion>
      )}
      {meta && (
        <PageNav label="Pages of reports" page={meta.current_page} lastPage={meta.last_page} onPage={(next) => onChange({ page: next })} />
      )}
    </section>
  );
}
