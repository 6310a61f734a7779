import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { HTTPMethods, InjectOptions, LightMyRequestResponse } from 'fastify';
import { v7 as uuidv7 } from 'uuid';
import { createAccountsRepository } from '../../src/accounts/accounts.repository.js';
import type { Ability } from '../../src/auth/abilities.js';
import { createApp, type AppDependencies } from '../../src/app.js';
import { loadConfig, type Config } from '../../src/config.js';
import { createSecretBox, parseSecretKey, type SecretBox } from '../../src/secrets/secret-box.js';
import { loadSecretKeys } from '../../src/secrets/secret-keys.js';
import type { Clock } from '../../src/clock.js';
import { openDatabase, type Db } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/migrate.js';
import type { Database, Plan, TeamRole } from '../../src/db/schema.js';
import type { App } from '../../src/http/app-types.js';
import type { CreateProjectBody, Project } from '../../src/projects/projects.schemas.js';
import { createHeavyWork } from '../../src/reports/threads/heavy-work.js';
import { createFeatures } from '../../src/features.js';
import { operatorFeatures } from '../../src/operator-features.js';
import { createTeamsRepository } from '../../src/teams/teams.repository.js';
import type { ReportToStore } from '../../src/reports/reports.service.js';
import { createSessionsService } from '../../src/sessions/sessions.service.js';
import { FakeClock } from './fake-clock.js';
import { ContractChecker } from './openapi-contract.js';
import { createMigratedTestStore, type TestStore } from './test-backend.js';

export interface TestUser {
  id: number;
  email: string;
  /** The personal team, null for `withTeam: false`. */
  teamId: number | null;
  /** The first token (from the same code path as `scoreboard users:create`). */
  token: string;
}

export interface TestContext {
  app: App;
  db: Db;
  clock: FakeClock;
  config: Config;
  /** The app's sealed-secret box (E9.2): from the configuration (secret.key beside SQLite's file), unless `deps.secrets`. */
  secrets: SecretBox;
  /** Where the app keeps its data (a SQLite file, or a PostgreSQL schema and Redis prefix). */
  store: TestStore;
  /** Every SQL statement the app and the factories have run, in order (for query-count checks). */
  queries: string[];
  /** Calls `listener` with each statement's SQL right after it ran, until the returned function is called. */
  onQuery(listener: (sql: string) => void): () => void;
  given: ReturnType<typeof factories>;
  /** Checks every answer against the OpenAPI document (issue 5); violations fail `close()`. */
  contract: ContractChecker;
  /** `app.inject` with an optional bearer token and JSON body. */
  request(options: RequestOptions): Promise<LightMyRequestResponse>;
  close(): Promise<void>;
}

export interface RequestOptions {
  /** Any method Fastify routes, TRACE included (light-my-request's own type omits it, but sends it). */
  method: HTTPMethods;
  url: string;
  /** Sent as `Authorization: Bearer <token>`. */
  token?: string;
  /** Serialised as JSON with `Content-Type: application/json`. */
  body?: unknown;
  headers?: Record<string, string>;
  remoteAddress?: string;
}

/**
 * A real app on a fresh, migrated store (SQLite file, or PostgreSQL schema + Redis prefix, see
 * test-backend.ts), with a fake clock. Nothing is mocked.
 */
/**
 * The statements that identify a caller by personal token: the token cache's change counter (SQLite),
 * the lookup itself (on SQLite, not run when the cache holds the token) and D9's once-a-minute
 * last_used_at write. Tests that compare what two requests cost leave them out: they are the same whatever the
 * requests read, but depend on what earlier requests left in the cache.
 */
export const IDENTIFICATION_STATEMENT = /"auth_changes"|"t"\."token_hash" = |update "personal_access_tokens" set "last_used_at"/;

/** The SECRET_KEY of the tests' PostgreSQL apps: 32 bytes, base64. */
export const TEST_SECRET_KEY = Buffer.alloc(32, 7).toString('base64');

