/**
 * Issue 7, deliverable 1: the machinery of the property-based fuzz campaign (test/fuzz/*.test.ts).
 *
 * One real app per test file (buildTestApp, so SQLite or PostgreSQL + Redis as the suite runs it),
 * listening on a free port; every generated request is written byte for byte to a TCP socket (no
 * HTTP client in between that would normalise, refuse or fix it), and every answer is checked for
 * the properties of the issue:
 *   1. never a 5xx, never a hang (120 s per request);
 *   2. a status the OpenAPI document lists for the operation (and ctx.contract, which checks bodies
 *      and headers against the document, stays silent);
 *   3. every 4xx is the D3 envelope in JSON (`success: false` too under /api), with no internals;
 *   4. a rejected request changes no stored row;
 *   5. no prototype of this process is polluted, and a project read back has only its own keys.
 *
 * Campaign size: FUZZ_RUNS runs per property (default below, for `npm test`); `npm run fuzz` sets
 * 1000. A failure prints fast-check's seed and path: FUZZ_SEED=<seed> FUZZ_PATH=<path> replays it.
 */
import { DASHBOARD_PAGES } from '../../src/dashboard/dashboard-pages.js';
import fc from 'fast-check';
import { expect } from 'vitest';
import { hashToken } from '../../src/auth/token-hash.js';
import { createFailuresService } from '../../src/failures/failures.service.js';
import type { Database } from '../../src/db/schema.js';
import { projectTokenCredential } from '../../src/projects/project-api-token.js';
import { createProjectsRepository } from '../../src/projects/projects.repository.js';
import { sendRaw, type RawRequest, type RawResponse } from '../helpers/raw-http.js';
import { EMPTY_SETTINGS, PROJECT_KEYS } from '../projects/project-expectations.js';
import { buildTestApp, listenOnLoopback, type TestContext, type TestUser } from '../helpers/test-app.js';

// ---------------------------------------------------------------------------------------------
// Campaign size and replay

/**
 * Runs per property in a normal `npm test`: the whole folder stays around a minute on SQLite. On
 * PostgreSQL, where each request costs a few times more, half as many: what the properties probe is
 * mostly the HTTP layers the backends share (headers, paths, bodies before they reach a query), and
 * what is the database's own (an id that does not fit its column, say) fails on the first runs that
 * send one; FUZZ_RUNS sets the size of a longer campaign on both.
 */
const DEFAULT_RUNS = process.env.TEST_BACKEND === 'postgres' ? 20 : 40;

export const FUZZ_RUNS = positiveInteger(process.env.FUZZ_RUNS) ?? DEFAULT_RUNS;
const FUZZ_SEED = process.env.FUZZ_SEED === undefined || process.env.FUZZ_SEED === '' ? undefined : Number(process.env.FUZZ_SEED);
const FUZZ_PATH = process.env.FUZZ_PATH || undefined;

function positiveInteger(text: string | undefined): number | undefined {
  if (text === undefined || text === '') return undefined;
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1) throw new Error(`FUZZ_RUNS must be a positive integer, got "${text}"`);
  return value;
}

/** Runs of a property: `weight` scales the campaign for properties whose requests are expensive. */
export function runs(weight = 1): number {
  return Math.max(1, Math.round(FUZZ_RUNS * weight));
}

/**
 * vitest's limit for a test running `count` requests. Generous: the machine is shared, and a
 * PostgreSQL run is a few times slower than SQLite. fast-check stops itself a little earlier
 * (interruptAfterTimeLimit), so a slow campaign still reports its counterexample.
 */
export function timeoutFor(count: number): number {
  return 60_000 + count * 400;
}

/** fast-check parameters: the campaign size, and FUZZ_SEED / FUZZ_PATH to replay a failure. */
function fuzzParameters<T>(count: number): fc.Parameters<T> {
  return {
    numRuns: count,
    ...(FUZZ_SEED !== undefined && { seed: FUZZ_SEED }),
    ...(FUZZ_PATH !== undefined && { path: FUZZ_PATH }),
    interruptAfterTimeLimit: timeoutFor(count) - 20_000,
  };
}

/**
 * Runs `predicate` on `count` generated values. On failure the error is fast-check's report (the
 * shrunk counterexample and the first error) plus the command that replays it.
 */
export async function campaign<T>(count: number, arbitrary: fc.Arbitrary<T>, predicate: (value: T) => Promise<void>): Promise<void> {
  const details = await fc.check(fc.asyncProperty(arbitrary, predicate), fuzzParameters<[T]>(count));
  if (details.interrupted && !details.failed)
    console.warn(`fuzz campaign stopped by its time limit after ${details.numRuns} of ${count} runs`);
  if (details.failed) {
    const counterexample = fc.stringify(details.counterexample);
    const error = details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance);
    throw new Error(
      `Property failed after ${details.numRuns} runs (shrunk ${details.numShrinks} times).\n` +
        `Counterexample: ${counterexample.length > 3000 ? `${counterexample.slice(0, 3000)}…(${counterexample.length} chars)` : counterexample}\n\n` +
        `Error:\n${error}\n\n` +
        `Replay: FUZZ_SEED=${details.seed} FUZZ_PATH=${JSON.stringify(details.counterexamplePath)} FUZZ_RUNS=${count} npx vitest run test/fuzz`,
    );
  }
}

