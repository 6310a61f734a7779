import { useLocation } from 'preact-iso';
import { pageUrl } from '../../../../src/dashboard/dashboard-pages.js';
import { api, call } from '../../api/client.js';
import { plural } from '../../api/problems.js';
import type { components } from '../../api/schema.js';
import { ProblemMessage } from '../../components/problem-message.js';
import type { CodeLinks } from '../../lib/code-links.js';
import { formatDate } from '../../lib/format.js';
import { pageOf } from '../../lib/project-page.js';
import { failureHeadline, runContext } from '../../lib/project-runs.js';
import { useApi } from '../../lib/use-api.js';
import { BranchName, CommitRef, PullRequestRef } from './code-refs.js';
import { PageNav } from './page-nav.js';
import { ProjectSubpage } from './project-subpage.js';

type RunFailure = components['schemas']['RunFailure'];

/** How many of the latest failed runs the project page shows; the rest are a link away. */
const SHOWN_ON_PROJECT_PAGE = 3;

function loadFailures(project: string, page: number) {
  return call(api.GET('/api/v1/projects/{project}/failures', { params: { path: { project }, query: { page } } }));
}

/** The project page's part: the latest few failed runs (POST /api/reports/failure), and the way to all of them. */
export function FailedRunsPanel({ projectId, links }: { projectId: string; links: CodeLinks | null }) {
  const failures = useApi(() => loadFailures(projectId, 1), [projectId]);
  const total = failures.data?.meta.total;
  return (
    <section class="panel" aria-labelledby="failed-runs-title">
      <h2 id="failed-runs-title">Failed runs</h2>
      <ProblemMessage problem={failures.problem} />
      {total === 0 && <p class="empty">No failed runs: every analysis that started has sent its report.</p>}
      {failures.data && total !== undefined && total > 0 && (
        <>
          <p class="muted">
            {total > SHOWN_ON_PROJECT_PAGE ? `The latest ${SHOWN_ON_PROJECT_PAGE} of ${total}` : plural(total, 'failed run')}, newest first:
            analyses that stopped before they could send a report.
          </p>
          <FailedRunList failures={failures.data.data.slice(0, SHOWN_ON_PROJECT_PAGE)} links={links} />
          {total > SHOWN_ON_PROJECT_PAGE && (
            <p>
              <a href={pageUrl('failedRuns', { project: projectId })}>All {plural(total, 'failed run')}</a>
            </p>
          )}
        </>
      )}
    </section>
  );
}

/** Every failed run of a project, newest first, a page at a time (the page in its URL). */
export function FailedRunsPage() {
  return <ProjectSubpage title="Failed runs">{(project) => <AllFailedRuns projectId={project.id} links={project.links} />}</ProjectSubpage>;
}

function AllFailedRuns({ projectId, links }: { projectId: string; links: CodeLinks | null }) {
  const { path, query, route } = useLocation();
  const page = pageOf(query.page);
  const failures = useApi(() => loadFailures(projectId, page), [projectId, page]);
  return (
    <>
      <ProblemMessage problem={failures.problem} />
      {failures.data?.meta.total === 0 && <p class="empty">No failed runs: every analysis that started has sent its report.</p>}
      {failures.data && failures.data.data.length > 0 && <FailedRunList failures={failures.data.data} links={links} />}
      {failures.data && (
        <PageNav
          label="Pages of failed runs"
          page={page}
          lastPage={failures.data.meta.last_page}
          onPage={(next) => route(next === 1 ? path : `${path}?page=${next}`)}
        />
      )}
    </>
  );
}

function FailedRunList({ failures, links }: { failures: readonly RunFailure[]; links: CodeLinks | null }) {
  return (
    <ol class="failed-runs">
      {failures.map((failure) => {
        const context = runContext(failure.metadata);
        const at = failure.occurred_at ?? failure.created_at;
        return (
          <li key={failure.uuid} class="failed-run">
            <p class="failed-run-head">
              <strong class="gate-failed">{failureHeadline(failure)}</strong>
              {at !== null && <time dateTime={at}>{formatDate(at)}</time>}
            </p>
            {(context.branch !== null || context.pullRequest !== null || context.commit !== null) && (
              <p class="failed-run-context">
                {context.branch !== null && <BranchName name={context.branch} />}
                {context.pullRequest !== null && <PullRequestRef number={context.pullRequest} base={context.baseBranch} links={links} />}
                {context.commit !== null && <CommitRef sha={context.commit} links={links} />}
              </p>
            )}
            {failure.error_message && <pre class="failed-run-message">{failure.error_message}</pre>}
          </li>
        );
      })}
    </ol>
  );
}