export async function buildTestApp(
  options: { env?: Record<string, string>; deps?: Omit<AppDependencies, 'db' | 'clock'> } = {},
): Promise<TestContext> {
  const dir = mkdtempSync(join(tmpdir(), 'scoreboard-test-'));
  const store = await createMigratedTestStore(dir);
  // E9.2: a PostgreSQL deployment needs SECRET_KEY to store a connection (SQLite makes secret.key
  // beside its file); a test without one says `SECRET_KEY: ''`.
  const keyed = store.env.DATABASE_URL?.startsWith('postgres') ? { SECRET_KEY: TEST_SECRET_KEY } : {};
  const config = loadConfig({ ...store.env, ...keyed, DATABASE_POOL_MAX: '4', LOG_LEVEL: 'silent', ...options.env });
  const queries: string[] = [];
  const queryListeners = new Set<(sql: string) => void>();
  const db = openDatabase(config, {
    onQuery: (event) => {
      queries.push(event.query.sql);
      for (const listener of queryListeners) listener(event.query.sql);
    },
  });
  const clock = new FakeClock();
  let app: App;
  let contract: ContractChecker | undefined;
  let secrets: SecretBox;
  try {
    secrets = options.deps?.secrets ?? loadSecretKeys(config).box;
    await migrateToLatest(db, { secrets });
    app = await createApp(config, { db, clock, ...options.deps, secrets });
    // Issue 5: every answer is checked against the OpenAPI document (read once the app is ready).
    app.addHook('onSend', async (request, reply, payload) => {
      contract?.check(request, reply, payload);
      return payload;
    });
    await app.ready();
    contract = await ContractChecker.forApp(app, JSON.stringify(options.env ?? {}));
  } catch (error) {
    // A setup that fails leaves no schema, key or file behind.
    await db.destroy();
    await store.drop();
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }

  return {
    app,
    db,
    clock,
    config,
    secrets,
    store,
    queries,
    onQuery(listener) {
      queryListeners.add(listener);
      return () => queryListeners.delete(listener);
    },
    given: factories(db, clock, secrets),
    request: (opts) => send(app, opts),
    contract: contract!,
    async close() {
      await app.close();
      await db.destroy();
      await store.drop();
      rmSync(dir, { recursive: true, force: true });
      if (contract!.violations.length > 0) {
        throw new Error(`responses that drift from the OpenAPI document:\n${contract!.violations.join('\n')}`);
      }
    },
  };
}

/** How many rows `table` holds now (e.g. to prove that a refused request stored nothing). */
export async function countRows(db: Db, table: keyof Database): Promise<number> {
  const { n } = await db
    .selectFrom(table)
    .select((eb) => eb.fn.countAll().as('n'))
    .executeTakeFirstOrThrow();
  return Number(n);
}

/** The id of the user's token: the first one, or the one named `name`. */
export async function tokenIdOf(ctx: TestContext, user: TestUser, name?: string): Promise<number> {
  return (
    await ctx.db
      .selectFrom('personal_access_tokens')
      .select('id')
      .where('user_id', '=', user.id)
      .$if(name !== undefined, (query) => query.where('name', '=', name!))
      .orderBy('id')
      .executeTakeFirstOrThrow()
  ).id;
}

/** Listens on a free port of 127.0.0.1, for tests over a real socket; returns the port. */
export async function listenOnLoopback(ctx: TestContext): Promise<number> {
  await ctx.app.listen({ port: 0, host: '127.0.0.1' });
  const address = ctx.app.server.address();
  if (address === null || typeof address === 'string') throw new Error('expected a TCP address');
  return address.port;
}