// ---------------------------------------------------------------------------------------------
// The world the requests are aimed at

/** Every operation of the service, as the OpenAPI document names it, with what its path needs. */
export interface Operation {
  /** `METHOD /path/{param}`, as in the OpenAPI document. */
  name: string;
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  template: string;
  /**
   * v1: personal access token; client: project API token; badge: none, the badge key in the path (E2.3);
   * link: none, the signed token in the path (E11.3's unsubscribe); ops: none.
   */
  kind: 'v1' | 'client' | 'badge' | 'link' | 'ops';
  /** The body the operation reads (a JSON schema in the document), if any. */
  body?: BodyKind;
}

/** The bodies of /api/v1 (valid ones in validV1Body) and of the client package. */
export type BodyKind =
  | 'createProject'
  | 'updateProject'
  | 'createToken'
  | 'updateProfile'
  | 'changePassword'
  | 'signIn'
  | 'currentTeam'
  | 'createTeam'
  | 'renameTeam'
  | 'transfer'
  | 'memberRole'
  | 'invite'
  | 'createWebhook'
  | 'updateWebhook'
  | 'createConnection'
  | 'updateConnection'
  | 'issueState'
  | 'bulkIssues'
  | 'tracker'
  | 'codeHost'
  | 'bulkTickets'
  | 'notificationSettings'
  | 'report'
  | 'failure';

const op = (name: string, kind: Operation['kind'], body?: Operation['body']): Operation => {
  const [method, template] = name.split(' ') as [Operation['method'], string];
  return { name, method, template, kind, ...(body && { body }) };
};

/**
 * 62 /api/v1 operations (21 of api-v1 and E1-E3, 19 of E4 and E5, 9 of E6, 3 of E8.2 and 6 of
 * E9.1 with a personal access token; the password change, the sign-in and the session's two of E7), the 5
 * client-package ones (one, the older clients' upload, under /api/v1), the 3 public badges (E2.3)
 * and the two probes: 72.
 */
