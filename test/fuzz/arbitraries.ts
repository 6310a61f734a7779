/**
 * Generators of hostile input for the fuzz campaign: JSON bodies (as raw text, so that duplicate
 * keys, escaped lone surrogates, `__proto__` keys and number literals beyond a double survive to the
 * wire), strings, numbers, path parameters, query strings and header values.
 */
import { crc32, deflateSync, gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { POLLUTION_MARKERS, type BodyKind, type World } from './harness.js';

// ---------------------------------------------------------------------------------------------
// A JSON model that can say what JSON.stringify cannot

/** Raw JSON text, written as is: `1e-400`, `-0`, `"\ud800"`, or something invalid on purpose. */
export class Raw {
  constructor(readonly text: string) {}
}

/** An object as an ordered list of entries: keys may repeat, and `__proto__` is just a key. */
class Obj {
  constructor(readonly entries: [string | Raw, Json][]) {}
}

type Json = null | boolean | number | string | Raw | Obj | Json[];

function serialize(value: Json): string {
  if (value instanceof Raw) return value.text;
  if (value instanceof Obj) {
    return `{${value.entries.map(([key, item]) => `${key instanceof Raw ? key.text : JSON.stringify(key)}:${serialize(item)}`).join(',')}}`;
  }
  if (Array.isArray(value)) return `[${value.map(serialize).join(',')}]`;
  // Lone surrogates come out escaped (well-formed JSON.stringify); NaN and Infinity as null.
  return JSON.stringify(value);
}

/** A parsed JSON value as the model (to mutate a valid body). */
function fromPlain(value: unknown): Json {
  if (Array.isArray(value)) return value.map(fromPlain);
  if (value !== null && typeof value === 'object') return new Obj(Object.entries(value).map(([k, v]) => [k, fromPlain(v)]));
  return value as Json;
}

type Step = string | number;

/** Every position in `value` (the root included), as key paths. */
function positions(value: Json, path: Step[] = [], out: Step[][] = []): Step[][] {
  out.push(path);
  if (value instanceof Obj) {
    for (const [key, item] of value.entries) if (typeof key === 'string') positions(item, [...path, key], out);
  } else if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) positions(item, [...path, i], out);
  }
  return out;
}

/** `value` with the node at `path` replaced by `replace(node)` (undefined removes it). */
export function update(value: Json, path: Step[], replace: (node: Json) => Json | undefined): Json {
  if (path.length === 0) return replace(value) ?? null;
  const [step, ...rest] = path;
  if (value instanceof Obj) {
    const entries: [string | Raw, Json][] = [];
    for (const [key, item] of value.entries) {
      if (key !== step) entries.push([key, item]);
      else {
        const next = rest.length === 0 ? replace(item) : update(item, rest, replace);
        if (next !== undefined) entries.push([key, next]);
      }
    }
    return new Obj(entries);
  }
  if (Array.isArray(value)) {
    const items: Json[] = [];
    value.forEach((item, i) => {
      if (i !== step) items.push(item);
      else {
        const next = rest.length === 0 ? replace(item) : update(item, rest, replace);
        if (next !== undefined) items.push(next);
      }
    });
    return items;
  }
  return value;
}

// ---------------------------------------------------------------------------------------------
// Scalars

/** Strings that have broken services before, and the lengths around this service's limits. */
const NASTY_STRINGS = [
  '',
  ' ',
  '   ',
  '\t\n\r',
  '\u0000',
  'a\u0000b',
  '\u202eevil\u202c', // right-to-left override
  'שלום עולם', // RTL script
  '👍🏽👨‍👩‍👧‍👦',
  '𝕏𝕐',
  'e\u0301', // combining accent
  '\ufeffbom',
  '\u2028\u2029',
  '<script>alert(1)</script>',
  "' OR '1'='1' --",
  'Robert"); DROP TABLE projects;--',
  '../../../../etc/passwd',
  '..\\..\\windows\\win.ini',
  '%00',
  '%s%s%n',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a log-injection payload, sent as written
  '${jndi:ldap://x/a}',
  '{{7*7}}',
  '\r\nSet-Cookie: a=b',
  'null',
  'undefined',
  'NaN',
  'Infinity',
  '-0',
  '1e308',
  'true',
  '__proto__',
  'constructor',
  'prototype',
  'service_',
  'https://',
  'http://x',
  'javascript:alert(1)',
  'file:///etc/passwd',
  'https://github.com/acme/shop',
  'HTTP://EXAMPLE.COM/A B',
  '11',
  '13',
  '8',
  'read',
  'admin',
  'never',
  'critical',
  'jira',
  'internal',
  'unknown',
  'passed',
  'failed',
  'info',
  'uncaught_exception',
];

