import type { StandIn, StandInRequest } from './stand-in-server.js';

/**
 * Linear's GraphQL API (linear.app/developers/graphql): one endpoint, `POST /graphql`, JSON
 * `{query, variables}`; a personal API key goes in `Authorization` as it is, with no scheme (OAuth
 * tokens take `Bearer`). An unauthenticated request is answered 400 with a GraphQL error of code
 * AUTHENTICATION_ERROR. Routes live under https://api.linear.app.
 */
export interface LinearAccount {
  api_key: string;
  name: string;
}

export const LINEAR_NOT_AUTHENTICATED = {
  errors: [
    {
      message: 'Authentication required, not authenticated',
      extensions: {
        type: 'authentication error',
        code: 'AUTHENTICATION_ERROR',
        userPresentableMessage: 'You need to authenticate to access this operation.',
      },
    },
  ],
};

export function linearRefusal(account: LinearAccount, request: StandInRequest) {
  if (request.headers['content-type']?.split(';')[0] !== 'application/json') {
    return { status: 400, body: { errors: [{ message: 'Must provide query string.' }] } };
  }
  return request.headers.authorization === account.api_key ? null : { status: 400, body: LINEAR_NOT_AUTHENTICATED };
}

/** GraphQL operations by a test of the query text; the first that matches answers. */
export type LinearOperation = (query: string, variables: Record<string, unknown>) => { status: number; body: unknown } | null;

/** Adds Linear's endpoint with its `viewer` query; returns the connection's base_url. `operations` answers other queries. */
export function addLinear(standIn: StandIn, account: LinearAccount, operations: LinearOperation[] = []): string {
  standIn.route('POST', '/graphql', (request) => {
    const refusal = linearRefusal(account, request);
    if (refusal) return refusal;
    const { query, variables } = (request.json ?? {}) as { query?: string; variables?: Record<string, unknown> };
    if (typeof query !== 'string') return { status: 400, body: { errors: [{ message: 'Must provide query string.' }] } };
    for (const operation of operations) {
      const answer = operation(query, variables ?? {});
      if (answer) return answer;
    }
    if (/\bviewer\b/.test(query))
      return { status: 200, body: { data: { viewer: { id: 'a1b2c3d4-0000-4000-8000-000000000001', name: account.name } } } };
    return { status: 400, body: { errors: [{ message: 'Unknown query in the stand-in' }] } };
  });
  return standIn.url;
}

/** An issue as the stand-in keeps it. */
export interface LinearIssue {
  id: string;
  identifier: string;
  comments: string[];
}

/**
 * Linear's issue operations (the GraphQL schema's Mutation type): `teams(filter: {key: {eq}})`;
 * `issueCreate(input: IssueCreateInput!)` → IssuePayload {success, issue {id, identifier, url}};
 * `commentCreate(input: CommentCreateInput!)` with {issueId, body} → CommentPayload {success,
 * comment}; an unknown issue id is a GraphQL error "Entity not found" (answered 200 with errors,
 * as GraphQL servers do). Returns the operations for addLinear, and the issues by id.
 */
export function linearIssues(teamKey: string): { operations: LinearOperation[]; issues: Map<string, LinearIssue> } {
  const issues = new Map<string, LinearIssue>();
  let next = 6;
  const operations: LinearOperation[] = [
    (query, variables) =>
      /\bteams\b/.test(query)
        ? {
            status: 200,
            body: {
              data: { teams: { nodes: variables.key === teamKey ? [{ id: 'team-uuid-1', key: teamKey, name: 'Engineering' }] : [] } },
            },
          }
        : null,
    (query) => {
      if (!/\bissueCreate\b/.test(query)) return null;
      next += 1;
      const issue = { id: `issue-uuid-${next}`, identifier: `${teamKey}-${next}`, comments: [] };
      issues.set(issue.id, issue);
      const url = `https://linear.app/acme/issue/${issue.identifier}/x`;
      return {
        status: 200,
        body: { data: { issueCreate: { success: true, issue: { id: issue.id, identifier: issue.identifier, url } } } },
      };
    },
    (query, variables) => {
      if (!/\bcommentCreate\b/.test(query)) return null;
      const input = (variables.input ?? {}) as { issueId?: unknown; body?: unknown };
      const issue = issues.get(String(input.issueId));
      if (!issue)
        return { status: 200, body: { data: null, errors: [{ message: 'Entity not found', extensions: { code: 'INVALID_INPUT' } }] } };
      if (typeof input.body !== 'string') return { status: 400, body: { errors: [{ message: 'Variable "$input" got invalid value' }] } };
      issue.comments.push(input.body);
      return { status: 200, body: { data: { commentCreate: { success: true, comment: { id: `comment-${issue.comments.length}` } } } } };
    },
  ];
  return { operations, issues };
}