export const OPERATIONS: Operation[] = [
  op('GET /api/v1/projects', 'v1'),
  op('POST /api/v1/projects', 'v1', 'createProject'),
  op('GET /api/v1/projects/{project}', 'v1'),
  op('PUT /api/v1/projects/{project}', 'v1', 'updateProject'),
  op('DELETE /api/v1/projects/{project}', 'v1'),
  op('POST /api/v1/projects/{project}/regenerate-token', 'v1'),
  op('POST /api/v1/projects/{project}/archive', 'v1'),
  op('POST /api/v1/projects/{project}/unarchive', 'v1'),
  op('GET /api/v1/projects/{project}/reports', 'v1'),
  op('GET /api/v1/projects/{project}/failures', 'v1'),
  op('GET /api/v1/projects/{project}/branches', 'v1'),
  // E8.2: the issues of the project's latest report, with their states.
  op('GET /api/v1/projects/{project}/issues', 'v1'),
  op('GET /api/v1/projects/{project}/pull-requests', 'v1'),
  op('GET /api/v1/projects/{project}/trend', 'v1'),
  op('GET /api/v1/projects/{project}/badges', 'v1'),
  op('POST /api/v1/projects/{project}/badges/regenerate', 'v1'),
  op('GET /api/v1/reports/{report}', 'v1'),
  op('GET /api/v1/reports/{report}/changes', 'v1'),
  op('GET /api/v1/reports/{report}/export', 'v1'),
  // E8.6: the issues the client suppressed.
  op('GET /api/v1/reports/{report}/suppressed', 'v1'),
  op('DELETE /api/v1/reports/{report}', 'v1'),
  op('GET /api/v1/tokens', 'v1'),
  op('POST /api/v1/tokens', 'v1', 'createToken'),
  op('DELETE /api/v1/tokens/{token}', 'v1'),
  op('GET /api/v1/user', 'v1'),
  op('PUT /api/v1/user', 'v1', 'updateProfile'),
  op('PUT /api/v1/user/current-team', 'v1', 'currentTeam'),
  op('PUT /api/v1/user/password', 'v1', 'changePassword'),
  // E7: the dashboard's sign-in and session (a bearer token has no session: 401).
  op('POST /api/v1/session', 'v1', 'signIn'),
  op('GET /api/v1/session', 'v1'),
  op('DELETE /api/v1/session', 'v1'),
  op('GET /api/v1/user/audit-events', 'v1'),
  op('GET /api/v1/teams', 'v1'),
  op('POST /api/v1/teams', 'v1', 'createTeam'),
  op('GET /api/v1/teams/{team}', 'v1'),
  op('PUT /api/v1/teams/{team}', 'v1', 'renameTeam'),
  op('DELETE /api/v1/teams/{team}', 'v1'),
  op('POST /api/v1/teams/{team}/transfer', 'v1', 'transfer'),
  op('PUT /api/v1/teams/{team}/members/{user}', 'v1', 'memberRole'),
  op('DELETE /api/v1/teams/{team}/members/{user}', 'v1'),
  op('POST /api/v1/teams/{team}/invitations', 'v1', 'invite'),
  op('GET /api/v1/teams/{team}/invitations', 'v1'),
  op('DELETE /api/v1/teams/{team}/invitations/{id}', 'v1'),
  op('GET /api/v1/teams/{team}/audit-events', 'v1'),
  op('GET /api/v1/invitations', 'v1'),
  op('POST /api/v1/invitations/{id}/accept', 'v1'),
  op('POST /api/v1/invitations/{id}/decline', 'v1'),
  // E9.1: a team's connections to its ticket providers.
  op('POST /api/v1/teams/{team}/connections', 'v1', 'createConnection'),
  op('GET /api/v1/teams/{team}/connections', 'v1'),
  op('GET /api/v1/teams/{team}/connections/{connection}', 'v1'),
  op('PUT /api/v1/teams/{team}/connections/{connection}', 'v1', 'updateConnection'),
  op('DELETE /api/v1/teams/{team}/connections/{connection}', 'v1'),
  op('POST /api/v1/teams/{team}/connections/{connection}/check', 'v1'),
  op('POST /api/v1/projects/{project}/webhooks', 'v1', 'createWebhook'),
  op('GET /api/v1/projects/{project}/webhooks', 'v1'),
  op('GET /api/v1/projects/{project}/webhooks/{webhook}', 'v1'),
  op('PUT /api/v1/projects/{project}/webhooks/{webhook}', 'v1', 'updateWebhook'),
  op('DELETE /api/v1/projects/{project}/webhooks/{webhook}', 'v1'),
  op('POST /api/v1/projects/{project}/webhooks/{webhook}/rotate-secret', 'v1'),
  op('POST /api/v1/projects/{project}/webhooks/{webhook}/ping', 'v1'),
  op('GET /api/v1/projects/{project}/webhooks/{webhook}/deliveries', 'v1'),
  op('POST /api/v1/projects/{project}/webhooks/{webhook}/deliveries/{delivery}/redeliver', 'v1'),
  // E8.2: deciding about issues, and the caller's assigned ones.
  op('PUT /api/v1/projects/{project}/issues/{fingerprint}', 'v1', 'issueState'),
  op('POST /api/v1/projects/{project}/issues/bulk', 'v1', 'bulkIssues'),
  op('GET /api/v1/user/issues', 'v1'),
  // E11.2: the caller's notification choices (muting the world's project).
  op('GET /api/v1/user/notifications', 'v1'),
  op('PUT /api/v1/user/notifications', 'v1', 'notificationSettings'),
  // E9.3, E9.4: a project's tracker and its tickets (the world's project has none: 409).
  op('GET /api/v1/projects/{project}/tracker', 'v1'),
  op('GET /api/v1/projects/{project}/tracker/deliveries', 'v1'),
  op('PUT /api/v1/projects/{project}/tracker', 'v1', 'tracker'),
  op('POST /api/v1/projects/{project}/issues/{fingerprint}/ticket', 'v1'),
  op('POST /api/v1/projects/{project}/issues/bulk-tickets', 'v1', 'bulkTickets'),
  // E10.1, E10.4: a project's code host (linked to the world's GitHub connection) and its deliveries.
  op('GET /api/v1/projects/{project}/code-host', 'v1'),
  op('PUT /api/v1/projects/{project}/code-host', 'v1', 'codeHost'),
  op('DELETE /api/v1/projects/{project}/code-host', 'v1'),
  op('GET /api/v1/projects/{project}/code-host/deliveries', 'v1'),
  op('POST /api/reports', 'client', 'report'),
  op('POST /api/v1/reports', 'client', 'report'),
  op('POST /api/reports/failure', 'client', 'failure'),
  op('GET /api/token/verify', 'client'),
  op('GET /api/project', 'client'),
  op('GET /badges/{key}/score.svg', 'badge'),
  op('GET /badges/{key}/gate.svg', 'badge'),
  op('GET /badges/{key}/score.json', 'badge'),
  op('GET /notifications/unsubscribe/{token}', 'link'),
  op('POST /notifications/unsubscribe/{token}', 'link'),
  op('GET /healthz', 'ops'),
  op('GET /readyz', 'ops'),
];

/** The ids and secrets of the seeded data (kept valid: accepted requests are rolled back). */
export interface World {
  owner: TestUser;
  /** The owner's first token: every ability. */
  pat: string;
  patId: number;
  /** A read-only token of the owner. */
  readPat: string;
  /** A token of the owner that DELETE /tokens/{token} may revoke. */
  victimTokenId: number;
  /** The owner's project, with a report and a failed run; its API token. */
  projectId: string;
  apiToken: string;
  reportUuid: string;
  /** An archived project of the owner (uploads get 409) and its API token. */
  archivedProjectId: string;
  archivedApiToken: string;
  /** The owner's project's badge key (E2.2): all a public badge request needs. */
  badgeKey: string;
  /** Another user's project, report and token: never reachable with the owner's tokens (D15). */
  foreignProjectId: string;
  foreignReportUuid: string;
  foreignTokenId: number;
  /** A shared team the owner owns (not their current team), with `member` in it as a plain member. */
  teamId: number;
  personalTeamId: number;
  memberUserId: number;
  /** A pending invitation of the owner's team, to someone else. */
  teamInvitationId: number;
  /** A pending invitation of the owner's email, to another user's team. */
  ownInvitationId: number;
  /** Another user's team, and a pending invitation of it to a third person: never the owner's (E4). */
  foreignTeamId: number;
  foreignInvitationId: number;
  /** A webhook of the owner's project (E6) with a delivery (its ping); another user's, never the owner's. */
  webhookId: string;
  deliveryId: string;
  foreignWebhookId: string;
  foreignDeliveryId: string;
  /** A connection of the owner's shared team (E9.1), whose base URL leads nowhere (.invalid); another user's team's. */
  connectionId: string;
  foreignConnectionId: string;
  /** An issue a report of the owner's project holds (E1.2), for E8.2's routes. */
  fingerprint: string;
}