/** Date-times: valid ones, impossible ones, leap seconds, extreme years and offsets. */
const dateText: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    '2026-11-21T05:09:22+00:00',
    '2026-11-21',
    '2031-01-01',
    '2026-02-30',
    '2026-02-29T00:00:00Z',
    '2028-02-29T00:00:00Z',
    '2026-13-01T00:00:00Z',
    '2026-11-21T24:00:00Z',
    '2026-06-30T23:59:60Z',
    '2016-12-31T23:59:60Z',
    '1998-12-31T23:59:60+00:00',
    '9999-12-31T23:59:60Z',
    '9999-12-31T23:59:59-23:59',
    '0000-01-01T00:00:00+23:59',
    '0000-01-01T00:00:00Z',
    '0001-01-01',
    '1969-12-31T23:59:59.999999999Z',
    '+275760-09-13T00:00:00Z',
    '-000001-01-01T00:00:00Z',
    '2026-11-21t05:09:22z',
    '2026-11-21 05:09:22Z',
    '2026-11-21T05:09:22',
    '2026-11-21T05:09:22+2400',
    '2026-11-21T05:09:22+99:99',
    '20261121T050922Z',
    '2026-W47-6',
    'yesterday',
    '1732165762',
  ),
  fc
    .record({
      y: fc.integer({ min: 0, max: 9999 }),
      mo: fc.integer({ min: 0, max: 13 }),
      d: fc.integer({ min: 0, max: 32 }),
      h: fc.integer({ min: 0, max: 25 }),
      mi: fc.integer({ min: 0, max: 61 }),
      s: fc.integer({ min: 0, max: 61 }),
      offset: fc.constantFrom('Z', 'z', '+00:00', '-23:59', '+23:59', '+14:00', '-12:00', '+05:30', ''),
    })
    .map(({ y, mo, d, h, mi, s, offset }) => {
      const p = (n: number, w = 2) => String(n).padStart(w, '0');
      return `${p(y, 4)}-${p(mo)}-${p(d)}T${p(h)}:${p(mi)}:${p(s)}${offset}`;
    }),
);

/** Strings at and just past a limit, in one- and two-unit characters. */
const atLimits = fc
  .tuple(
    fc.constantFrom(0, 1, 40, 50, 100, 101, 255, 256, 500, 501, 1000, 1001, 4096, 4097),
    fc.constantFrom(-1, 0, 1),
    fc.constantFrom('x', 'é', '😀', ' '),
  )
  .map(([limit, delta, ch]) => ch.repeat(Math.max(0, limit + delta)));

/** A big string, up to ~100 KB (the 1 MiB bodies are generated separately). */
const bigString = fc
  .tuple(fc.constantFrom('a', 'é', '😀', '\u0000', ' ', '\\', '"', '<'), fc.integer({ min: 1_000, max: 100_000 }))
  .map(([ch, n]) => ch.repeat(Math.ceil(n / ch.length)));

const weirdString: fc.Arbitrary<string> = fc.oneof(
  { arbitrary: fc.constantFrom(...NASTY_STRINGS), weight: 6 },
  { arbitrary: fc.string({ unit: 'grapheme', maxLength: 80 }), weight: 3 },
  { arbitrary: fc.string({ unit: 'binary', maxLength: 80 }), weight: 2 },
  {
    arbitrary: fc.string({
      unit: fc.constantFrom('\u0000', '\u0001', '\u001f', '\u007f', '\u0085', '\u00a0', '\u200b', '\ud800', '\udfff', '\uffff'),
      maxLength: 8,
    }),
    weight: 1,
  },
  { arbitrary: dateText, weight: 2 },
  { arbitrary: atLimits, weight: 2 },
  { arbitrary: bigString, weight: 1 },
);

/**
 * String literals only raw JSON can hold: escaped lone surrogates and NUL, and a few that are
 * not JSON at all (a raw control character, an unknown escape).
 */
const rawStrings = fc.constantFrom(
  '"\\ud800"',
  '"\\udfff"',
  '"a\\ud800b"',
  '"\\udbff\\udfff"',
  '"\\u0000"',
  '"x\\u0000y"',
  '"\\u202e"',
  '"\\/\\b\\f\\n\\r\\t"',
  '"\t"', // a raw tab inside a string: not JSON
  '"\\x41"', // not a JSON escape
  '"\\u12"',
  "'single'",
);

/** Number literals at the edges of doubles, integers and the databases' integer types. */
const NUMBER_LITERALS = [
  '0',
  '-0',
  '1',
  '-1',
  '0.5',
  '1.0',
  '1E2',
  '1e2',
  '100',
  '101',
  '255',
  '2147483647',
  '2147483648',
  '-2147483649',
  '4294967296',
  '9007199254740991',
  '9007199254740993',
  '-9223372036854775808',
  '9223372036854775808',
  '18446744073709551616',
  '123456789012345678901234567890',
  '1e308',
  '-1e308',
  '1.7976931348623157e308',
  '1e309', // parses to Infinity
  '-1e309',
  '5e-324',
  '1e-400', // parses to 0
  '0.1e1',
];
/** Not JSON numbers: a parser that accepts them is lenient. */
const INVALID_NUMBER_LITERALS = ['NaN', 'Infinity', '-Infinity', '+1', '01', '.5', '1.', '0x10', '1_000', '١٢'];

