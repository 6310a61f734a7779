/**
 * Issue 7 fuzzing: generated headers on every operation, around a request that is otherwise valid
 * (its own token, a valid body), so that a header is the only thing wrong: Authorization variants
 * (none, empty, `Bearer` alone, other schemes, near-valid and huge tokens, two of them),
 * Content-Type and Content-Encoding variants (lying about gzip, unsupported codings), chunked
 * bodies, a Content-Length shorter than the body, X-Forwarded-For and Accept junk, and headers HTTP
 * allows but the service never expects. Every answer is checked by FuzzServer.exchange.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  accept,
  authorizationVariants,
  contentEncoding,
  contentType,
  encodeBody,
  extraHeader,
  forwardedFor,
  validV1Body,
  type Encoding,
} from './arbitraries.js';
import { campaign, FuzzServer, OPERATIONS, pathOf, runs, timeoutFor, type Operation, type World } from './harness.js';

let fuzz: FuzzServer;
beforeAll(async () => {
  fuzz = await FuzzServer.start();
});
afterAll(async () => {
  if (process.env.FUZZ_RUNS) console.log(`headers, answers by status:\n${fuzz?.summary()}`);
  await fuzz?.close();
});

/** The body an operation accepts (a minimal report for uploads), or none for a GET. */
function validBody(world: World, operation: Operation): string | undefined {
  switch (operation.body) {
    case undefined:
      return operation.method === 'GET' ? undefined : '{}';
    case 'report':
      return JSON.stringify({
        project_id: world.projectId,
        results: [{ analyzer_id: 'csrf-protection', status: 'passed', message: '', issues: [] }],
      });
    case 'failure':
      return JSON.stringify({ project_id: world.projectId, failure_reason: 'no_analyzers_ran' });
    default:
      return JSON.stringify(validV1Body(world, operation.body));
  }
}

/** The operation's own token first, the other kind second (a token for the wrong API). */
function tokens(world: World, operation: Operation): [string, string] {
  return operation.kind === 'client' ? [world.apiToken, world.pat] : [world.pat, world.apiToken];
}

/** `anonymous`: no Authorization header at all, so only the other headers could let a request in. */
const headerSet = (world: World, operation: Operation, { anonymous = false } = {}) =>
  fc.record({
    authorization: anonymous ? fc.constant(undefined) : authorizationVariants(...tokens(world, operation)),
    // Sometimes (one in eight) a second Authorization header: Node keeps the first, a proxy might keep the last.
    secondAuthorization: anonymous
      ? fc.constant(undefined)
      : fc.oneof(
          { arbitrary: fc.constant(undefined), weight: 7 },
          { arbitrary: authorizationVariants(...tokens(world, operation)), weight: 1 },
        ),
    type: fc.oneof({ arbitrary: fc.constant('application/json'), weight: 2 }, { arbitrary: contentType, weight: 3 }),
    encoding: fc.oneof({ arbitrary: fc.constant<Encoding>({ encode: 'none' }), weight: 2 }, { arbitrary: contentEncoding, weight: 2 }),
    forwarded: fc.option(forwardedFor, { nil: undefined }),
    accept: fc.option(accept, { nil: undefined }),
    extra: fc.array(extraHeader, { maxLength: 3 }),
    framing: fc.oneof(
      { arbitrary: fc.constant<'length' | 'chunked' | 'short'>('length'), weight: 8 },
      { arbitrary: fc.constantFrom<'length' | 'chunked' | 'short'>('chunked', 'short'), weight: 1 },
    ),
  });

type HeaderSet = typeof headerSet extends (...args: never[]) => fc.Arbitrary<infer T> ? T : never;

/** Sends the operation's valid request with the generated headers, through the harness's checks. */
function send(world: World, operation: Operation, h: HeaderSet) {
  const text = validBody(world, operation);
  const headers: [string, string][] = [];
  if (h.authorization !== undefined) headers.push(['Authorization', h.authorization]);
  if (h.secondAuthorization !== undefined) headers.push(['Authorization', h.secondAuthorization]);
  if (h.forwarded !== undefined) headers.push(['X-Forwarded-For', h.forwarded]);
  if (h.accept !== undefined) headers.push(['Accept', h.accept]);
  headers.push(...h.extra);
  let body: Buffer | undefined;
  if (text !== undefined) {
    if (h.type !== undefined) headers.push(['Content-Type', h.type]);
    if (h.encoding.header !== undefined) headers.push(['Content-Encoding', h.encoding.header]);
    body = encodeBody(text, h.encoding);
  }
  return fuzz.exchange(
    {
      method: operation.method,
      target: pathOf(world, operation),
      headers,
      body,
      chunked: h.framing === 'chunked',
      // Shorter than the body: the rest reads as a second request on a connection that closes.
      ...(h.framing === 'short' && body !== undefined && { contentLength: Math.floor(body.length / 2) }),
    },
    { label: operation.name },
  );
}

describe('generated headers on every operation: no 5xx, documented statuses, D3 envelope, nothing stored when refused', () => {
  for (const operation of OPERATIONS) {
    const count = runs();
    it(
      `${operation.name}`,
      async () => {
        const { world } = fuzz;
        await campaign(count, headerSet(world, operation), async (h) => {
          await send(world, operation, h);
        });
      },
      timeoutFor(count),
    );
  }
});

describe('generated headers without any token: no other header authenticates a request', () => {
  // The probes, the public badges (E2.3), the unsubscribe links (E11.3) and the dashboard's sign-in (E7) need no token to begin with.
  const needNoToken = (candidate: Operation) =>
    candidate.kind === 'ops' || candidate.kind === 'badge' || candidate.kind === 'link' || candidate.name === 'POST /api/v1/session';
  for (const operation of OPERATIONS.filter((candidate) => !needNoToken(candidate))) {
    const count = runs();
    it(
      `${operation.name}`,
      async () => {
        const { world } = fuzz;
        await campaign(count, headerSet(world, operation, { anonymous: true }), async (h) => {
          const response = await send(world, operation, h);
          // X-Forwarded-*, Forwarded, Cookie, method overrides, ... : never a success, never past the 401.
          expect([400, 401, 404, 405, 413, 415, 431]).toContain(response.status);
        });
      },
      timeoutFor(count),
    );
  }
});