/** What a generated request is sent with: the world picks the concrete token. */
export type Credential = 'pat' | 'readPat' | 'apiToken' | 'archivedApiToken' | 'none';

export function bearer(world: World, credential: Credential): [string, string][] {
  const token = credential === 'none' ? undefined : world[credential];
  return token === undefined ? [] : [['Authorization', `Bearer ${token}`]];
}

/**
 * `template` with its path parameters replaced by the world's ids of their kind, the last one by
 * `value` when given (`/teams/{team}/members/{user}`: the member is generated, the team is the owner's).
 */
export function pathOf(world: World, operation: Operation, value?: string): string {
  const defaults: Record<string, string> = {
    project: world.projectId,
    report: world.reportUuid,
    token: String(world.victimTokenId),
    key: world.badgeKey,
    team: String(world.teamId),
    user: String(world.memberUserId),
    id: operation.template.startsWith('/api/v1/invitations/') ? String(world.ownInvitationId) : String(world.teamInvitationId),
    webhook: world.webhookId,
    delivery: world.deliveryId,
    connection: world.connectionId,
    fingerprint: world.fingerprint,
  };
  const names = [...operation.template.matchAll(/\{([a-z]+)\}/g)].map((match) => match[1]!);
  return names.reduce(
    (path, name, i) => path.replace(`{${name}}`, value !== undefined && i === names.length - 1 ? value : defaults[name]!),
    operation.template,
  );
}

/** The credential an operation is meant to be called with. */
export const ownCredential = (operation: Operation): Credential =>
  operation.kind === 'v1' ? 'pat' : operation.kind === 'client' ? 'apiToken' : 'none';

// ---------------------------------------------------------------------------------------------
// Stored data: snapshot, compare, roll back

/** Every business table, children last. */
const TABLES = [
  'users',
  'teams',
  'team_members',
  'subscriptions',
  'personal_access_tokens',
  'projects',
  'reports',
  'run_failures',
  'team_invitations',
  'connections',
  'project_code_hosts',
  'audit_events',
  'webhooks',
  'webhook_deliveries',
  'issue_states',
  'issue_state_changes',
  'user_notification_settings',
  'notification_mutes',
  'notification_events',
  'email_opt_outs',
] as const;
type Table = (typeof TABLES)[number];
type Rows = Record<Table, Record<string, unknown>[]>;

/**
 * Columns a rejected request may legitimately change. Only one: D9 writes a token's
 * `last_used_at` when it *authenticates* a request (at most once a minute), before the request is
 * refused for its body, path or ability; the campaign moves the clock a minute per request, so every
 * authenticated request writes it.
 */
const IGNORED: Partial<Record<Table, string[]>> = { personal_access_tokens: ['last_used_at'] };

/** How each table's rows are ordered to compare them: by `id`, unless it has none. */
const ORDER_BY: Partial<Record<Table, string[]>> = {
  team_members: ['team_id', 'user_id'],
  issue_states: ['project_id', 'fingerprint'],
  issue_state_changes: ['project_id'],
  project_code_hosts: ['project_id'],
  user_notification_settings: ['user_id'],
  notification_mutes: ['user_id', 'project_id'],
  notification_events: ['event_key'],
  email_opt_outs: ['email'],
};

async function readRows(ctx: TestContext): Promise<Rows> {
  const rows = {} as Rows;
  for (const table of TABLES) {
    let query = ctx.db.selectFrom(table as keyof Database).selectAll();
    for (const column of ORDER_BY[table] ?? ['id']) query = query.orderBy(column as never);
    rows[table] = (await query.execute()) as Record<string, unknown>[];
  }
  return rows;
}

function comparable(rows: Rows): Record<Table, string> {
  const out = {} as Record<Table, string>;
  for (const table of TABLES) {
    const ignored = IGNORED[table] ?? [];
    out[table] = JSON.stringify(
      rows[table].map((row) => Object.fromEntries(Object.entries(row).filter(([key]) => !ignored.includes(key)))),
    );
  }
  return out;
}

/** The first difference between two snapshots, readable; null when none. */
function difference(before: Rows, after: Rows): string | null {
  const a = comparable(before);
  const b = comparable(after);
  for (const table of TABLES) {
    if (a[table] === b[table]) continue;
    const rowsBefore = before[table].length;
    const rowsAfter = after[table].length;
    const changed = after[table].find((row, i) => JSON.stringify(row) !== JSON.stringify(before[table][i]));
    return `${table}: ${rowsBefore} rows before, ${rowsAfter} after; first changed row: ${JSON.stringify(changed ?? null).slice(0, 400)}`;
  }
  return null;
}

// ---------------------------------------------------------------------------------------------
// Prototype pollution

/** Property names the generated pollution payloads try to plant on prototypes. */
export const POLLUTION_MARKERS = ['polluted', 'isAdmin', 'fuzzPolluted', 'abilities', 'role'] as const;