const edgeNumber: fc.Arbitrary<Json> = fc.oneof(
  { arbitrary: fc.constantFrom(...NUMBER_LITERALS).map((text) => new Raw(text)), weight: 4 },
  { arbitrary: fc.integer(), weight: 1 },
  { arbitrary: fc.double({ noNaN: true, noDefaultInfinity: true }), weight: 1 },
  { arbitrary: fc.constantFrom('"NaN"', '"Infinity"', '"-0"', '"1e308"', '"50"', '"12"', '"1"').map((text) => new Raw(text)), weight: 1 },
);

const invalidNumber = fc.constantFrom(...INVALID_NUMBER_LITERALS).map((text) => new Raw(text));

const weirdScalar: fc.Arbitrary<Json> = fc.oneof(
  { arbitrary: weirdString, weight: 5 },
  { arbitrary: rawStrings.map((text) => new Raw(text)), weight: 1 },
  { arbitrary: edgeNumber, weight: 3 },
  { arbitrary: fc.constantFrom<Json>(null, true, false), weight: 2 },
);

// ---------------------------------------------------------------------------------------------
// Keys, pollution, nesting

/** Keys that must never reach a prototype or a column: pollution keys and the service's own fields. */
const weirdKey: fc.Arbitrary<string | Raw> = fc.oneof(
  {
    arbitrary: fc.constantFrom<string | Raw>(
      '__proto__',
      'constructor',
      'prototype',
      new Raw('"\\u005f\\u005fproto\\u005f\\u005f"'),
      new Raw('"__proto\\u005f_"'),
      'hasOwnProperty',
      'toString',
      'valueOf',
      '__defineGetter__',
      'id',
      'team_id',
      'user_id',
      'api_token',
      'api_token_hash',
      'token_hash',
      'plain_text_token',
      'latest_report_id',
      'archived_at',
      'created_at',
      'updated_at',
      'projects_count',
      'role',
      'abilities',
      'settings',
      'results',
      '',
      ' ',
      '0',
      '1',
      '-1',
      '01',
      '999999999',
      '9999999999',
      'a.b',
      'a/b',
      '$ref',
      '$schema',
      '\u0000',
      '😀',
    ),
    weight: 4,
  },
  { arbitrary: fc.string({ maxLength: 12 }), weight: 1 },
);

/** Bodies that try to plant a property on Object.prototype through every route a parser may take. */
const pollutionPayload: fc.Arbitrary<Json> = fc
  .constantFrom(...POLLUTION_MARKERS)
  .chain((marker) =>
    fc.constantFrom<Json>(
      new Obj([['__proto__', new Obj([[marker, true]])]]),
      new Obj([[new Raw('"\\u005f\\u005fproto\\u005f\\u005f"'), new Obj([[marker, true]])]]),
      new Obj([['constructor', new Obj([['prototype', new Obj([[marker, true]])]])]]),
      new Obj([['constructor', new Obj([[marker, true]])]]),
      new Obj([['prototype', new Obj([[marker, true]])]]),
      new Obj([['__proto__', null]]),
      new Obj([['__proto__', []]]),
      new Obj([['__proto__', 'x']]),
      [new Obj([['__proto__', new Obj([[marker, true]])]])],
    ),
  );

/** `depth` levels of arrays or objects around a scalar (the service refuses more than 32). */
const deepNesting: fc.Arbitrary<Json> = fc
  .tuple(
    fc.oneof(
      { arbitrary: fc.integer({ min: 1, max: 40 }), weight: 5 },
      { arbitrary: fc.constantFrom(31, 32, 33, 1_000, 50_000), weight: 1 },
    ),
    fc.constantFrom('array', 'object', 'mixed'),
  )
  .map(([depth, shape]) => {
    // Built as raw text: a model this deep would blow the serializer's own stack.
    const open = (i: number) => (shape === 'array' || (shape === 'mixed' && i % 2 === 0) ? '[' : '{"a":');
    const close = (i: number) => (shape === 'array' || (shape === 'mixed' && i % 2 === 0) ? ']' : '}');
    let head = '';
    let tail = '';
    for (let i = 0; i < depth; i++) {
      head += open(i);
      tail = close(i) + tail;
    }
    return new Raw(`${head}1${tail}`);
  });

/** Any value: scalars, small arrays and objects of them, pollution, nesting. */
const weirdValue: fc.Arbitrary<Json> = fc.letrec<{ value: Json }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    { arbitrary: weirdScalar, weight: 8 },
    { arbitrary: fc.array(tie('value'), { maxLength: 4 }), weight: 1 },
    { arbitrary: fc.array(fc.tuple(weirdKey, tie('value')), { maxLength: 4 }).map((entries) => new Obj(entries)), weight: 1 },
    { arbitrary: pollutionPayload, weight: 1 },
    { arbitrary: deepNesting, weight: 1 },
  ),
})).value;

// ---------------------------------------------------------------------------------------------
// Bodies