export async function send(app: App, options: RequestOptions): Promise<LightMyRequestResponse> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`;
  let payload: string | undefined;
  if (options.body !== undefined) {
    headers['content-type'] ??= 'application/json';
    payload = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
  }
  return app.inject({
    method: options.method as InjectOptions['method'],
    url: options.url,
    headers,
    payload,
    remoteAddress: options.remoteAddress,
  });
}

/** Factories: each test creates exactly the users, teams, tokens, projects and reports it needs. */
function factories(db: Db, clock: FakeClock, secrets: SecretBox) {
  const { accounts } = operatorFeatures(db, clock);
  const { projects, reports } = servicesOn(db, clock, secrets);
  let sequence = 0;

  return {
    async user(
      options: { plan?: Plan | null; withTeam?: boolean; abilities?: Ability[]; email?: string; name?: string } = {},
    ): Promise<TestUser> {
      sequence += 1;
      const created = await accounts.createUser({
        email: options.email ?? `user${sequence}-${Math.random().toString(36).slice(2, 8)}@example.com`,
        name: options.name ?? null,
        plan: options.plan === undefined ? 'solo' : options.plan,
        withTeam: options.withTeam ?? true,
        abilities: options.abilities ?? ['read', 'write', 'admin'],
      });
      return { id: created.user.id, email: created.user.email, teamId: created.team?.id ?? null, token: created.token };
    },

    /** Another token for the user, made like `scoreboard tokens:create` (no limit, any expiry). */
    async token(user: TestUser, options: { abilities?: Ability[]; expiresAt?: Date | null; name?: string } = {}) {
      const created = await accounts.createToken({
        email: user.email,
        name: options.name ?? 'test token',
        abilities: options.abilities ?? ['read', 'write', 'admin'],
        expiresAt: options.expiresAt ?? null,
      });
      return created.token;
    },

    /** A dashboard password for the user, set like `scoreboard users:password` (E7). */
    async password(user: TestUser, password: string) {
      await createSessionsService({ db, clock }).setPassword(user.email, password);
    },

    async team(owner: TestUser, name = 'Second team'): Promise<number> {
      return (await accounts.createTeam(owner.email, name)).id;
    },

    async member(teamId: number, user: TestUser, role: TeamRole, options: { makeCurrent?: boolean } = {}) {
      await accounts.addMember(teamId, user.email, role);
      if (options.makeCurrent ?? true) await accounts.switchTeam(user.email, teamId);
    },

    /**
     * A user with `role` in `owner`'s personal team, that team current: the owner themself for
     * `owner` (a personal team is never handed over, D34), else a new user added with that role.
     */
    async inRole(owner: TestUser, role: TeamRole): Promise<TestUser> {
      if (role === 'owner') return owner;
      const user = await this.user();
      await this.member(owner.teamId!, user, role);
      return user;
    },

    async plan(user: TestUser, plan: Plan | null) {
      await accounts.setPlan(user.email, plan);
    },

    /** A project in `teamId` (the user's personal team by default), created through the service. */
    async project(owner: TestUser | number, input: Partial<CreateProjectBody> = {}): Promise<{ project: Project; apiToken: string }> {
      const teamId = typeof owner === 'number' ? owner : owner.teamId;
      if (teamId === null) throw new Error('the user has no team');
      return projects.createProjectInTeam(teamId, { name: 'Project', framework_version: '11', ...input });
    },

    /** Stores a report through the service that keeps latest_report (D19) up to date. */
    async report(projectId: string, overrides: Partial<ReportToStore> = {}): Promise<{ id: number; uuid: string }> {
      const uuid = uuidv7();
      const at = clock.now().toISOString();
      const id = await reports.storeReport({
        uuid,
        project_id: projectId,
        score: 80,
        total: 10,
        passed: 8,
        failed: 1,
        warnings: 1,
        skipped: 0,
        errors: 0,
        total_issues: 3,
        issues_critical: 1,
        issues_high: 1,
        issues_medium: 1,
        issues_low: 0,
        issues_info: 0,
        framework_version: '11.44.2',
        package_version: 'v1.13.3',
        total_execution_time: 1.25,
        triggered_by: 'manual',
        analyzed_at: at,
        created_at: at,
        metadata: '{}',
        pro_package_version: null,
        client_summary: null,
        configuration: null,
        ...overrides,
      });
      return { id, uuid };
    },

    async deleteReport(report: { id: number }, projectId: string) {
      await reports.deleteReport({ id: report.id, project_id: projectId });
    },

    accounts: createAccountsRepository(db),
    teams: createTeamsRepository(db),
  };
}

/**
 * The services of every feature on `db` (a transaction too), composed as the app composes them
 * (src/features.ts); stored reports are prepared on the test's own thread, their answers built at
 * their first read.
 */
export function servicesOn(db: Db, clock: FakeClock | Clock, secrets: SecretBox = createSecretBox(parseSecretKey(TEST_SECRET_KEY))) {
  const features = createFeatures({
    db,
    clock,
    config: loadConfig({ DATABASE_URL: 'sqlite::memory:', LOG_LEVEL: 'silent' }),
    secrets,
    heavyWork: createHeavyWork({ workerThreads: 0, workerQueueMax: 1, workerInlineMaxBytes: 0 }),
  });
  return {
    ...operatorFeatures(db, clock),
    projects: features.projects.service,
    reports: features.reports.service,
    teams: features.teams.service,
    tokens: features.tokens.service,
    failures: features.failures.service,
  };
}

/** Parses a JSON response body. */
export function json<T = any>(response: LightMyRequestResponse): T {
  return response.json() as T;
}
