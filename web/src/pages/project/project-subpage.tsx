import type { ComponentChildren } from 'preact';
import { useRoute } from 'preact-iso';
import { pageUrl } from '../../../../src/dashboard/dashboard-pages.js';
import { api, call } from '../../api/client.js';
import { ProblemMessage } from '../../components/problem-message.js';
import { type CodeLinks, codeLinks } from '../../lib/code-links.js';
import { useApi, usePageTitle } from '../../lib/use-api.js';

export interface SubpageProject {
  id: string;
  name: string;
  teamId: number;
  links: CodeLinks | null;
}

/**
 * A page of one project's (its pull requests, its failed runs): the project's name as a way back
 * to its page, the page's heading, and what `children` draws once the project is known.
 */
export function ProjectSubpage({ title, children }: { title: string; children: (project: SubpageProject) => ComponentChildren }) {
  const { params } = useRoute();
  const projectId = params.project ?? '';
  const project = useApi(
    async () => (await call(api.GET('/api/v1/projects/{project}', { params: { path: { project: projectId } } }))).data,
    [projectId],
  );
  const name = project.data?.name;
  usePageTitle(name === undefined ? title : `${title} · ${name}`);
  return (
    <section aria-labelledby="subpage-title" class="project-subpage">
      <p class="breadcrumb">
        {name === undefined ? <a href="/">Projects</a> : <a href={pageUrl('project', { project: projectId })}>{name}</a>}
      </p>
      <h1 id="subpage-title">{title}</h1>
      {project.data === undefined ? (
        project.loading ? (
          <p aria-live="polite">Loading the project…</p>
        ) : (
          <ProblemMessage problem={project.problem} />
        )
      ) : (
        children({
          id: project.data.id,
          name: project.data.name,
          teamId: project.data.team_id,
          links: codeLinks(project.data.repository_url),
        })
      )}
    </section>
  );
}
