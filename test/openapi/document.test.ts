import { Validator } from '@seriousme/openapi-schema-validator';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  CODE_HOST_ENDPOINTS,
  CONNECTION_ENDPOINTS,
  ENDPOINTS,
  ISSUE_ENDPOINTS,
  TEAM_ENDPOINTS,
  TICKET_ENDPOINTS,
  WEBHOOK_ENDPOINTS,
} from '../helpers/endpoints.js';
import { buildTestApp, type TestContext } from '../helpers/test-app.js';

/** The client package's endpoints (CLIENT-WIRE.md), as method and OpenAPI path. */
const CLIENT_OPERATIONS = [
  ['post', '/api/reports'],
  ['post', '/api/v1/reports'],
  ['post', '/api/reports/failure'],
  ['get', '/api/token/verify'],
  ['get', '/api/project'],
] as const;

/**
 * Every /api/v1 operation: api-v1 and E1-E3 (ENDPOINTS), E4's teams and E5's audit lists
 * (TEAM_ENDPOINTS), E6's webhooks (WEBHOOK_ENDPOINTS: 9 operations), E8's changes of issue states
 * (ISSUE_ENDPOINTS: 2 operations), E9.4's tickets (TICKET_ENDPOINTS: 2 operations).
 */
const V1_OPERATIONS = [
  ...ENDPOINTS,
  ...TEAM_ENDPOINTS,
  ...WEBHOOK_ENDPOINTS,
  ...ISSUE_ENDPOINTS,
  ...TICKET_ENDPOINTS,
  ...CONNECTION_ENDPOINTS,
  ...CODE_HOST_ENDPOINTS,
].map((e) => [e.method.toLowerCase(), `/api/v1${e.path.replace(/:([a-z]+)/g, '{$1}')}`] as const);

/** E7: the dashboard's sign-in (email and password) and its session's own operations (the cookie only). */
const SESSION_OPERATIONS = [
  ['post', '/api/v1/session'],
  ['get', '/api/v1/session'],
  ['delete', '/api/v1/session'],
] as const;

/** The public badges (E2.3): no token, the badge key in the path. */
const BADGE_OPERATIONS = [
  ['get', '/badges/{key}/score.svg'],
  ['get', '/badges/{key}/gate.svg'],
  ['get', '/badges/{key}/score.json'],
] as const;

/** E11.3: an email's one-click unsubscribe link, no token: the signed token in the path is the credential. */
const UNSUBSCRIBE_OPERATIONS = [
  ['get', '/notifications/unsubscribe/{token}'],
  ['post', '/notifications/unsubscribe/{token}'],
] as const;

type Operation = {
  tags: string[];
  summary: string;
  security: Record<string, string[]>[];
  parameters?: { in: string; name: string; schema: { type: string; format?: string } }[];
  responses: Record<string, { headers?: Record<string, { required?: boolean }>; content?: Record<string, { schema: any }> }>;
};

