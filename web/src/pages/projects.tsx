import { useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { pageUrl } from '../../../src/dashboard/dashboard-pages.js';
import { api, call } from '../api/client.js';
import { asProblem, type Problem } from '../api/problems.js';
import type { Project, TrendPoint } from '../api/types.js';
import { useAppState } from '../app-context.js';
import { ProblemMessage } from '../components/problem-message.js';
import { ScoreGrade } from '../components/score-grade.js';
import { ScoreSparkline } from '../components/score-sparkline.js';
import { switchCurrentTeam } from '../components/team-switcher.js';
import { recentTrend } from '../lib/trend-cache.js';
import { useApi, usePageTitle } from '../lib/use-api.js';
import { GateStatus } from '../components/gate-status.js';

/** How many recent reports the sparkline shows. */
const SPARKLINE_REPORTS = 20;

/** E7 projects: the current team's projects with score, gate, a sparkline of recent scores and new issues. */
export function ProjectsPage() {
  usePageTitle('Projects');
  const { profile } = useAppState();
  const { query, route } = useLocation();
  const page = Math.max(1, Number.parseInt(query.page ?? '1', 10) || 1);
  const projects = useApi(async () => call(api.GET('/api/v1/projects', { params: { query: { page } } })), [profile.current_team_id, page]);

  return (
    <section aria-labelledby="projects-title">
      <div class="page-heading">
        <h1 id="projects-title">Projects</h1>
        {profile.current_team_id !== null && (
          <a class="button" href={pageUrl('newProject', {})}>
            New project
          </a>
        )}
      </div>
      <ProblemMessage problem={projects.problem} />
      {projects.loading && projects.data === undefined && <p aria-live="polite">Loading projects…</p>}
      {profile.current_team_id === null && (
        <p class="empty">You belong to no team yet. Accept an invitation on the Invitations page, or ask the operator to create a team.</p>
      )}
      {projects.data && projects.data.data.length === 0 && profile.current_team_id !== null && (
        <div class="empty">
          <p>This team has no projects yet.</p>
          <p>
            <a href={pageUrl('newProject', {})}>Create a project</a> to get its API token, then run the analysis client with it: its reports
            and their scores appear here.
          </p>
          <OtherTeams currentTeamId={profile.current_team_id} />
        </div>
      )}
      {projects.data && projects.data.data.length > 0 && (
        <>
          <ul class="project-list">
            {projects.data.data.map((project) => (
              <ProjectRow key={project.id} project={project} />
            ))}
          </ul>
          {projects.data.meta.last_page > 1 && (
            <nav class="pagination" aria-label="Pages of projects">
              <button type="button" disabled={page <= 1} onClick={() => route(`/?page=${page - 1}`)}>
                Previous
              </button>
              <span>
                Page {projects.data.meta.current_page} of {projects.data.meta.last_page}
              </span>
              <button type="button" disabled={page >= projects.data.meta.last_page} onClick={() => route(`/?page=${page + 1}`)}>
                Next
              </button>
            </nav>
          )}
        </>
      )}
    </section>
  );
}

/**
 * Where the projects are when the current team has none: after creating a team (which becomes the
 * current one) a person's projects seem to have vanished; they are in the other teams, one click away.
 */
function OtherTeams({ currentTeamId }: { currentTeamId: number }) {
  const state = useAppState();
  const teams = useApi(async () => (await call(api.GET('/api/v1/teams'))).data, [currentTeamId]);
  const [problem, setProblem] = useState<Problem | null>(null);
  const others = (teams.data ?? []).filter((team) => team.id !== currentTeamId && team.project_count > 0);
  if (others.length === 0) return null;
  return (
    <>
      <p>Your projects in your other teams:</p>
      <ul class="other-teams">
        {others.map((team) => (
          <li key={team.id}>
            <span>
              {team.name}: {team.project_count === 1 ? '1 project' : `${team.project_count} projects`}
            </span>{' '}
            <button
              type="button"
              onClick={() => {
                setProblem(null);
                switchCurrentTeam(state, team.id).catch((error: unknown) => setProblem(asProblem(error)));
              }}
            >
              Switch to {team.name}
            </button>
          </li>
        ))}
      </ul>
      <ProblemMessage problem={problem} />
    </>
  );
}

function ProjectRow({ project }: { project: Project }) {
  const trend = useApi(() => recentTrend(project, SPARKLINE_REPORTS), [project.id, project.latest_report?.uuid]);
  const latest: TrendPoint | undefined = trend.data?.[trend.data.length - 1];
  const score = project.latest_report?.score;
  return (
    <li class="project">
      <h2 class="project-name">
        <a href={pageUrl('project', { project: project.id })}>{project.name}</a>
        {project.archived_at !== null && <span class="tag">Archived</span>}
      </h2>
      <dl class="project-facts">
        <div>
          <dt>Score</dt>
          <dd class="score">{score === undefined ? <span class="muted">No reports yet</span> : <ScoreGrade score={score} large />}</dd>
        </div>
        <div>
          <dt>Gate</dt>
          <dd>
            <GateStatus none="No gate yet" passed={latest?.gate_passed ?? null} />
          </dd>
        </div>
        <div>
          <dt>New issues</dt>
          <dd>{latest?.new ?? <span class="muted">—</span>}</dd>
        </div>
        <div class="trend">
          <dt>Trend</dt>
          <dd>
            {trend.problem ? (
              <span class="problem">{trend.problem.message}</span>
            ) : (
              <ScoreSparkline scores={(trend.data ?? []).map((point) => point.score)} />
            )}
          </dd>
        </div>
      </dl>
    </li>
  );
}
