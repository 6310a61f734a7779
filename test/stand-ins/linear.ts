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
