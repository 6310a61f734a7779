/**
 * Issue 7 fuzzing: generated path parameters (random text, UUID-like ids of nothing and of another
 * team's objects, numbers, `%00`, `..%2f`, broken percent-encodings, ids past the router's length
 * limit), query strings (`page` with anything, repeated, as an array, huge), and paths no route
 * serves, with random methods. Besides the properties every answer is held to (harness.ts), an id
 * of another user's object is always a 404 (D15) and never acted on.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { anyBody, pathParameter, queryString, validV1Body } from './arbitraries.js';
import {
  bearer,
  campaign,
  FuzzServer,
  isParserAnswer,
  OPERATIONS,
  ownCredential,
  pathOf,
  runs,
  timeoutFor,
  type Credential,
  type Operation,
  type World,
} from './harness.js';

let fuzz: FuzzServer;
beforeAll(async () => {
  fuzz = await FuzzServer.start();
});
afterAll(async () => {
  if (process.env.FUZZ_RUNS) console.log(`paths and queries, answers by status:\n${fuzz?.summary()}`);
  await fuzz?.close();
});

/** The valid body of an operation, so that only the path or the query is wrong. */
function validBody(world: World, operation: Operation): string | undefined {
  if (operation.kind !== 'v1' || operation.body === undefined) return operation.method === 'GET' ? undefined : '{}';
  return JSON.stringify(validV1Body(world, operation.body));
}

function headersFor(world: World, who: Credential, body: string | undefined): [string, string][] {
  return [...bearer(world, who), ...(body === undefined ? [] : ([['Content-Type', 'application/json']] as [string, string][]))];
}

/** The ids a path parameter of `operation` may name: the owner's and another user's. */
function idsFor(world: World, operation: Operation): { own: string[]; foreign: string[] } {
  // E6: the last parameter is the one generated (harness pathOf), under the owner's project (and webhook).
  if (operation.template.includes('{delivery}')) return { own: [world.deliveryId], foreign: [world.foreignDeliveryId] };
  if (operation.template.includes('{connection}')) return { own: [world.connectionId], foreign: [world.foreignConnectionId] };
  if (operation.template.includes('{webhook}')) return { own: [world.webhookId], foreign: [world.foreignWebhookId] };
  if (operation.template.includes('{project}'))
    return { own: [world.projectId, world.archivedProjectId], foreign: [world.foreignProjectId] };
  if (operation.template.includes('{report}')) return { own: [world.reportUuid], foreign: [world.foreignReportUuid] };
  // A badge key is public to whoever has it (E2.3): there is no one else's key to be refused.
  if (operation.template.includes('{key}')) return { own: [world.badgeKey], foreign: [] };
  // E4: the last parameter is the one generated (harness pathOf); the team is the owner's shared one.
  if (operation.template.endsWith('{user}')) return { own: [String(world.memberUserId), String(world.owner.id)], foreign: [] };
  if (operation.template.startsWith('/api/v1/invitations/'))
    return { own: [String(world.ownInvitationId)], foreign: [String(world.teamInvitationId), String(world.foreignInvitationId)] };
  if (operation.template.endsWith('{id}'))
    return { own: [String(world.teamInvitationId)], foreign: [String(world.foreignInvitationId), String(world.ownInvitationId)] };
  if (operation.template.includes('{team}'))
    return { own: [String(world.teamId), String(world.personalTeamId)], foreign: [String(world.foreignTeamId)] };
  return { own: [String(world.victimTokenId), String(world.patId)], foreign: [String(world.foreignTokenId)] };
}

it('covers every operation of the OpenAPI document', () => {
  // A new route must be added to OPERATIONS, and so to every campaign below.
  expect(OPERATIONS.map((operation) => operation.name).sort()).toEqual(fuzz.documentedOperations());
});

describe('generated path parameters', () => {
  for (const operation of OPERATIONS.filter((o) => o.template.includes('{'))) {
    const count = runs();
    it(
      `${operation.name}`,
      async () => {
        const { world } = fuzz;
        const ids = idsFor(world, operation);
        const who = fc.oneof(
          { arbitrary: fc.constant<Credential>('pat'), weight: 6 },
          { arbitrary: fc.constantFrom<Credential>('readPat', 'none'), weight: 1 },
        );
        await campaign(count, fc.record({ param: pathParameter(ids), who }), async ({ param, who }) => {
          const body = validBody(world, operation);
          const response = await fuzz.exchange(
            { method: operation.method, target: pathOf(world, operation, param), headers: headersFor(world, who, body), body },
            { label: operation.name },
          );
          // D15: another user's object does not exist for the owner, whatever the method.
          if (who === 'pat' && ids.foreign.some((id) => id.toLowerCase() === param.toLowerCase())) expect(response.status).toBe(404);
        });
      },
      timeoutFor(count),
    );
  }
});

const LISTS = [
  'GET /api/v1/projects',
  'GET /api/v1/projects/{project}/reports',
  'GET /api/v1/projects/{project}/failures',
  'GET /api/v1/projects/{project}/webhooks/{webhook}/deliveries',
];