// Issue 5: GET /api/v1/openapi.json, generated from the route schemas.
describe('GET /api/v1/openapi.json', () => {
  let ctx: TestContext;
  let document: { openapi: string; paths: Record<string, Record<string, Operation>>; components: any };
  beforeEach(async () => {
    ctx = await buildTestApp();
    const response = await ctx.request({ method: 'GET', url: '/api/v1/openapi.json' });
    expect(response.statusCode).toBe(200);
    document = response.json();
  });
  afterEach(async () => ctx.close());

  const operation = (method: string, path: string): Operation => {
    const found = document.paths[path]?.[method];
    if (!found) throw new Error(`${method.toUpperCase()} ${path} is not in the document`);
    return found;
  };

  it('is a valid OpenAPI 3.1 document', async () => {
    expect(document.openapi).toBe('3.1.0');
    const result = await new Validator().validate(structuredClone(document));
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it('needs no token and is not rate limited', async () => {
    for (let i = 0; i < 15; i++) {
      const response = await ctx.request({ method: 'GET', url: '/api/v1/openapi.json', remoteAddress: '203.0.113.5' });
      expect(response.statusCode).toBe(200);
      expect(response.headers['content-type']).toMatch(/^application\/json/);
      expect(response.headers['x-ratelimit-limit']).toBeUndefined();
    }
  });

  it('covers every /api/v1 endpoint, every client-package endpoint and the public badges, and nothing hidden', () => {
    for (const [method, path] of [
      ...V1_OPERATIONS,
      ...CLIENT_OPERATIONS,
      ...BADGE_OPERATIONS,
      ...SESSION_OPERATIONS,
      ...UNSUBSCRIBE_OPERATIONS,
    ])
      operation(method, path);
    const documented = Object.entries(document.paths).flatMap(([path, operations]) => Object.keys(operations).map((m) => `${m} ${path}`));
    expect(documented.sort()).toEqual(
      [
        ...V1_OPERATIONS,
        ...CLIENT_OPERATIONS,
        ...BADGE_OPERATIONS,
        ...SESSION_OPERATIONS,
        ...UNSUBSCRIBE_OPERATIONS,
        ['get', '/healthz'],
        ['get', '/readyz'],
      ]
        .map(([m, p]) => `${m} ${p}`)
        .sort(),
    );
  });

  it('documents the public badges: no token, their media types, caching headers, 304, 404 and the per-key 429 (E2.3)', () => {
    for (const [method, path] of BADGE_OPERATIONS) {
      const { security, tags, responses } = operation(method, path);
      expect(security).toBeUndefined();
      expect(tags).toEqual(['badges']);
      expect(Object.keys(responses).sort()).toEqual(['200', '304', '400', '404', '429', '500', '503']);
      expect(Object.keys(responses['200']!.content!)).toEqual([path.endsWith('.json') ? 'application/json' : 'image/svg+xml']);
      for (const status of ['200', '304']) {
        expect(responses[status]!.headers?.ETag?.required, `${path} ${status}`).toBe(true);
        expect(responses[status]!.headers?.['Cache-Control']?.required, `${path} ${status}`).toBe(true);
        expect(responses[status]!.headers?.['X-RateLimit-Limit']?.required, `${path} ${status}`).toBe(true);
      }
      expect(responses['304']!.content).toBeUndefined();
      expect(responses['429']!.headers).toHaveProperty('Retry-After');
    }
  });

  it('secures /api/v1 with personal access tokens or the dashboard session, and /api with project tokens', () => {
    const schemes = document.components.securitySchemes;
    expect(schemes.personalAccessToken).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(schemes.projectToken).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(schemes.sessionCookie).toMatchObject({ type: 'apiKey', in: 'cookie', name: 'scoreboard_session' });
    for (const [method, path] of V1_OPERATIONS) {
      expect(operation(method, path).security).toEqual([{ personalAccessToken: [] }, { sessionCookie: [] }]);
    }
    expect(operation('post', '/api/v1/session').security).toEqual([]);
    expect(operation('get', '/api/v1/session').security).toEqual([{ sessionCookie: [] }]);
    expect(operation('delete', '/api/v1/session').responses['403']).toBeDefined();
    for (const [method, path] of CLIENT_OPERATIONS) expect(operation(method, path).security).toEqual([{ projectToken: [] }]);
    expect(operation('get', '/healthz').security).toBeUndefined();
  });

  it('documents 401 and 429 (with retry_after and Retry-After) and the rate-limit headers on every endpoint', () => {
    for (const [method, path] of [...V1_OPERATIONS, ...CLIENT_OPERATIONS]) {
      const { responses } = operation(method, path);
      expect(responses['401'], `${method} ${path}`).toBeDefined();
      const tooMany = responses['429']!;
      expect(tooMany.content!['application/json']!.schema.required).toContain('retry_after');
      expect(tooMany.headers).toHaveProperty('Retry-After');
      for (const [status, response] of Object.entries(responses)) {
        if (status.startsWith('5')) continue;
        expect(response.headers?.['X-RateLimit-Limit']?.required, `${method} ${path} ${status}`).toBe(true);
        expect(response.headers?.['X-RateLimit-Remaining']?.required, `${method} ${path} ${status}`).toBe(true);
      }
    }
  });

  it('documents the D3 envelope, with the 422 errors map, and `success` on the client-package answers', () => {
    const v1 = operation('put', '/api/v1/projects/{project}').responses;
    expect(Object.keys(v1).sort()).toEqual(['200', '400', '401', '403', '404', '413', '415', '422', '429', '500', '503']);
    const invalid = v1['422']!.content!['application/json']!.schema;
    expect(invalid.required).toEqual(['error', 'message', 'errors']);
    expect(invalid.properties.errors.additionalProperties).toMatchObject({ type: 'array', items: { type: 'string' } });
    // Examples are the real bodies (D3's fixed messages).
    expect((v1['404']!.content!['application/json'] as any).example).toEqual({
      error: 'Not Found',
      message: 'The requested resource was not found.',
    });

    const upload = operation('post', '/api/reports').responses;
    expect(Object.keys(upload).sort()).toEqual(['201', '400', '401', '409', '413', '415', '422', '429', '500', '503']);
    expect(upload['409']!.content!['application/json']!.schema.required).toEqual(['success', 'error', 'message']);
    expect(operation('get', '/api/token/verify').responses['401']!.content!['application/json']!.schema.required).toContain('valid');
    // Each route's 413 names its own limit: 1 MiB on /api/v1 (D5), 10 MiB for uploads (CLIENT-WIRE.md).
    const tooLarge = (responses: Operation['responses']) => (responses['413']!.content!['application/json'] as any).example.message;
    expect(tooLarge(v1)).toBe('The request body may not be larger than 1 MiB.');
    expect(tooLarge(upload)).toBe('The request body may not be larger than 10 MiB.');
  });

  it('types path and query parameters (UUID, integer) and tags operations by resource', () => {
    const param = (method: string, path: string, name: string) => operation(method, path).parameters!.find((p) => p.name === name)!;
    expect(param('get', '/api/v1/projects/{project}', 'project').schema).toMatchObject({ type: 'string', format: 'uuid' });
    expect(param('get', '/api/v1/reports/{report}', 'report').schema).toMatchObject({ type: 'string', format: 'uuid' });
    expect(param('delete', '/api/v1/tokens/{token}', 'token').schema).toMatchObject({ type: 'integer', minimum: 1 });
    expect(param('get', '/api/v1/projects', 'page')).toMatchObject({ in: 'query', schema: { type: 'integer', minimum: 1 } });
    // E6: the webhook routes' ids are UUIDs like the project's, their delivery list is paged like the others.
    const redeliver = '/api/v1/projects/{project}/webhooks/{webhook}/deliveries/{delivery}/redeliver';
    for (const name of ['project', 'webhook', 'delivery'])
      expect(param('post', redeliver, name).schema, name).toMatchObject({ type: 'string', format: 'uuid' });
    expect(param('get', '/api/v1/projects/{project}/webhooks/{webhook}/deliveries', 'page')).toMatchObject({
      in: 'query',
      schema: { type: 'integer', minimum: 1 },
    });
    expect(operation('get', '/api/v1/projects').tags).toEqual(['projects']);
    expect(operation('get', '/api/v1/reports/{report}').tags).toEqual(['reports']);
    expect(operation('get', '/api/v1/tokens').tags).toEqual(['tokens']);
    expect(operation('get', '/api/v1/projects/{project}/webhooks').tags).toEqual(['webhooks']);
    expect(operation('post', '/api/reports').tags).toEqual(['client package']);
    // E8: the issue routes; a fingerprint is 32 lowercase hexadecimal characters.
    const put = '/api/v1/projects/{project}/issues/{fingerprint}';
    expect(param('put', put, 'fingerprint').schema).toMatchObject({ type: 'string', pattern: '^[0-9a-f]{32}$' });
    for (const [method, path] of [
      ['put', put],
      ['post', '/api/v1/projects/{project}/issues/bulk'],
      ['get', '/api/v1/user/issues'],
    ] as const)
      expect(operation(method, path).tags).toEqual(['issues']);
  });
});