/** A body each operation accepts; the mutations start from it. */
export const VALID_V1_BODIES = {
  createProject: { name: 'New', framework_version: '12', description: 'A shop', repository_url: 'https://github.com/acme/new' },
  updateProject: {
    name: 'Renamed',
    framework_version: 11,
    description: null,
    repository_url: 'https://gitlab.com/acme/shop',
    settings: {
      fail_on: 'high',
      fail_threshold: 80,
      primary_tracker: 'jira',
      ticket_target_project_key: 'SHOP',
      ticket_target_project_name: 'Shop',
    },
  },
  createToken: { name: 'ci', abilities: ['read', 'write'], expires_at: '2031-01-01' },
  updateProfile: { name: 'Ada Lovelace' },
  // The world's owner has no dashboard password: a change is refused at `current_password` (422).
  changePassword: { current_password: 'an old passphrase 1', password: 'a new passphrase 22' },
  signIn: { email: 'owner@example.com', password: 'not anybody’s password' },
  createTeam: { name: 'Platform' },
  renameTeam: { name: 'Platform team' },
  memberRole: { role: 'readonly' },
  invite: { email: 'new.dev@example.com', role: 'admin' },
  createWebhook: {
    url: 'https://hooks.example.com/new',
    events: ['report.gate_failed', 'run.failed'],
    description: 'CI alerts',
    format: 'slack',
  },
  updateWebhook: { url: 'https://hooks.example.com/moved', events: ['ping'], active: false, description: null, format: 'teams' },
  createConnection: {
    provider: 'jira',
    name: 'Jira',
    base_url: 'https://shop.invalid',
    credentials: { email: 'a@example.com', api_token: 'atl-fuzz' },
  },
  updateConnection: { name: 'Renamed', base_url: 'https://moved.invalid/api/v3', credentials: { token: 'ghp_replacedtoken' } },
};

/** A body of `kind` the operation accepts from the owner's full token (the world's ids where it needs one). */
export function validV1Body(world: World, kind: BodyKind): Record<string, unknown> {
  switch (kind) {
    case 'currentTeam':
      return { team_id: world.teamId };
    case 'transfer':
      return { user_id: world.memberUserId };
    case 'issueState':
      return { status: 'accepted', comment: 'Checked by hand.', assignee_id: world.owner.id, expires_at: '2027-01-01' };
    case 'bulkIssues':
      return { fingerprints: [world.fingerprint], status: 'wont_fix', comment: 'Legacy code.', assignee_id: null };
    case 'tracker':
      return { connection_id: null };
    case 'codeHost':
      return { connection_id: world.connectionId, repository: 'acme/shop', commit_status: true, pull_request_comment: false };
    case 'bulkTickets':
      return { fingerprints: [world.fingerprint] };
    case 'notificationSettings':
      return { gate_failed: false, new_issues: 'high', weekly_digest: true, assigned: false, muted_projects: [world.projectId] };
    case 'report':
    case 'failure':
      throw new Error(`${kind} is a client-package body`);
    default:
      return VALID_V1_BODIES[kind];
  }
}

/** One change to a valid body. */
type Mutation =
  | { kind: 'set'; at: number; value: Json }
  | { kind: 'delete'; at: number }
  | { kind: 'add'; at: number; key: string | Raw; value: Json }
  | { kind: 'duplicate'; at: number; value: Json; first: boolean }
  | { kind: 'wrap'; at: number; as: 'array' | 'object' }
  | { kind: 'retype'; at: number }
  | { kind: 'inject'; at: number; snippet: string; where: number }
  | { kind: 'similar'; at: number; date: string; number: Json; text: string };

/**
 * Characters that storage layers treat specially, spliced into a valid string so the body stays
 * valid otherwise: NUL (PostgreSQL text cannot hold it), lone surrogates (not encodable as UTF-8),
 * direction overrides, a BOM, quotes and backslashes, line separators.
 */
const spliced = fc.oneof(
  fc.constantFrom('\u0000', '\ud800', '\udfff'),
  fc.constantFrom('\u202e', '\u2028', '\ufeff', '😀', 'e\u0301', ' ', '\t', '\r\n', "'", '"', '\\', '%00', '\u0085', '\uffff'),
);

const mutation = (count: number): fc.Arbitrary<Mutation> => {
  const at = fc.nat({ max: Math.max(0, count - 1) });
  return fc.oneof(
    { arbitrary: fc.record({ kind: fc.constant('set' as const), at, value: weirdValue }), weight: 6 },
    { arbitrary: fc.record({ kind: fc.constant('delete' as const), at }), weight: 2 },
    { arbitrary: fc.record({ kind: fc.constant('add' as const), at, key: weirdKey, value: weirdValue }), weight: 3 },
    { arbitrary: fc.record({ kind: fc.constant('duplicate' as const), at, value: weirdValue, first: fc.boolean() }), weight: 2 },
    {
      arbitrary: fc.record({ kind: fc.constant('wrap' as const), at, as: fc.constantFrom('array' as const, 'object' as const) }),
      weight: 1,
    },
    { arbitrary: fc.record({ kind: fc.constant('retype' as const), at }), weight: 2 },
    { arbitrary: fc.record({ kind: fc.constant('inject' as const), at, snippet: spliced, where: fc.nat() }), weight: 4 },
    {
      arbitrary: fc.record({ kind: fc.constant('similar' as const), at, date: dateText, number: edgeNumber, text: weirdString }),
      weight: 4,
    },
  );
};

