/**
 * Issue 7 fuzzing: generated JSON bodies on every /api/v1 operation, sent over a socket. The three
 * operations that read a body get a valid body with one to three mutations (wrong types, huge, empty
 * and unicode strings, edge numbers, nulls, deep nesting, duplicate and prototype-pollution keys,
 * arrays for objects and back), so the input reaches validation and the handler; the others get any
 * body at all. Every answer is checked by FuzzServer.exchange (see harness.ts for the properties).
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { anyBody, bodyFrom, contentType, nearLimit, validV1Body } from './arbitraries.js';
import { bearer, campaign, FuzzServer, OPERATIONS, pathOf, runs, timeoutFor, type Credential, type Operation } from './harness.js';

let fuzz: FuzzServer;
beforeAll(async () => {
  fuzz = await FuzzServer.start();
});
afterAll(async () => {
  if (process.env.FUZZ_RUNS) console.log(`v1 bodies, answers by status:\n${fuzz?.summary()}`);
  await fuzz?.close();
});

/** Mostly the owner's full token, so bodies get past D4's 401/403 to validation. */
const credential: fc.Arbitrary<Credential> = fc.oneof(
  { arbitrary: fc.constant<Credential>('pat'), weight: 8 },
  { arbitrary: fc.constantFrom<Credential>('readPat', 'none', 'apiToken'), weight: 1 },
);

const v1 = OPERATIONS.filter((operation) => operation.kind === 'v1');

function send(operation: Operation, body: string | Buffer, type: string | undefined, who: Credential) {
  const headers: [string, string][] = bearer(fuzz.world, who);
  if (type !== undefined) headers.push(['Content-Type', type]);
  return fuzz.exchange({ method: operation.method, target: pathOf(fuzz.world, operation), headers, body }, { label: operation.name });
}

describe('generated bodies on /api/v1: no 5xx, documented statuses, D3 envelope, nothing stored when refused', () => {
  for (const operation of v1) {
    const count = runs();
    const kind = operation.body ? 'mutations of a valid body' : 'any body';
    it(
      `${operation.name} (${kind})`,
      async () => {
        const body = operation.body ? bodyFrom(validV1Body(fuzz.world, operation.body)) : anyBody;
        await campaign(count, fc.record({ body, type: contentType, who: credential }), async ({ body, type, who }) => {
          await send(operation, body, type, who);
        });
      },
      timeoutFor(count),
    );
  }
});

describe('bodies around the 1 MiB limit of /api/v1 (D5)', () => {
  // Sign-out takes a session, not the token the campaign sends: D4 answers its 401 before any 413.
  const bodyOperations = v1.filter((operation) => operation.method !== 'GET' && operation.name !== 'DELETE /api/v1/session');
  const count = runs(0.2);
  it(
    'answer 413 over the limit, and never a 5xx around it',
    async () => {
      await campaign(
        count,
        fc.record({ operation: fc.constantFrom(...bodyOperations), body: nearLimit(1024 * 1024) }),
        async ({ operation, body }) => {
          const response = await send(operation, body, 'application/json', 'pat');
          // Over the limit 413; at or under it the body is read (and judged on what it says).
          if (Buffer.byteLength(body) > 1024 * 1024) expect(response.status).toBe(413);
          else expect(response.status).not.toBe(413);
        },
      );
    },
    timeoutFor(count * 10),
  );
});
