import type { TriageBody } from '../lib/issue-triage.js';
import { api, call } from './client.js';
import type { components, paths } from './schema.js';
import type { Received } from './types.js';

/**
 * E8's endpoints as the pages call them: an issue's state (PUT one, POST a selection), the
 * project's issue list, the caller's assigned issues and a report's suppressed issues. Their
 * shapes are the generated schema's (the service's own OpenAPI document).
 */
type Schemas = components['schemas'];
export type Member = Schemas['Member'];

/** The items of a list as the page receives them. */
type ListItem<Path extends keyof paths> = paths[Path] extends {
  get: { responses: { 200: { content: { 'application/json': { data: (infer Item)[] } } } } };
}
  ? Received<Item>
  : never;

/** E8.1 without the issue as last seen: what every list shows beside an issue. */
export type IssueState = Received<Omit<Schemas['TrackedIssue'], 'issue'>>;
export type AssignedIssue = ListItem<'/api/v1/user/issues'>;
export type ProjectIssue = ListItem<'/api/v1/projects/{project}/issues'>;

/** E8.2: one issue's new state (PUT), or a selection's, all or nothing (POST .../bulk). */
export async function saveStates(project: string, fingerprints: readonly string[], body: TriageBody): Promise<IssueState[]> {
  if (fingerprints.length === 1) {
    const fingerprint = fingerprints[0] as string;
    const answer = await call(
      api.PUT('/api/v1/projects/{project}/issues/{fingerprint}', { params: { path: { project, fingerprint } }, body }),
    );
    return [answer.data];
  }
  const answer = await call(
    api.POST('/api/v1/projects/{project}/issues/bulk', {
      params: { path: { project } },
      body: { ...body, fingerprints: [...fingerprints] },
    }),
  );
  return answer.data;
}

/** The project's team as the caller sees it: their role (may they change states?) and its members (who may be assigned). */
export async function loadTeam(team: number): Promise<{ role: string; members: Member[] }> {
  const answer = await call(api.GET('/api/v1/teams/{team}', { params: { path: { team } } }));
  return { role: answer.data.role, members: answer.members };
}