/** The same value as another JSON type: what a sender with the wrong idea of the schema sends. */
function retype(node: Json): Json {
  if (typeof node === 'string') return /^\d+$/.test(node) ? Number(node) : [node];
  if (typeof node === 'number') return String(node);
  if (typeof node === 'boolean') return node ? 1 : 0;
  if (node === null) return '';
  if (Array.isArray(node)) return new Obj(node.map((item, i) => [String(i), item]));
  if (node instanceof Obj) return node.entries.map(([, item]) => item);
  return null;
}

/** The node at `path`. */
function nodeAt(value: Json, path: Step[]): Json | undefined {
  let node: Json | undefined = value;
  for (const step of path) {
    if (node instanceof Obj) node = node.entries.find(([key]) => key === step)?.[1];
    else if (Array.isArray(node)) node = node[step as number];
    else return undefined;
  }
  return node;
}

function applyMutation(body: Json, m: Mutation): Json {
  let all = positions(body);
  // A splice or a value of the same kind aims at the scalars of the body.
  if (m.kind === 'inject') all = all.filter((path) => typeof nodeAt(body, path) === 'string');
  if (m.kind === 'similar') all = all.filter((path) => ['string', 'number'].includes(typeof nodeAt(body, path)));
  if (all.length === 0) return body;
  const path = all[m.at % all.length]!;
  switch (m.kind) {
    case 'set':
      return update(body, path, () => m.value);
    case 'delete':
      return path.length === 0 ? body : update(body, path, () => undefined);
    case 'retype':
      return update(body, path, retype);
    case 'similar':
      // A date where a date was, a number where a number was: past the type check, into the handler.
      return update(body, path, (node) =>
        typeof node === 'number' ? m.number : typeof node === 'string' && /^\d{4}-\d{2}-\d{2}/.test(node) ? m.date : m.text,
      );
    case 'inject':
      return update(body, path, (node) => {
        if (typeof node !== 'string') return node;
        const at = m.where % (node.length + 1);
        return node.slice(0, at) + m.snippet + node.slice(at);
      });
    case 'wrap':
      return update(body, path, (node) => (m.as === 'array' ? [node] : new Obj([['0', node]])));
    case 'add':
      return update(body, path, (node) => (node instanceof Obj ? new Obj([...node.entries, [m.key, m.value]]) : node));
    case 'duplicate': {
      // The same key twice: JSON.parse keeps the last; a lenient reader might keep the first.
      const parent = path.slice(0, -1);
      const key = path[path.length - 1];
      if (typeof key !== 'string') return body;
      return update(body, parent, (node) => {
        if (!(node instanceof Obj)) return node;
        const entries = node.entries.flatMap(([k, v]): [string | Raw, Json][] =>
          k === key
            ? m.first
              ? [
                  [k, m.value],
                  [k, v],
                ]
              : [
                  [k, v],
                  [k, m.value],
                ]
            : [[k, v]],
        );
        return new Obj(entries);
      });
    }
  }
}

/** Text that is not one JSON object: other JSON values, broken JSON, and not JSON at all. */
function junkText(valid: string): fc.Arbitrary<string> {
  return fc.oneof(
    fc.constantFrom(
      '',
      ' ',
      'null',
      'true',
      '0',
      '"text"',
      '[]',
      '[{}]',
      '{}',
      '{',
      '}',
      '{"a":1}{"b":2}',
      '{"a":1,}',
      "{'a':1}",
      '{a:1}',
      '{"a":1 /* comment */}',
      '\ufeff{}',
      '{"a":"\u0000"}',
      'name=Shop&framework_version=11',
      '<?xml version="1.0"?><project/>',
      '--boundary\r\nContent-Disposition: form-data; name="name"\r\n\r\nShop\r\n--boundary--',
      '\u0000\u0001\u0002',
    ),
    fc.nat({ max: Math.max(1, valid.length - 1) }).map((cut) => valid.slice(0, cut)),
    fc.string({ unit: 'binary', maxLength: 200 }).map((tail) => valid + tail),
    fc.string({ unit: 'binary', maxLength: 200 }),
    invalidNumber.map((raw) => `{"n":${raw.text}}`),
    rawStrings.map((raw) => `{"name":${raw}}`),
  );
}

/**
 * A body for an endpoint whose valid body is `valid`: mostly that body with one to three
 * mutations (so generated values reach the schema and the handler), else junk.
 */
export function bodyFrom(valid: unknown): fc.Arbitrary<string> {
  const base = fromPlain(valid);
  const count = positions(base).length;
  const validText = serialize(base);
  return fc.oneof(
    {
      arbitrary: fc.array(mutation(count), { minLength: 1, maxLength: 3 }).map((ms) => serialize(ms.reduce(applyMutation, base))),
      weight: 12,
    },
    { arbitrary: weirdValue.map(serialize), weight: 1 },
    {
      arbitrary: pollutionPayload.map((p) =>
        serialize(p instanceof Obj && base instanceof Obj ? new Obj([...base.entries, ...p.entries]) : p),
      ),
      weight: 1,
    },
    { arbitrary: junkText(validText), weight: 2 },
    { arbitrary: fc.constant(validText), weight: 1 },
  );
}