describe('generated query strings', () => {
  for (const operation of OPERATIONS) {
    const count = runs(0.5);
    it(
      `${operation.name}`,
      async () => {
        const { world } = fuzz;
        const who = fc.oneof(
          { arbitrary: fc.constant(ownCredential(operation)), weight: 6 },
          { arbitrary: fc.constant<Credential>('none'), weight: 1 },
        );
        await campaign(count, fc.record({ query: queryString, who }), async ({ query, who }) => {
          const body = operation.kind === 'client' && operation.method === 'POST' ? '{"results":[]}' : validBody(world, operation);
          const response = await fuzz.exchange(
            { method: operation.method, target: `${pathOf(world, operation)}?${query}`, headers: headersFor(world, who, body), body },
            { label: operation.name },
          );
          // D16: whatever the query, a list that answers answers one page of at most 20, numbered from 1.
          if (response.status === 200 && LISTS.includes(operation.name)) {
            const { data, meta } = JSON.parse(response.body) as { data: unknown[]; meta: { current_page: number; per_page: number } };
            expect(data.length).toBeLessThanOrEqual(20);
            expect(meta.per_page).toBe(20);
            // (Past 2^53 the page is not exact: `?page=9007199254740993` answers the empty page 9007199254740992.)
            expect(Number.isInteger(meta.current_page) && meta.current_page >= 1, `current_page ${meta.current_page}`).toBe(true);
          }
        });
      },
      timeoutFor(count),
    );
  }
});

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'TRACE', 'PROPFIND', 'LOCK', 'SEARCH', 'PURGE'];

/** Paths next to the real ones: other versions, case, slashes, dot segments, suffixes. */
const nearPaths = fc.constantFrom(
  '/',
  '//',
  '/api',
  '/api/',
  '/api/v1',
  '/api/v1/',
  '/api/v2/projects',
  '/API/V1/PROJECTS',
  '/api/V1/projects',
  '/api//v1/projects',
  '/api/v1//projects',
  '/api/v1/projects/',
  '/api/v1/projects/x/y/z',
  '/api/v1/projects/0190a8f4-7c1d-7a4b-9f2e-3c5d6e7f8a9b/nothing',
  '/api/v1/tokens.json',
  '/api/v1/tokens%00',
  '/api/v1/tokens%2F',
  '/api/v1/./tokens',
  '/api/v1/../v1/tokens',
  '/api/%2e%2e/api/v1/tokens',
  '/api/v1/%74okens',
  '/api/reports/',
  '/api/reports/failure/x',
  '/api/token',
  '/api/token/verify/',
  '/api/projects',
  '/api/v1/openapi.json/x',
  '/healthz/',
  '/healthz/x',
  '/readyz%20',
  '/metrics/x',
  '/.env',
  '/.git/config',
  '/admin',
  '/wp-login.php',
  '/docs/..%2f..%2fpackage.json',
  '/docs/static/../../package.json',
  '/%',
  '/%zz',
  '/😀',
  '/api/v1/projects?',
  '/api/v1/projects#frag',
);

const randomPath = fc
  .array(
    fc.oneof(
      fc.stringMatching(/^[a-z0-9._~-]{0,12}$/),
      fc.constantFrom('api', 'v1', 'projects', 'reports', 'tokens', '..', '.', '%2e%2e', '%00', '%2F'),
    ),
    {
      minLength: 1,
      maxLength: 6,
    },
  )
  .map((segments) => `/${segments.join('/')}`);

describe('paths no operation serves', () => {
  const count = runs(2);
  // The harness holds an unrouted path to 404/405 (or a transport error: 400, 413, 415, 429), and a
  // near path that the router does serve (`/api/v1/projects/`, `%74okens`) to its operation's statuses.
  it(
    'answer 404 or 405 (or a transport error) in the envelope, whatever the method, token and body',
    async () => {
      const { world } = fuzz;
      const request = fc.record({
        method: fc.constantFrom(...METHODS),
        path: fc.oneof(nearPaths, randomPath),
        who: fc.constantFrom<Credential>('pat', 'apiToken', 'none'),
        body: fc.option(anyBody, { nil: undefined }),
      });
      await campaign(count, request, async ({ method, path, who, body }) => {
        await fuzz.exchange({ method, target: path, headers: headersFor(world, who, body), body }, { label: 'unrouted paths' });
      });
    },
    timeoutFor(count),
  );

  it(
    'the operational probes answer 200 to GET whatever the query, token and body, and an error to other methods',
    async () => {
      const probes = OPERATIONS.filter((operation) => operation.kind === 'ops');
      const request = fc.record({
        operation: fc.constantFrom(...probes),
        method: fc.oneof({ arbitrary: fc.constantFrom('GET', 'HEAD'), weight: 3 }, { arbitrary: fc.constantFrom(...METHODS), weight: 1 }),
        query: fc.option(queryString, { nil: undefined }),
        who: fc.constantFrom<Credential>('pat', 'none'),
        body: fc.option(anyBody, { nil: undefined }),
      });
      await campaign(count, request, async ({ operation, method, query, who, body }) => {
        const target = query === undefined ? operation.template : `${operation.template}?${query}`;
        const response = await fuzz.exchange({ method, target, headers: headersFor(fuzz.world, who, body), body }, { label: 'probes' });
        if (isParserAnswer(response)) return; // a query Node's parser refuses (a raw NUL) never reaches the probe
        if (method === 'GET' || method === 'HEAD') expect(response.status).toBe(200);
        // Other methods: 405, or a body refused before that (the harness holds them to the unrouted statuses).
        else expect(response.status).toBeGreaterThanOrEqual(400);
      });
    },
    timeoutFor(count),
  );
});
