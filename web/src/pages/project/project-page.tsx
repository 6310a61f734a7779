import { useLocation, useRoute } from 'preact-iso';
import { pageUrl } from '../../../../src/dashboard/dashboard-pages.js';
import { api, call } from '../../api/client.js';
import { plural } from '../../api/problems.js';
import type { paths } from '../../api/schema.js';
import { ScoreGrade } from '../../components/score-grade.js';
import { CopyButton } from '../../components/copy-button.js';
import { ProblemMessage } from '../../components/problem-message.js';
import { TrendChart } from '../../components/trend-chart.js';
import { ANALYZE_COMMAND, clientEnvLines, INSTALL_COMMAND } from '../../lib/client-setup.js';
import { codeLinks } from '../../lib/code-links.js';
import { branchLabel, type ProjectQuery, pageOf, projectQueryString, trendBranch } from '../../lib/project-page.js';
import { type TrendAxis, trendAxisOf } from '../../lib/trend-axis.js';
import { useApi, usePageTitle } from '../../lib/use-api.js';
import { BadgeMarkdown } from './badge-markdown.js';
import { CodeHostSettings } from './code-host-settings.js';
import { FailedRunsPanel } from './failed-runs.js';
import { GateSettings } from './gate-settings.js';
import { ProjectActions } from './project-actions.js';
import { MuteButton } from '../notification-settings.js';
import { ReportList } from './report-list.js';
import { TrackerSettings } from './tracker-settings.js';
import { WebhookList } from './webhook-list.js';

/** How many of the latest reports the trend chart shows. */
const TREND_REPORTS = 60;

type Branches = paths['/api/v1/projects/{project}/branches']['get']['responses'][200]['content']['application/json']['data'];

/** E7 project: trend per branch, branches, reports, gate settings, tracker (E9.6), code host (E10.6), token, archive, delete, badges, webhooks. */
export function ProjectPage() {
  const { params } = useRoute();
  const projectId = params.project ?? '';
  const { query, path, route } = useLocation();
  const project = useApi(
    async () => (await call(api.GET('/api/v1/projects/{project}', { params: { path: { project: projectId } } }))).data,
    [projectId],
  );
  const branches = useApi(
    async () =>
      (
        await call(
          api.GET('/api/v1/projects/{project}/branches', { params: { path: { project: projectId }, query: { include: 'report_count' } } }),
        )
      ).data,
    [projectId],
  );
  usePageTitle(project.data?.name ?? 'Project');

  // The page's state lives in its URL (reload and back keep it); each change replaces the query.
  const state: ProjectQuery = { trend: query.trend, axis: trendAxisOf(query.axis), branch: query.branch, page: pageOf(query.page) };
  const navigate = (changes: ProjectQuery) => route(`${path}${projectQueryString({ ...state, ...changes })}`);

  if (project.data === undefined) {
    return (
      <section aria-labelledby="project-title">
        <h1 id="project-title">Project</h1>
        {project.loading ? <p aria-live="polite">Loading the project…</p> : <ProblemMessage problem={project.problem} />}
        <p>
          <a href="/">Back to projects</a>
        </p>
      </section>
    );
  }
  const current = project.data;
  const noReports = current.latest_report === null && branches.data?.length === 0;
  const links = codeLinks(current.repository_url);
  return (
    <section aria-labelledby="project-title" class="project-page">
      <div class="page-heading">
        <h1 id="project-title">
          {current.name} {current.archived_at !== null && <span class="tag">Archived</span>}
        </h1>
        <MuteButton projectId={current.id} />
      </div>
      {current.description && <p class="lead">{current.description}</p>}
      {current.repository_url && (
        <p>
          Repository:{' '}
          <a href={current.repository_url} rel="noreferrer">
            {current.repository_url}
          </a>
        </p>
      )}
      {current.archived_at !== null && <p class="notice">This project is archived: it keeps its reports and accepts no new ones.</p>}
      <nav class="project-views" aria-label="More of this project">
        <a href={pageUrl('projectIssues', { project: current.id })}>Issues</a>
        <a href={pageUrl('pullRequests', { project: current.id })}>Pull requests</a>
        <a href="#failed-runs-title">Failed runs</a>
      </nav>

      {noReports ? (
        <ClientSetup projectId={current.id} />
      ) : (
        <>
          <Trend
            projectId={projectId}
            branches={branches.data}
            fromUrl={state.trend}
            onBranch={(trend) => navigate({ trend })}
            axis={state.axis ?? 'time'}
            onAxis={(axis) => navigate({ axis })}
            threshold={current.settings.fail_threshold}
            repositoryUrl={current.repository_url}
          />
          <section class="panel" aria-labelledby="branches-title">
            <h2 id="branches-title">Branches</h2>
            <ProblemMessage problem={branches.problem} />
            {branches.data && <BranchList branches={branches.data} />}
          </section>
          <ReportList
            projectId={projectId}
            branches={branches.data ?? []}
            branch={state.branch}
            page={state.page ?? 1}
            links={links}
            onChange={(changes) => navigate(changes)}
          />
        </>
      )}
      <FailedRunsPanel projectId={projectId} links={links} />
      <GateSettings project={current} onSaved={project.reload} />
      <TrackerSettings project={current} onSaved={project.reload} />
      <CodeHostSettings project={current} />
      <BadgeMarkdown projectId={projectId} />
      <WebhookList projectId={projectId} />
      <ProjectActions project={current} onChanged={project.reload} />
    </section>
  );
}