const PROTOTYPES = { Object: Object.prototype, Array: Array.prototype, Function: Function.prototype, String: String.prototype };

function prototypeState(): string {
  return Object.entries(PROTOTYPES)
    .map(([name, proto]) => `${name}: ${Object.getOwnPropertyNames(proto).sort().join(',')}`)
    .join('\n');
}

function expectNoPollution(before: string): void {
  for (const marker of POLLUTION_MARKERS) {
    expect(({} as Record<string, unknown>)[marker], `({}).${marker} after the request`).toBeUndefined();
    expect(([] as unknown as Record<string, unknown>)[marker], `[].${marker} after the request`).toBeUndefined();
  }
  expect(prototypeState(), 'own properties of the built-in prototypes').toBe(before);
}

// ---------------------------------------------------------------------------------------------
// The fuzz server

interface DocumentedOperation {
  method: string;
  pattern: RegExp;
  statuses: Set<number>;
  name: string;
}

/** What the answer to a request on a path no route serves may be (D5: 404/405; transport errors). */
const UNROUTED_STATUSES = new Set([400, 404, 405, 413, 415, 429]);

/**
 * E7: the dashboard's pages (the app's index.html, for people; not API operations) and its built
 * assets. A GET answers 200 (an asset that is not there, 404), or a transport error like any path.
 */
const DASHBOARD_PATHS = [...Object.values(DASHBOARD_PAGES), '/assets/*'].map(
  (page) => new RegExp(`^${page.replace(/:\w+/g, '[^/]+').replace('*', '.+')}/?$`),
);

/**
 * Answers Node's HTTP parser gives before any route runs (src/http/client-errors.ts): a request line
 * or header it cannot parse (400), or headers over the 16 KiB limit (431). They carry the envelope
 * with `success: false`; no operation is reached, so the OpenAPI document has no say.
 */
const PARSER_STATUSES = new Set([400, 431]);

export class FuzzServer {
  readonly documented: DocumentedOperation[] = [];
  port = 0;
  world!: World;
  private baseline!: Rows;
  /**
   * Statements other than a plain SELECT run on the app's database so far (the app's, the seed's,
   * the restore's), and how many there were when the stored rows last read back as the baseline.
   * Every stored row is written through that one connection (createDatabase's onQuery sees each
   * statement, the app has no other), so while the count has not moved nothing stored can have
   * changed, and reading back every table after each request (most of a campaign's time on
   * PostgreSQL, where four in five requests run no write) would find what the last read found.
   */
  private writes = 0;
  private writesWhenUnchanged = -1;
  private prototypes = prototypeState();
  /** Requests and answers of the campaign so far, by status (reported at the end of each file). */
  readonly statuses = new Map<string, Map<number, number>>();

  private constructor(readonly ctx: TestContext) {}

  /**
   * An app with D8's budgets raised so that a campaign is never refused for its volume (anonymous
   * requests are still 10 a minute per IP: the clock moves a minute before each request), seeded with
   * a small world, listening on a free port.
   */
  static async start(): Promise<FuzzServer> {
    const ctx = await buildTestApp({ env: { RATE_LIMIT_USER_BASE: '1000000', UPLOAD_RATE_LIMIT: '1000000' } });
    const server = new FuzzServer(ctx);
    ctx.onQuery((sql) => {
      if (!/^\s*select\b/i.test(sql)) server.writes += 1;
    });
    try {
      server.port = await listenOnLoopback(ctx);
      server.world = await seed(ctx);
      const writes = server.writes;
      server.baseline = await readRows(ctx);
      server.writesWhenUnchanged = writes;
      await server.loadDocument();
    } catch (error) {
      await ctx.close();
      throw error;
    }
    return server;
  }

  private async loadDocument(): Promise<void> {
    const response = await sendRaw(this.port, { method: 'GET', target: '/api/v1/openapi.json' });
    expect(response.status).toBe(200);
    const document = JSON.parse(response.body) as { paths: Record<string, Record<string, { responses: Record<string, unknown> }>> };
    for (const [path, operations] of Object.entries(document.paths)) {
      const pattern = new RegExp(`^${path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}/?$`);
      for (const [method, operation] of Object.entries(operations)) {
        this.documented.push({
          method: method.toUpperCase(),
          pattern,
          name: `${method.toUpperCase()} ${path}`,
          statuses: new Set(Object.keys(operation.responses).map(Number)),
        });
      }
    }
  }

  /** Every operation of the OpenAPI document, as `METHOD /path`. */
  documentedOperations(): string[] {
    return this.documented.map((d) => d.name).sort();
  }

