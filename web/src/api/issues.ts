import type { TriageBody } from '../lib/issue-triage.js';
import { api, call } from './client.js';
import type { components } from './schema.js';

/**
 * E8's endpoints as the pages call them: an issue's state (PUT one, POST a selection), the
 * project's issue list, the caller's assigned issues and a report's suppressed issues. Their
 * shapes are the generated schema's (the service's own OpenAPI document).
 */
type Schemas = components['schemas'];
export type IssueState = Schemas['IssueState'];
export type TrackedIssue = Schemas['TrackedIssue'];
export type Member = Schemas['Member'];

type Issues = '/api/v1/projects/{project}/issues';
type Pages = { [P in keyof import('./schema.js').paths]: import('./schema.js').paths[P] };
type Answer<P extends keyof Pages, M extends 'get' | 'put' | 'post'> =
  Pages[P] extends Record<M, { responses: { 200: { content: { 'application/json': infer A } } } }> ? A : never;

export type ProjectIssuePage = Answer<Issues, 'get'>;
export type ProjectIssue = ProjectIssuePage['data'][number];
export type AssignedIssuePage = Answer<'/api/v1/user/issues', 'get'>;
export type AssignedIssue = AssignedIssuePage['data'][number];
export type SuppressedPage = Answer<'/api/v1/reports/{report}/suppressed', 'get'>;
export type SuppressedIssue = SuppressedPage['data'][number];

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