function Trend(props: {
  projectId: string;
  branches: Branches | undefined;
  fromUrl: string | undefined;
  onBranch: (name: string) => void;
  axis: TrendAxis;
  onAxis: (axis: TrendAxis) => void;
  threshold: number | null;
  repositoryUrl: string | null;
}) {
  const branch = props.branches === undefined ? undefined : trendBranch(props.branches, props.fromUrl);
  const trend = useApi(async () => {
    if (branch === undefined) return [];
    // `branch=` (empty) is the API's way to ask for the reports without a branch.
    const query = { limit: TREND_REPORTS, branch: branch ?? '', include: 'commit' as const };
    return (await call(api.GET('/api/v1/projects/{project}/trend', { params: { path: { project: props.projectId }, query } }))).data;
  }, [props.projectId, branch]);

  return (
    <section class="panel" aria-labelledby="trend-title">
      <div class="page-heading">
        <h2 id="trend-title">Score trend</h2>
        {props.branches && props.branches.length > 0 && (
          <div class="inline-field">
            <label for="trend-branch">Branch</label>
            <select id="trend-branch" value={branch ?? ''} onChange={(event) => props.onBranch(event.currentTarget.value)}>
              {props.branches.map(({ name }) => (
                <option key={name ?? ''} value={name ?? ''}>
                  {branchLabel(name)}
                </option>
              ))}
            </select>
          </div>
        )}
      </div>
      <ProblemMessage problem={trend.problem} />
      {trend.data && branch !== undefined && (
        <TrendChart
          points={trend.data}
          caption={
            trend.data.length === 1
              ? `Score of the one report on ${branchLabel(branch)}`
              : `Score of the last ${plural(trend.data.length, 'report')} on ${branchLabel(branch)}, oldest first`
          }
          axis={props.axis}
          onAxis={props.onAxis}
          threshold={props.threshold}
          repositoryUrl={props.repositoryUrl}
        />
      )}
    </section>
  );
}

function BranchList({ branches }: { branches: Branches }) {
  return (
    <ul class="cards branch-list">
      {branches.map(({ name, latest_report: report }) => (
        <li key={name ?? ''} class="card">
          <h3>{branchLabel(name)}</h3>
          <p>
            <a href={pageUrl('report', { report: report.uuid })}>Latest report</a>: score <ScoreGrade score={report.score} />
            {report.gate && (
              <span class={report.gate.passed ? 'gate gate-passed' : 'gate gate-failed'}>
                {report.gate.passed ? ' · gate passed' : ' · gate failed'}
              </span>
            )}
          </p>
        </li>
      ))}
    </ul>
  );
}

/** A project without reports: what to do for the first one (the client package, its .env lines, the command). */
function ClientSetup({ projectId }: { projectId: string }) {
  const env = clientEnvLines({ serviceUrl: window.location.origin, apiToken: 'YOUR_PROJECT_TOKEN', projectId });
  return (
    <section class="panel empty-project" aria-labelledby="setup-title">
      <h2 id="setup-title">No reports yet</h2>
      <p>Reports come from the client package, run in the Laravel application (locally or in CI):</p>
      <ol class="steps">
        <li>
          <p>Install the client package:</p>
          <pre>
            <code>{INSTALL_COMMAND}</code>
          </pre>
        </li>
        <li>
          <p>
            Add these lines to the application's <code>.env</code>, with the project's token (shown when the project was created; lost it?
            Regenerate it below):
          </p>
          <pre>
            <code>{env}</code>
          </pre>
          <CopyButton text={env} label="Copy .env lines" />
        </li>
        <li>
          <p>Run the analysis; its report shows here:</p>
          <pre>
            <code>{ANALYZE_COMMAND}</code>
          </pre>
        </li>
      </ol>
    </section>
  );
}