/** A body for an endpoint that reads none: anything at all. */
export const anyBody: fc.Arbitrary<string> = fc.oneof(weirdValue.map(serialize), junkText('{"name":"x"}'));

/** Bodies around a byte limit: just under, at, and just over, as a JSON object with one big string. */
export function nearLimit(limit: number): fc.Arbitrary<string> {
  return fc.constantFrom(-64, -1, 0, 1, 4096).map((delta) => {
    const frame = '{"name":"","framework_version":"11"}';
    return `{"name":"${'x'.repeat(Math.max(0, limit + delta - frame.length))}","framework_version":"11"}`;
  });
}

// ---------------------------------------------------------------------------------------------
// Transport: content types and encodings

export const contentType: fc.Arbitrary<string | undefined> = fc.oneof(
  { arbitrary: fc.constant('application/json'), weight: 8 },
  {
    arbitrary: fc.constantFrom<string | undefined>(
      undefined,
      '',
      'application/json; charset=utf-8',
      'application/json; charset=UTF-8',
      'application/json;charset=utf-8',
      'application/json; charset=latin1',
      'application/json; charset=utf-16',
      'application/json; charset="utf-8"',
      'application/json; charset=',
      'application/json;;;',
      'application/json; boundary=x; q=0.1; a="b;c"',
      'APPLICATION/JSON',
      ' application/json',
      'application/json ',
      'application/json, text/plain',
      'application/jsonx',
      'application/json-patch+json',
      'application/vnd.api+json',
      'application/problem+json',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=boundary',
      'multipart/form-data',
      'text/plain',
      'text/plain; charset=utf-8',
      'text/json',
      'text/html',
      'application/xml',
      'application/octet-stream',
      '*/*',
      'application/*',
      'json',
      '/',
      ';',
      'application/json\u00e9',
      'application/json; charset=utf-8; charset=latin1',
    ),
    weight: 4,
  },
  { arbitrary: fc.string({ maxLength: 40 }), weight: 1 },
);

export type Encoding = { header?: string; encode: 'none' | 'gzip' | 'deflate' | 'junk' | 'truncated-gzip' | 'double-gzip' };

export const contentEncoding: fc.Arbitrary<Encoding> = fc.constantFrom<Encoding>(
  { encode: 'none' },
  { header: 'identity', encode: 'none' },
  { header: 'gzip', encode: 'gzip' },
  { header: 'GZIP', encode: 'gzip' },
  { header: 'x-gzip', encode: 'gzip' },
  { header: ' gzip ', encode: 'gzip' },
  { header: 'gzip', encode: 'none' }, // says gzip, is not
  { header: 'gzip', encode: 'junk' },
  { header: 'gzip', encode: 'truncated-gzip' },
  { header: 'gzip', encode: 'double-gzip' },
  { header: 'gzip, gzip', encode: 'double-gzip' },
  { header: 'deflate', encode: 'deflate' },
  { header: 'br', encode: 'junk' },
  { header: 'zstd', encode: 'junk' },
  { header: 'compress', encode: 'none' },
  { header: '', encode: 'none' },
  { header: 'identity, gzip', encode: 'gzip' },
  { header: 'garbage\u00ff', encode: 'none' },
);

/** The body as the encoding says (or as it lies). */
export function encodeBody(text: string, encoding: Encoding): Buffer {
  const raw = Buffer.from(text, 'utf8');
  switch (encoding.encode) {
    case 'none':
      return raw;
    case 'gzip':
      return gzipSync(raw);
    case 'double-gzip':
      return gzipSync(gzipSync(raw));
    case 'deflate':
      return deflateSync(raw);
    case 'truncated-gzip': {
      const zipped = gzipSync(raw);
      return zipped.subarray(0, Math.max(1, Math.floor(zipped.length / 2)));
    }
    case 'junk':
      return Buffer.concat([Buffer.from([0x1f, 0x8b, 0x08, 0x00]), raw]);
  }
}

// ---------------------------------------------------------------------------------------------
// Credentials and other headers

/** D9's checksum, to build tokens that pass the shape check but name no one. */
function checksum(body: string): string {
  return crc32(body).toString(16).padStart(8, '0');
}

/**
 * Authorization header values around a valid token: the scheme misspelled, the token altered so its
 * checksum fails or so it passes and names nobody, other token kinds, huge values.
 */
