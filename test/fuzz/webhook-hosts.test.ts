/**
 * Issue 29 fuzzing (D32): a webhook URL whose host is an IP literal in a refused range is a 422 on
 * `url` at creation, however the address is spelled: dotted, one number, hexadecimal, octal, two
 * or three parts, IPv4-mapped IPv6, with a port, credentials or a trailing dot. URL parsers accept
 * every one of these for the same address, so a check that knew only the dotted form would let the
 * others reach the delivery worker. Never a 201, never a 5xx, and nothing stored.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestContext, type TestUser } from '../helpers/test-app.js';
import { campaign, runs, timeoutFor } from './harness.js';

/** The refused IPv4 ranges (E6's policy), as [first address, prefix length]. */
const REFUSED: [number[], number][] = [
  [[127, 0, 0, 0], 8],
  [[10, 0, 0, 0], 8],
  [[172, 16, 0, 0], 12],
  [[192, 168, 0, 0], 16],
  [[169, 254, 0, 0], 16],
  [[100, 64, 0, 0], 10],
  [[0, 0, 0, 0], 8],
  [[224, 0, 0, 0], 4],
];

const asNumber = (octets: number[]) => octets.reduce((n, octet) => n * 256 + octet, 0);
const octetsOf = (n: number) => [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255];

/** An address in one of the refused ranges. */
const refusedAddress = fc
  .tuple(fc.constantFrom(...REFUSED), fc.nat({ max: 2 ** 32 - 1 }))
  .map(([[base, prefix], random]) => octetsOf(asNumber(base) + (random % 2 ** (32 - prefix))));

/** The spellings a URL parser reads as that address. */
const spellings: ((octets: number[]) => string)[] = [
  (o) => o.join('.'),
  (o) => String(asNumber(o)),
  (o) => `0x${asNumber(o).toString(16)}`,
  (o) => o.map((octet) => `0x${octet.toString(16)}`).join('.'),
  (o) => o.map((octet) => `0${octet.toString(8)}`).join('.'),
  (o) => `${o[0]}.${o[1]! * 65536 + o[2]! * 256 + o[3]!}`,
  (o) => `${o[0]}.${o[1]}.${o[2]! * 256 + o[3]!}`,
  (o) => `[::ffff:${o.join('.')}]`,
  (o) => `[0:0:0:0:0:ffff:${((o[0]! << 8) | o[1]!).toString(16)}:${((o[2]! << 8) | o[3]!).toString(16)}]`,
];

const refusedUrl = fc
  .record({
    address: refusedAddress,
    spelling: fc.nat({ max: spellings.length - 1 }),
    scheme: fc.constantFrom('http', 'https', 'HTTP'),
    credentials: fc.constantFrom('', 'user@', 'user:secret@'),
    trailingDot: fc.boolean(),
    port: fc.option(fc.integer({ min: 1, max: 65535 }), { nil: undefined }),
    path: fc.constantFrom('', '/', '/hook', '/a/b?c=d#e'),
  })
  .map(({ address, spelling, scheme, credentials, trailingDot, port, path }) => {
    const host = spellings[spelling]!(address);
    const dot = trailingDot && !host.startsWith('[') ? '.' : '';
    return `${scheme}://${credentials}${host}${dot}${port === undefined ? '' : `:${port}`}${path}`;
  });

const REFUSAL = /^The url must not point to an? [A-Za-z() -]+ address; set WEBHOOK_ALLOW_PRIVATE_NETWORKS=true to allow it\.$/;

describe('webhook URLs naming a refused address, in any spelling (D32)', () => {
  let ctx: TestContext;
  let owner: TestUser;
  let hooks: string;
  beforeAll(async () => {
    ctx = await buildTestApp();
    owner = await ctx.given.user({ plan: 'business' });
    hooks = `/api/v1/projects/${(await ctx.given.project(owner, { name: 'Shop' })).project.id}/webhooks`;
  });
  afterAll(async () => ctx?.close());

  const count = runs(0.5);
  it(
    'are a 422 on url at creation, never stored',
    async () => {
      await campaign(count, refusedUrl, async (url) => {
        const response = await ctx.request({ method: 'POST', url: hooks, token: owner.token, body: { url, events: ['ping'] } });
        expect(response.statusCode, `${url}: ${response.body}`).toBe(422);
        const body = response.json();
        // The URL may be refused for its credentials or its form before its host: any url error is a
        // refusal, but one about the host must say why and never the address.
        expect(Object.keys(body.errors)).toEqual(['url']);
        const [message] = body.errors.url as string[];
        if (message!.includes('WEBHOOK_ALLOW_PRIVATE_NETWORKS')) expect(message).toMatch(REFUSAL);
      });
      expect(await ctx.db.selectFrom('webhooks').select('id').execute()).toEqual([]);
    },
    timeoutFor(count),
  );
});