  /** Sends `request` and checks the five properties; returns the answer for further checks. */
  async exchange(request: RawRequest, options: { label?: string } = {}): Promise<RawResponse> {
    const { ctx } = this;
    // D8: a fresh window for the anonymous (per IP) and every other budget.
    ctx.clock.advance(60_001);
    ctx.queries.length = 0;
    const response = await sendRaw(this.port, request).catch((error: Error) => {
      throw new Error(`${error.message}\n${describeRequest(request)}`);
    });
    const label = options.label ?? 'request';
    const byStatus = this.statuses.get(label) ?? new Map<number, number>();
    byStatus.set(response.status, (byStatus.get(response.status) ?? 0) + 1);
    this.statuses.set(label, byStatus);

    const context = `${describeRequest(request)}\n-> ${response.status} ${response.body.slice(0, 600)}`;
    const annotate = (error: unknown) => {
      (error as Error).message = `${(error as Error).message}\n${context}`;
      return error;
    };
    let changed: string | null | undefined;
    try {
      // 1. Never a 5xx.
      expect(response.status, 'a 5xx').toBeLessThan(500);
      // 2. A documented status, and an answer that matches the document (checked in the app's onSend).
      this.expectDocumentedStatus(request, response);
      expect(ctx.contract.violations.splice(0), 'answers that drift from the OpenAPI document').toEqual([]);
      // 3. The D3 envelope.
      if (response.status >= 400 && request.method !== 'HEAD') expectEnvelope(request, response);
      // 5. No prototype polluted in this process (the app runs in it).
      expectNoPollution(this.prototypes);
      // 4. Rejected: nothing stored changed.
      changed = await this.changedRows();
      if (response.status >= 400) expect(changed, 'stored data changed by a rejected request').toBeNull();
      else if (changed !== null) await this.afterAcceptedChange(request, response);
    } catch (error) {
      throw annotate(error);
    } finally {
      // Whatever happened, the next request (and fast-check's shrinking) starts from the seeded world.
      ctx.contract.violations.splice(0);
      changed ??= await this.changedRows();
      if (changed !== null) await this.restore();
    }
    return response;
  }

  /** How the stored rows differ from the seeded baseline (`difference`), read back unless no write ran since they last matched. */
  private async changedRows(): Promise<string | null> {
    const writes = this.writes;
    if (writes === this.writesWhenUnchanged) return null;
    // Counted before the read: a write that lands during it is still unseen at the next check.
    const changed = difference(this.baseline, await readRows(this.ctx));
    if (changed === null) this.writesWhenUnchanged = writes;
    return changed;
  }

  private expectDocumentedStatus(request: RawRequest, response: RawResponse): void {
    if (isParserAnswer(response)) {
      expect(PARSER_STATUSES.has(response.status), `status ${response.status} from the HTTP parser`).toBe(true);
      return;
    }
    const path = routedPath(request.target);
    const method = request.method === 'HEAD' ? 'GET' : request.method;
    const operation = this.documented.find((d) => d.method === method && d.pattern.test(path));
    if (operation) {
      expect([...operation.statuses], `documented statuses of ${operation.name}`).toContain(response.status);
    } else if (method === 'GET' && DASHBOARD_PATHS.some((page) => page.test(path))) {
      expect([200, ...UNROUTED_STATUSES], `statuses for ${request.method} ${path}, a dashboard page`).toContain(response.status);
    } else {
      expect([...UNROUTED_STATUSES], `statuses for ${request.method} ${path}, which no operation serves`).toContain(response.status);
    }
  }

  /**
   * Property 5, on the stored side: a project that an accepted request created or changed reads back
   * with exactly the keys of the project shape (and settings with exactly D14's five), whatever
   * pollution keys the body held.
   */
  private async afterAcceptedChange(request: RawRequest, response: RawResponse): Promise<void> {
    const body = request.body === undefined ? '' : String(request.body);
    if (!/proto|constructor|prototype/.test(body)) return;
    const answer = safeJson(response.body) as { project?: { id?: string } } | undefined;
    const ids = new Set([this.world.projectId, answer?.project?.id].filter((id): id is string => typeof id === 'string'));
    for (const id of ids) {
      const read = await this.ctx.request({ method: 'GET', url: `/api/v1/projects/${id}`, token: this.world.pat });
      if (read.statusCode !== 200) continue;
      const project = read.json().data as Record<string, unknown>;
      expect(Object.keys(project).sort()).toEqual(PROJECT_KEYS);
      expect(Object.keys(project.settings as object).sort()).toEqual(Object.keys(EMPTY_SETTINGS).sort());
    }
    expect(this.ctx.contract.violations.splice(0), 'answers that drift from the OpenAPI document').toEqual([]);
  }

  /** Puts every table back as seeded: the world's ids and secrets stay valid for the next request. */
  private async restore(): Promise<void> {
    const { baseline } = this;
    await this.ctx.db.transaction().execute(async (trx) => {
      for (const table of [...TABLES].reverse()) await trx.deleteFrom(table as keyof Database).execute();
      for (const table of TABLES) {
        if (baseline[table].length > 0)
          await trx
            .insertInto(table as keyof Database)
            .values(baseline[table] as never)
            .execute();
      }
    });
  }

  /** The answers of the campaign, by label and status, for the log of a run. */
  summary(): string {
    return [...this.statuses]
      .map(
        ([label, counts]) =>
          `${label}: ${[...counts]
            .sort(([a], [b]) => a - b)
            .map(([status, n]) => `${status}x${n}`)
            .join(' ')}`,
      )
      .join('\n');
  }

  async close(): Promise<void> {
    await this.ctx.close();
  }
}

/**
 * The client-error handler answers unparsable requests outside every route and hook, writing the
 * answer to the socket itself: unlike every answer Node's HTTP server writes, it has no Date.
 */
export function isParserAnswer(response: RawResponse): boolean {
  return PARSER_STATUSES.has(response.status) && response.headers.date === undefined;
}