export function authorizationVariants(validToken: string, otherValid: string): fc.Arbitrary<string | undefined> {
  const body40 = fc.string({
    unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789'),
    minLength: 40,
    maxLength: 40,
  });
  return fc.oneof(
    // Mostly the right token, so the other headers are what the request is judged on.
    { arbitrary: fc.constant(`Bearer ${validToken}`), weight: 12 },
    { arbitrary: fc.constant(`Bearer ${otherValid}`), weight: 1 },
    {
      arbitrary: fc.constantFrom<string | undefined>(
        undefined,
        '',
        'Bearer',
        'Bearer ',
        'Bearer  ',
        `bearer ${validToken}`,
        `BEARER ${validToken}`,
        `Bearer  ${validToken}`,
        `Bearer\t${validToken}`,
        `Bearer ${validToken} `,
        `Bearer ${validToken} extra`,
        `Bearer ${validToken},Bearer ${otherValid}`,
        `Basic ${Buffer.from(`user:${validToken}`).toString('base64')}`,
        `Token ${validToken}`,
        `Bearer: ${validToken}`,
        validToken,
        `Bearer "${validToken}"`,
        `Bearer ${validToken.toUpperCase()}`,
        `Bearer ${validToken.slice(0, -1)}`,
        `Bearer ${validToken}0`,
        `Bearer ${validToken.slice(0, -8)}00000000`,
        'Bearer service_',
        'Bearer null',
        'Bearer undefined',
        "Bearer ' OR 1=1 --",
        'Bearer ../../etc/passwd',
        `Bearer ${'\u00e9'.repeat(56)}`,
        'Bearer 😀',
      ),
      weight: 4,
    },
    // Right shape, right checksum, nobody's token: reaches the database lookup.
    { arbitrary: body40.map((b) => `Bearer service_${b}${checksum(b)}`), weight: 1 },
    { arbitrary: body40.map((b) => `Bearer ${b}`), weight: 1 },
    // The body changed in one place, checksum kept: fails the checksum.
    {
      arbitrary: fc.nat({ max: 55 }).map((i) => {
        const chars = [...validToken];
        chars[i % chars.length] = chars[i % chars.length] === 'A' ? 'B' : 'A';
        return `Bearer ${chars.join('')}`;
      }),
      weight: 1,
    },
    { arbitrary: fc.string({ unit: 'grapheme-ascii', maxLength: 100 }).map((s) => `Bearer ${s}`), weight: 1 },
    // Bytes Node's parser refuses in a header value: a 400 before any route.
    { arbitrary: fc.constantFrom('Bearer \u0000', `Bearer ${'x'.repeat(10)}\u0001`, 'Bearer \u007f'), weight: 1 },
    // Huge values: under Node's 16 KiB header limit, and over it (431 from the HTTP parser).
    { arbitrary: fc.constantFrom(1_000, 8_000, 15_000, 17_000, 40_000).map((n) => `Bearer ${'a'.repeat(n)}`), weight: 1 },
  );
}

export const forwardedFor: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    '1.2.3.4',
    '::1',
    '127.0.0.1, 10.0.0.1',
    'unknown',
    '',
    ' , , ',
    '999.999.999.999',
    '[::ffff:1.2.3.4]:80',
    'a'.repeat(4_000),
    '1.2.3.4, '.repeat(200),
    '<script>',
  ),
  fc.string({ unit: 'grapheme-ascii', maxLength: 60 }),
);

export const accept: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    'application/json',
    'text/html',
    'application/xml',
    '*/*',
    '*/*;q=0',
    'application/json;q=0',
    'text/event-stream',
    'image/png',
    '',
    ';;;',
    'application/json, text/html;q=0.9, */*;q=0.8',
  ),
  fc.string({ unit: 'grapheme-ascii', maxLength: 40 }),
);

/** Other headers a hostile client may add; each is allowed by HTTP/1.1 framing or deliberately not. */
export const extraHeader: fc.Arbitrary<[string, string]> = fc.oneof(
  {
    arbitrary: fc.constantFrom<[string, string]>(
      ['Expect', '100-continue'],
      ['Expect', 'garbage'],
      ['X-HTTP-Method-Override', 'DELETE'],
      ['X-Method-Override', 'PUT'],
      ['X-Forwarded-Host', 'evil.example'],
      ['X-Forwarded-Proto', 'javascript'],
      ['Forwarded', 'for=1.2.3.4;proto=https;host=evil'],
      ['Origin', 'https://evil.example'],
      ['Cookie', 'session=abc; __proto__=x'],
      ['Range', 'bytes=0-10'],
      ['If-None-Match', '*'],
      ['If-Modified-Since', 'yesterday'],
      ['Accept-Encoding', 'gzip, br, zstd, *;q=0'],
      ['Accept-Charset', 'utf-7'],
      ['Accept-Language', '*'.repeat(100)],
      ['User-Agent', ''],
      ['User-Agent', 'GuzzleHttp/7'],
      ['Upgrade', 'websocket'],
      ['Connection', 'keep-alive, Upgrade'],
      ['Te', 'trailers'],
      ['Max-Forwards', '0'],
      ['Via', '1.1 evil'],
      ['X-Request-Id', '../../'],
      ['__proto__', 'polluted'],
      ['constructor', 'x'],
    ),
    weight: 4,
  },
  {
    arbitrary: fc.tuple(fc.stringMatching(/^[A-Za-z][A-Za-z0-9-]{0,20}$/), fc.string({ unit: 'grapheme-ascii', maxLength: 60 })),
    weight: 3,
  },
  // Bytes Node's parser refuses in a header value (a 400 from the parser, never a crash): rarely,
  // since such a request never reaches the service.
  {
    arbitrary: fc.constantFrom<[string, string]>(
      ['X-Junk', 'a\u0000b'],
      ['X-Junk', 'a\u0001b'],
      ['X-Junk', '\u007f'],
      ['X-Junk', 'caf\u00e9'],
      ['X Junk', 'space in name'],
      ['X-Junk', 'a\rb'],
    ),
    weight: 1,
  },
);

