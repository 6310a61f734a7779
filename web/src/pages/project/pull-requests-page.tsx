import { useLocation } from 'preact-iso';
import { pageUrl } from '../../../../src/dashboard/dashboard-pages.js';
import { api, call } from '../../api/client.js';
import { plural } from '../../api/problems.js';
import { ProblemMessage } from '../../components/problem-message.js';
import { ScoreGrade } from '../../components/score-grade.js';
import { ScrollRegion } from '../../components/scroll-region.js';
import type { CodeLinks } from '../../lib/code-links.js';
import { formatDate } from '../../lib/format.js';
import { pageOf } from '../../lib/project-page.js';
import { newIssuesUrl } from '../../lib/project-runs.js';
import { useApi } from '../../lib/use-api.js';
import { BranchName, CommitRef, PullRequestRef } from './code-refs.js';
import { PageNav } from './page-nav.js';
import { ProjectSubpage } from './project-subpage.js';
import { GateStatus } from '../../components/gate-status.js';

/** A project's pull requests, each with its latest report: its score, gate and the way to its new issues. */
export function PullRequestsPage() {
  return (
    <ProjectSubpage title="Pull requests">{(project) => <PullRequests projectId={project.id} links={project.links} />}</ProjectSubpage>
  );
}

function PullRequests({ projectId, links }: { projectId: string; links: CodeLinks | null }) {
  const { path, query, route } = useLocation();
  const page = pageOf(query.page);
  const pulls = useApi(
    async () => call(api.GET('/api/v1/projects/{project}/pull-requests', { params: { path: { project: projectId }, query: { page } } })),
    [projectId, page],
  );
  const data = pulls.data;
  return (
    <>
      <p class="lead">
        Each pull request’s latest report, newest first. Its new issues are those its base branch’s latest report did not have when it ran.
      </p>
      <ProblemMessage problem={pulls.problem} />
      {data?.meta.total === 0 && (
        <p class="empty">
          No pull requests yet. A report is a pull request’s when the client sends its number (<code>pr_number</code>), as it does in CI for
          a pull request.
        </p>
      )}
      {data && data.data.length > 0 && (
        <ScrollRegion label="Pull requests">
          <table class="report-table pull-requests stacked-table">
            <thead>
              <tr>
                <th scope="col">Pull request</th>
                <th scope="col">Branch</th>
                <th scope="col">Latest report</th>
                <th scope="col">Commit</th>
                <th scope="col" class="number">
                  Score
                </th>
                <th scope="col">Gate</th>
                <th scope="col">New issues</th>
              </tr>
            </thead>
            <tbody>
              {data.data.map(({ pull_request: number, latest_report: report }) => (
                <tr key={number}>
                  <th scope="row" data-label="Pull request">
                    <PullRequestRef number={number} base={report.base_branch} links={links} />
                  </th>
                  <td data-label="Branch">{report.branch === null ? '—' : <BranchName name={report.branch} />}</td>
                  <td data-label="Latest report">
                    <a href={pageUrl('report', { report: report.uuid })}>{formatDate(report.analyzed_at)}</a>
                  </td>
                  <td data-label="Commit">{report.commit === null ? '—' : <CommitRef sha={report.commit} links={links} />}</td>
                  <td data-label="Score" class="number">
                    <ScoreGrade score={report.score} />
                  </td>
                  <td class="short" data-label="Gate">
                    <GateStatus passed={report.gate?.passed ?? null} />
                  </td>
                  <td data-label="New issues">
                    {report.changes.new === null ? (
                      <span class="muted">No baseline</span>
                    ) : (
                      <a href={newIssuesUrl(report.uuid)}>{plural(report.changes.new, 'new issue')}</a>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollRegion>
      )}
      {data && (
        <PageNav
          label="Pages of pull requests"
          page={page}
          lastPage={data.meta.last_page}
          onPage={(next) => route(next === 1 ? path : `${path}?page=${next}`)}
        />
      )}
    </>
  );
}