/** The path as the router matches it: up to `?` or `#`, percent-encoded unreserved characters decoded. */
function routedPath(target: string): string {
  return target.split(/[?#]/)[0]!.replace(/%([0-9A-Fa-f]{2})/g, (encoded, hex: string) => {
    const char = String.fromCharCode(parseInt(hex, 16));
    return /[A-Za-z0-9._~-]/.test(char) ? char : encoded;
  });
}

/** Property 3: D3's envelope, as JSON, with `success: false` under /api, and no internals. */
function expectEnvelope(request: RawRequest, response: RawResponse): void {
  expect(response.headers['content-type'], 'an error answer is JSON').toMatch(/^application\/json(; charset=utf-8)?$/);
  const body = safeJson(response.body);
  expect(body !== null && typeof body === 'object' && !Array.isArray(body), 'the error body is a JSON object').toBe(true);
  const envelope = body as Record<string, unknown>;
  expect(typeof envelope.error, 'error is a string').toBe('string');
  expect(typeof envelope.message, 'message is a string').toBe('string');
  const path = routedPath(request.target);
  const clientPath = (path === '/api' || path.startsWith('/api/')) && path !== '/api/v1' && !path.startsWith('/api/v1/');
  // The parser's answers (http/client-errors.ts) cannot know the path: they always say success: false.
  if (clientPath || isParserAnswer(response)) expect(envelope.success, 'success: false on /api (CLIENT-WIRE.md)').toBe(false);
  const allowed = ['success', 'error', 'message', 'errors', 'retry_after', 'valid'];
  for (const key of Object.keys(envelope)) expect(allowed, `key "${key}" of the error body`).toContain(key);
  if (response.status === 422) expect(typeof envelope.errors, '422 lists its field errors').toBe('object');
  expectNoInternalsIn(`${String(envelope.error)}\n${String(envelope.message)}`);
}