// ---------------------------------------------------------------------------------------------
// Paths and queries

/** Percent-encodes every byte that is not unreserved (so the value stays inside one path segment). */
const encodeSegment = (value: string) =>
  encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

/**
 * A path parameter, as written on the request line: random text (encoded), ids of the right shape
 * that name nothing or someone else's object, and encodings that are wrong on purpose.
 */
export function pathParameter(ids: { own: string[]; foreign: string[] }): fc.Arbitrary<string> {
  return fc.oneof(
    { arbitrary: fc.constantFrom(...ids.own, ...ids.foreign), weight: 2 },
    { arbitrary: fc.constantFrom(...ids.own, ...ids.foreign).map((id) => id.toUpperCase()), weight: 1 },
    {
      arbitrary: fc
        .tuple(fc.constantFrom(...ids.own, ...ids.foreign), fc.constantFrom('x', '%00', '%20', '.json', '/', '%2F', ';a=1', '#x', '%2e'))
        .map(([id, tail]) => id + tail),
      weight: 1,
    },
    { arbitrary: fc.uuid().map(String), weight: 2 },
    { arbitrary: fc.uuid({ version: 7 }).map(String), weight: 1 },
    {
      arbitrary: fc.constantFrom(
        '0',
        '-1',
        '1',
        '01',
        '1.0',
        '1e3',
        '0x1',
        '9007199254740993',
        '99999999999999999999999',
        '-0',
        '%00',
        '..',
        '.',
        '..%2f..%2fetc%2fpasswd',
        '%2e%2e%2f',
        '..%252f',
        '%',
        '%zz',
        '%e0%a4',
        '%c0%af',
        '%ff',
        '%u002e',
        'null',
        'undefined',
        '__proto__',
        'constructor',
        '%F0%9F%98%80',
        '😀',
        'é',
        '\u00e9',
        '00000000-0000-0000-0000-000000000000',
        'ffffffff-ffff-ffff-ffff-ffffffffffff',
        '00000000-0000-7000-8000-00000000000g',
        '{project}',
        ':project',
        '*',
        '%2A',
        "'%20OR%201=1",
      ),
      weight: 4,
    },
    { arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 60 }).map(encodeSegment), weight: 2 },
    { arbitrary: fc.integer({ min: -5, max: 10 }).map(String), weight: 1 },
    // Long ids: up to the router's 8192-character limit and past it.
    { arbitrary: fc.constantFrom(200, 8_191, 8_192, 8_193, 12_000).map((n) => 'a'.repeat(n)), weight: 1 },
  );
}

/** A query string (after `?`): `page` with anything, repeated, as an array, huge, junk. */
export const queryString: fc.Arbitrary<string> = fc.oneof(
  {
    arbitrary: fc
      .oneof(
        fc.constantFrom(
          '0',
          '1',
          '2',
          '-1',
          '1.5',
          '1e3',
          '01',
          '+1',
          ' 1',
          '1 ',
          '0x10',
          'abc',
          '',
          'null',
          'true',
          '[]',
          '{}',
          '9007199254740993',
          '2147483648',
          '99999999999999999999999999',
          'NaN',
          'Infinity',
          '%00',
          '%zz',
          '%',
          '%E2%80%AE1',
          '1%00',
          '1;2',
        ),
        fc.integer().map(String),
        fc.string({ unit: 'binary', maxLength: 30 }).map(encodeSegment),
      )
      .map((value) => `page=${value}`),
    weight: 6,
  },
  {
    arbitrary: fc.constantFrom(
      'page=1&page=2',
      'page=0&page=1',
      'page[]=1',
      'page[]=1&page[]=2',
      'page[x]=1',
      'page=1&per_page=100000',
      'page',
      'page=',
      '=1',
      '&&&',
      '?',
      'page=1#x',
      '__proto__[polluted]=1',
      '__proto__=1&constructor[prototype][polluted]=1',
      'constructor=1',
      'PAGE=2',
      'page=1&page=1&page=1',
    ),
    weight: 4,
  },
  { arbitrary: fc.constantFrom(1_000, 7_000, 20_000).map((n) => `page=${'9'.repeat(n)}`), weight: 1 },
  { arbitrary: fc.string({ unit: 'grapheme-ascii', maxLength: 80 }).map((s) => s.replace(/[\s#]/g, '+')), weight: 2 },
  // Raw control characters on the request line: Node's parser refuses them (400).
  { arbitrary: fc.constantFrom('page=\u0000', 'page=1\u0001', 'page=\u007f'), weight: 1 },
);