/** D3: never a stack trace, file path, SQL or library internals (test/helpers/contract.ts, on text). */
function expectNoInternalsIn(text: string): void {
  expect(text).not.toMatch(/\n\s+at /);
  expect(text).not.toMatch(/\.(ts|js):\d+/);
  expect(text).not.toMatch(/node_modules|\/work\/|\/src\//);
  expect(text).not.toMatch(/\bstack\b/i);
  expect(text).not.toMatch(/SQLITE_|select .* from|insert into|FST_ERR|ERR_|syntax error at/i);
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** A request, short enough for a failure message. */
function describeRequest(request: RawRequest): string {
  const body = request.body === undefined ? '' : Buffer.isBuffer(request.body) ? asText(request.body) : request.body;
  const headers = (request.headers ?? []).map(([n, v]) => `${n}: ${short(v, 120)}`).join('\n  ');
  return `${request.method} ${short(request.target, 300)}\n  ${headers}\n  body (${body.length}): ${short(body, 600)}`;
}

/** A body as text when it is UTF-8 (it round-trips), else its size (gzip and other bytes). */
function asText(bytes: Buffer): string {
  const text = bytes.toString('utf8');
  return Buffer.from(text, 'utf8').equals(bytes) ? text : `<${bytes.length} bytes>`;
}

function short(text: string, max: number): string {
  const escaped = JSON.stringify(text).slice(1, -1);
  return escaped.length <= max ? escaped : `${escaped.slice(0, max)}…(${text.length} chars)`;
}

// ---------------------------------------------------------------------------------------------
// Seed

/** A pending invitation made over the API (so as E4 stores it), its id. */
async function invite(ctx: TestContext, inviter: TestUser, teamId: number, email: string): Promise<number> {
  const response = await ctx.request({
    method: 'POST',
    url: `/api/v1/teams/${teamId}/invitations`,
    token: inviter.token,
    body: { email, role: 'member' },
  });
  if (response.statusCode !== 201) throw new Error(`seeding an invitation failed: ${response.body}`);
  return (response.json() as { invitation: { id: number } }).invitation.id;
}

/** A webhook of `projectId` made over the API (so as E6 stores it), pinged once: its id and the ping's delivery id. */
async function webhookWithDelivery(ctx: TestContext, owner: TestUser, projectId: string): Promise<[string, string]> {
  const created = await ctx.request({
    method: 'POST',
    url: `/api/v1/projects/${projectId}/webhooks`,
    token: owner.token,
    // Every event: accepted requests of the campaign write their deliveries too (rolled back with the rest).
    body: {
      url: 'https://hooks.example.com/fuzz',
      events: ['report.created', 'report.gate_failed', 'run.failed', 'project.token_regenerated', 'project.archived', 'issue.updated'],
    },
  });
  if (created.statusCode !== 201) throw new Error(`seeding a webhook failed: ${created.body}`);
  const webhookId = (created.json() as { webhook: { id: string } }).webhook.id;
  const ping = await ctx.request({ method: 'POST', url: `/api/v1/projects/${projectId}/webhooks/${webhookId}/ping`, token: owner.token });
  if (ping.statusCode !== 202) throw new Error(`seeding a delivery failed: ${ping.body}`);
  return [webhookId, (ping.json() as { data: { id: string } }).data.id];
}

/**
 * A small world (snapshots of it are taken after every request): three users, three projects, two
 * shared teams, three invitations and two webhooks with a delivery each. The owner has a Business
 * plan, so that POST /teams can succeed.
 */
async function seed(ctx: TestContext): Promise<World> {
  const owner = await ctx.given.user({ name: 'Fuzz owner', plan: 'business' });
  const outsider = await ctx.given.user({ name: 'Outsider', plan: 'business' });
  const member = await ctx.given.user({ name: 'Member' });
  const readPat = await ctx.given.token(owner, { abilities: ['read'], name: 'reader' });
  await ctx.given.token(owner, { name: 'victim' });
  const tokenIds = await ctx.db.selectFrom('personal_access_tokens').select(['id', 'user_id', 'name']).orderBy('id').execute();
  const ownerTokens = tokenIds.filter((t) => t.user_id === owner.id);
  const project = await ctx.given.project(owner, { name: 'Fuzzed', repository_url: 'https://github.com/acme/shop' });
  const archived = await ctx.given.project(owner, { name: 'Archived' });
  await ctx.db.updateTable('projects').set({ archived_at: ctx.clock.now().toISOString() }).where('id', '=', archived.project.id).execute();
  const foreign = await ctx.given.project(outsider, { name: 'Foreign' });
  const report = await ctx.given.report(project.project.id);
  const foreignReport = await ctx.given.report(foreign.project.id);
  const projectCredential = projectTokenCredential(hashToken(project.apiToken), createProjectsRepository);
  await createFailuresService({ db: ctx.db, clock: ctx.clock }).recordFailure(projectCredential, project.project.id, {
    failure_reason: 'uncaught_exception',
    error_message: 'boom',
  });
  const teamId = await ctx.given.team(owner, 'Fuzz team');
  await ctx.given.member(teamId, member, 'member');
  const foreignTeamId = await ctx.given.team(outsider, 'Foreign team');
  const teamInvitationId = await invite(ctx, owner, teamId, 'invitee@example.com');
  const ownInvitationId = await invite(ctx, outsider, foreignTeamId, owner.email);
  const foreignInvitationId = await invite(ctx, outsider, foreignTeamId, 'stranger@example.com');
  const [webhookId, deliveryId] = await webhookWithDelivery(ctx, owner, project.project.id);
  const [foreignWebhookId, foreignDeliveryId] = await webhookWithDelivery(ctx, outsider, foreign.project.id);
  const fingerprint = await reportWithIssue(ctx, project.project.id, project.apiToken);
  const connectionId = await connectionOf(ctx, owner, teamId);
  const foreignConnectionId = await connectionOf(ctx, outsider, foreignTeamId);
  return {
    owner,
    pat: owner.token,
    patId: ownerTokens[0]!.id,
    readPat,
    victimTokenId: ownerTokens.find((t) => t.name === 'victim')!.id,
    projectId: project.project.id,
    apiToken: project.apiToken,
    reportUuid: report.uuid,
    archivedProjectId: archived.project.id,
    archivedApiToken: archived.apiToken,
    badgeKey: (await ctx.db.selectFrom('projects').select('badge_key').where('id', '=', project.project.id).executeTakeFirstOrThrow())
      .badge_key,
    foreignProjectId: foreign.project.id,
    foreignReportUuid: foreignReport.uuid,
    foreignTokenId: tokenIds.find((t) => t.user_id === outsider.id)!.id,
    teamId,
    personalTeamId: owner.teamId!,
    memberUserId: member.id,
    teamInvitationId,
    ownInvitationId,
    foreignInvitationId,
    foreignTeamId,
    webhookId,
    deliveryId,
    foreignWebhookId,
    foreignDeliveryId,
    connectionId,
    foreignConnectionId,
    fingerprint,
  };
}

/** E9.1: a connection of `teamId` whose base URL is a reserved name (RFC 6761): a check never leaves the machine. */
async function connectionOf(ctx: TestContext, owner: TestUser, teamId: number): Promise<string> {
  const created = await ctx.request({
    method: 'POST',
    url: `/api/v1/teams/${teamId}/connections`,
    token: owner.token,
    body: {
      provider: 'github',
      name: 'Fuzz GitHub',
      base_url: 'https://github.invalid/api/v3',
      credentials: { token: 'ghp_fuzzworldtoken' },
    },
  });
  if (created.statusCode !== 201) throw new Error(`seeding a connection failed: ${created.body}`);
  return (created.json() as { data: { id: string } }).data.id;
}

/** An upload to the project holding an issue (through the client's endpoint, so fingerprinted as E1.2 says): its fingerprint. */
async function reportWithIssue(ctx: TestContext, projectId: string, apiToken: string): Promise<string> {
  const upload = await ctx.request({
    method: 'POST',
    url: '/api/reports',
    token: apiToken,
    body: {
      analyzed_at: '2026-11-21T09:30:00+00:00',
      results: [
        {
          analyzer_id: 'sql-injection',
          status: 'failed',
          message: 'Found 1 issue',
          issues: [{ message: 'Raw query', severity: 'high', recommendation: 'Bind it.', location: { file: 'app/A.php', line: 3 } }],
        },
      ],
    },
  });
  if (upload.statusCode !== 201) throw new Error(`seeding a report with an issue failed: ${upload.body}`);
  const row = await ctx.db
    .selectFrom('report_issues as i')
    .innerJoin('reports as r', 'r.id', 'i.report_id')
    .select('i.fingerprint')
    .where('r.project_id', '=', projectId)
    .executeTakeFirstOrThrow();
  return row.fingerprint;
}
