import type { FastifyRateLimitStoreCtor } from '@fastify/rate-limit';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Server } from 'node:http';
import type { DestinationStream } from 'pino';
import Fastify, {
  LogController,
  type FastifyBaseLogger,
  type FastifyReply,
  type FastifyRequest,
  type FastifyHttpOptions,
  type FastifyServerOptions,
} from 'fastify';
import { createCallerIdentifier } from './auth/identify-caller.js';
import { tokenCacheFor } from './auth/token-cache.js';
import type { TokenAuthRow } from './auth/identify-caller.js';
import type { Caller } from './auth/caller.js';
import { callerFromSessionRow } from './sessions/identify-session.js';
import fastifyCookie from '@fastify/cookie';
import { systemClock, type Clock } from './clock.js';
import { logFormatFor, type Config } from './config.js';
import { onStatementOutcome, openDatabase, type Db } from './db/database.js';
import { OutageLog } from './db/outage-log.js';
import { ApiError, badRequest, methodNotAllowed, notFound } from './wire/api-error.js';
import { answerClientError } from './http/client-errors.js';
import { registerEarlyAnswers } from './http/early-answer.js';
import type { App, RouteTableEntry } from './http/app-types.js';
import { registerErrorHandler, sendApiError } from './http/error-handler.js';
import { rejectInvalidHost } from './http/host-header.js';
import { registerJsonBodyParser } from './http/json-body.js';
import { apiAccess, NO_STORE } from './http/api-access.js';
import { trackRouteMethods } from './http/method-not-allowed.js';
import { registerOpenApi } from './http/openapi.js';
import { isRateLimited, routeKindOf } from './http/route-kind.js';
import type { StatementCounter } from './http/sql-statement-count.js';
import { loggerOptions, prettyLogStream } from './http/logging.js';
import { registerRequestLog } from './http/request-log.js';
import { registerClosingAnswer } from './http/closing-answer.js';
import { registerOperationalRoutes } from './http/operational.routes.js';
import { API_SECURITY_HEADERS, registerSecurityHeaders } from './http/security-headers.js';
import { serializerCompiler } from './wire/serialization.js';
import { validatorCompiler } from './wire/validation.js';
import { registerDeliveryMetrics } from './webhooks/delivery-metrics.js';
import { createClientApiRateLimiter } from './client-api/client-rate-limit.js';
import { dashboardRoutes } from './dashboard/dashboard.routes.js';
import { clientApiRoutes } from './client-api/client-api.routes.js';
import { createProjectIdentifier } from './client-api/identify-project.js';
import { createApiRateLimiter, registerRateLimiting } from './rate-limit/api-rate-limit.js';
import { memoryStoreOn } from './rate-limit/memory-store.js';
import { closeRedis, connectRedis, untilConnected } from './rate-limit/redis-client.js';
import { redisStoreOn, type RateLimitBackendState } from './rate-limit/redis-store.js';
import { createHeavyWork } from './reports/threads/heavy-work.js';
import { createHashingLane, type HashingLane } from './sessions/hashing-lane.js';
import { createProviderHttp, type ProviderHttp } from './connections/provider-http.js';
import { createFeatures } from './features.js';
import { registerOutboxMetrics } from './outbox/outbox-metrics.js';
import { createOutboxWorker } from './outbox/outbox-worker.js';
import { registerEmailMetrics } from './notifications/email-metrics.js';
import type { SecretBox } from './secrets/secret-box.js';
import { loadSecretKeys } from './secrets/secret-keys.js';
import { createProjectsRepository } from './projects/projects.repository.js';
import { createSessionsRepository } from './sessions/sessions.repository.js';
import { createTokensRepository } from './tokens/tokens.repository.js';
import { createSessionIdentifier } from './sessions/identify-session.js';
import { sessionSecretOf } from './sessions/session-cookie.js';
import './auth/caller.js';

/** D5: request bodies on /api/v1 may be at most 1 MiB. */
export const API_BODY_LIMIT = 1024 * 1024;

export interface AppDependencies {
  /** An open database; when omitted one is opened from `config.databaseUrl` and closed with the app. */
  db?: Db;
  clock?: Clock;
  /** Where rate-limit counters live; defaults to Redis when REDIS_URL is set, else process memory on `clock`. */
  rateLimitStore?: FastifyRateLimitStoreCtor;
  /** A logger instance; defaults to the service's own pino logger (http/logging.ts) at `config.logLevel`. */
  logger?: FastifyBaseLogger;
  /** Where the service's own logger writes (tests capture the log with it); defaults to stdout. */
  logStream?: DestinationStream;
  /** Reports each request's SQL statements in a header; `db` must report its queries to it. */
  statementCounter?: StatementCounter;
  /** Where the built dashboard is (`index.html`, `assets/`); defaults to dist/web of this package. */
  dashboardRoot?: string;
  /** Where passwords are hashed (D30); defaults to a lane of the app's own, closed with it. The caller closes one it gives. */
  hashingLane?: HashingLane;
  /** E9.2's sealed secrets; defaults to the keys the configuration names (secrets/secret-keys.ts). */
  secrets?: SecretBox;
  /** E9's provider client; defaults to one on the configuration's network rules, closed with the app. */
  providerHttp?: ProviderHttp;
}

/** Stdout, in the format the configuration and the terminal call for (config.ts, LOG_FORMAT). */
function defaultLogStream(config: Config): DestinationStream | undefined {
  if (logFormatFor(config, process.stdout.isTTY === true) === 'json') return undefined; // pino's own stdout
  return prettyLogStream({ colorize: process.stdout.isTTY === true });
}

/**
 * Builds the whole application without listening: used by `serve`, by the tests (in-process with
 * `inject` and over a socket) and by anything that needs the route table.
 *
 * A request to /api/v1 meets D4's checks in their order in http/api-access.ts; what kind of route
 * a route is (the REST API's, the client package's, a badge...) is declared once, in its config,
 * and read through http/route-kind.ts. Every feature is built in features.ts.
 *
 * The client package's endpoints under /api (client-api/) follow the same steps with the project
 * API token instead of a personal one; their order is written beside their routes. The public
 * badges under /badges (badges/public-badges.routes.ts) need no token: they count against their
 * badge key's budget, then check the Host header, then answer 404 for an unknown key (E2.3).
 */
export async function createApp(config: Config, deps: AppDependencies = {}): Promise<App> {
  const clock = deps.clock ?? systemClock;
  const db = deps.db ?? openDatabase(config);

  const options: FastifyHttpOptions<Server> = {
    // D8: off unless TRUST_PROXY says otherwise; Fastify also takes a hop count, which its types omit.
    trustProxy: config.trustProxy as FastifyServerOptions['trustProxy'],
    bodyLimit: API_BODY_LIMIT,
    // One line per request, with its route and whom it was for, instead of Fastify's two (request-log.ts).
    logController: new LogController({ disableRequestLogging: true }),
    // Slow clients (slow-loris) may not hold a connection open forever: the headers and the whole
    // request each have a deadline (config), and an idle socket is closed after a minute.
    requestTimeout: config.httpRequestTimeoutMs,
    connectionTimeout: 60_000,
    http: {
      // A missing Host is answered by host-header.ts, in the envelope, instead of Node's bare 400.
      requireHostHeader: false,
      headersTimeout: config.httpHeadersTimeoutMs,
      // Node checks those deadlines on this interval (30 s by default, which would let a slow client
      // hold a socket for up to 30 s past its deadline).
      connectionsCheckingInterval: Math.min(1_000, config.httpHeadersTimeoutMs),
    },
    routerOptions: {
      ignoreTrailingSlash: true,
      // Long path ids must reach our routes and get D11's 404 (with D8's headers), not Fastify's 414.
      maxParamLength: 8192,
    },
    // Requests Node's parser refuses (bad HTTP, 431, a slow-loris's 408) get the envelope too.
    clientErrorHandler: answerClientError,
    // A URL the router cannot decode (`/api/v1/projects/%zz`) skips every hook; answer it like the rest.
    frameworkErrors: (error, request, reply) => {
      void answerUndecodableUrl(error, request, reply);
    },
    // A request during shutdown gets the envelope with Retry-After instead (closing-answer.ts).
    return503OnClosing: false,
  };
  const app = (deps.logger
    ? Fastify({ ...options, loggerInstance: deps.logger })
    : Fastify({ ...options, logger: loggerOptions(config.logLevel, deps.logStream ?? defaultLogStream(config)) })
  ).withTypeProvider<TypeBoxTypeProvider>() as unknown as App;

  deps.statementCounter?.register(app);
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  // D38: a database outage is logged as its start, a count every 10 s and its end (db/outage-log.ts).
  const outages = new OutageLog(app.log, clock);
  const stopWatchingStatements = onStatementOutcome(db, (text, succeeded) => {
    if (succeeded) outages.statementSucceeded(text);
  });
  app.addHook('onClose', async () => {
    stopWatchingStatements();
  });
  registerErrorHandler(app, outages);
  registerRequestLog(app);
  await registerSecurityHeaders(app);
  registerClosingAnswer(app);
  registerEarlyAnswers(app, { totalMs: config.httpRequestTimeoutMs });
  app.decorateRequest('caller', null);
  app.decorateRequest('credential', null);
  // E7: the dashboard's session cookie is read from every request (sessions/session-cookie.ts).
  await app.register(fastifyCookie);
  app.removeContentTypeParser('text/plain'); // D5: the API reads JSON bodies only; anything else is a 415.
  registerJsonBodyParser(app);
  // D24: a malformed Host is refused before anything else; on the API's routes (and unknown paths
  // under /api/v1) after the rate limit instead, in their own hooks below: D8 puts its headers on
  // every /api/v1 answer.
  app.addHook('onRequest', async (request) => {
    if (!isRateLimited(request)) rejectInvalidHost(request);
  });
  if (!deps.db) app.addHook('onClose', async () => db.destroy());

  const rateLimitState: RateLimitBackendState = { backend: 'memory', degradedSince: null };

  // D4 steps 1 and 2, for every request under /api/v1, known route or not.
  // E7: a request without a bearer token may be a dashboard session (its cookie).
  const identifySession = createSessionIdentifier({
    sessions: createSessionsRepository(db),
    clock,
    secretOf: (request) => sessionSecretOf(request, config.publicUrl),
  });
  // Issue 15: on SQLite, token lookups are cached per instance until anything they read changes;
  // on PostgreSQL every lookup reads the database (token-cache.ts).
  const tokenCache = tokenCacheFor<TokenAuthRow>(db);
  const identifyCaller = createCallerIdentifier({ tokens: createTokensRepository(db), clock, identifySession, cache: tokenCache });
  const credentialStores = {
    tokenOn: (trx: Db) => (tokenId: number) => createTokensRepository(trx).findForAuthInTransaction(tokenId),
    sessionCallerOn: (trx: Db) => async (session: NonNullable<Caller['session']>, now: Date) => {
      const row = await createSessionsRepository(trx).findForAuthInTransaction(session.id);
      return row ? callerFromSessionRow(row, now, session.csrfToken) : null;
    },
    clock,
  };
  await registerRateLimiting(app, await rateLimitStoreFor(app, config, deps, clock, rateLimitState));
  const access = apiAccess({ identifyCaller, credentialStores, applyRateLimit: createApiRateLimiter(app, config.rateLimitUserBase) });

  // D6: every /api/v1 route states the ability it needs; a route that forgets fails at start-up.
  // (The older clients' upload path, `POST /api/v1/reports`, is a client-package route instead.)
  // Every route is also recorded in `app.routeTable`, which the security tests walk.
  const routeTable: RouteTableEntry[] = [];
  app.decorate('routeTable', routeTable);
  app.addHook('onRoute', (route) => {
    // The route's kind, derived once from what it declares (http/route-kind.ts).
    const kind = routeKindOf(route.config);
    route.config = { ...route.config, kind };
    routeTable.push({ method: route.method, url: route.url, config: route.config });
    if (route.url.startsWith('/api/v1/') && kind === 'page') {
      throw new Error(`${String(route.method)} ${route.url} must declare the ability it requires (config.ability)`);
    }
  });

  // RFC 9110 lets a server ignore an expectation it does not know; answering such a request like any
  // other keeps it in the envelope, where Node alone would send a bare 417 the contract does not list.
  app.server.on('checkExpectation', (request, response) => app.server.emit('request', request, response));

  const allowedMethods = trackRouteMethods(app);
  const answerUnknownRoute = async (request: FastifyRequest) => {
    // The router ignores a fragment (`#...`) as well as the query string; so must the 405 check.
    const allowed = allowedMethods(request.url.split(/[?#]/)[0]!);
    throw allowed.length > 0 ? methodNotAllowed(allowed) : notFound();
  };
  async function answerUndecodableUrl(error: Error & { code?: string }, request: FastifyRequest, reply: FastifyReply) {
    reply.headers(API_SECURITY_HEADERS);
    if (request.url.startsWith('/api/v1/')) reply.header('cache-control', NO_STORE);
    try {
      if (request.url.startsWith('/api/v1/')) await access.count(request, reply);
    } catch (limitError) {
      if (limitError instanceof ApiError) return sendApiError(reply, limitError);
      throw limitError;
    }
    return sendApiError(reply, error.code === 'FST_ERR_MAX_PARAM_LENGTH' ? notFound() : badRequest('The request URL is not valid.'));
  }

  // Registered before every route: the OpenAPI document is collected from the routes as they are added.
  await registerOpenApi(app, config);
  const metricsRegistry = registerOperationalRoutes(app, { db, clock, rateLimitState });
  // E6: the delivery worker (started by `serve`, main.ts) counts its attempts here.
  app.decorate('webhookMetrics', registerDeliveryMetrics(metricsRegistry, { db, clock }));

  // D28: large uploads and report answers are prepared on worker threads, started when first needed.
  const heavyWork = createHeavyWork(config);
  app.addHook('onClose', async () => heavyWork.close());
  const hashingLane = deps.hashingLane ?? createHashingLane();
  if (!deps.hashingLane) app.addHook('onClose', async () => hashingLane.close());
  const secrets = deps.secrets ?? loadSecretKeys(config).box;
  const providerHttp =
    deps.providerHttp ?? createProviderHttp({ allowPrivateNetworks: config.webhookAllowPrivateNetworks, now: () => clock.now() });
  if (!deps.providerHttp) app.addHook('onClose', async () => providerHttp.close());
  const features = createFeatures({
    db,
    clock,
    config,
    heavyWork,
    passwords: hashingLane,
    secrets,
    providerHttp,
    // E11.4: what became of each email, on /metrics.
    onEmail: registerEmailMetrics(metricsRegistry),
  });
  app.addHook('onClose', async () => features.notifications.close());
  app.decorate('weeklyDigest', features.notifications.weeklyDigest);
  // The outbox's worker (calls to providers): started and stopped by `serve` (main.ts), driven a
  // round at a time by tests; its attempts are counted on /metrics.
  const outboxMetrics = registerOutboxMetrics(metricsRegistry, { db, clock });
  app.decorate(
    'outboxWorker',
    createOutboxWorker({
      db,
      clock,
      logger: app.log,
      handlers: features.outboxHandlers,
      concurrency: config.webhookConcurrency,
      onAttempt: outboxMetrics.onAttempt,
    }),
  );
  await app.register(
    async (v1: App) => {
      v1.decorateRequest('project', null);
      v1.decorateRequest('report', null);
      // D4's checks, in its order (http/api-access.ts).
      access.guard(v1);
      // Unknown paths and methods under /api/v1 are counted and carry the rate-limit headers too (D8).
      v1.setNotFoundHandler(answerUnknownRoute);
      for (const routes of features.v1Routes) await v1.register(routes);
    },
    { prefix: '/api/v1' },
  );

  // The client package's endpoints (CLIENT-WIRE.md), authenticated by the project API token.
  await app.register(clientApiRoutes, {
    prefix: '/api',
    identifyProject: createProjectIdentifier({ projects: createProjectsRepository(db), projectsOn: createProjectsRepository }),
    applyRateLimit: createClientApiRateLimiter(app, config.uploadRateLimit),
    reportsService: features.reports.service,
    failuresService: features.failures.service,
    heavyWork,
    config,
  });

  // E2.3: README images, no token; D8's per-IP budget does not apply, each badge key has its own.
  await app.register(features.badges.publicRoutes, { prefix: '/badges' });
  // E11.3: the emails' one-click unsubscribe links, no token: the link's signed token is the credential.
  await app.register(features.notifications.unsubscribeRoutes);
  // E7: the dashboard's pages and assets, for people; it calls /api/v1 like any other client.
  await app.register(dashboardRoutes, { root: deps.dashboardRoot });

  app.setNotFoundHandler(answerUnknownRoute);
  return app;
}

/** D8: counters in Redis when REDIS_URL is set (shared by every instance), else in this process. */
async function rateLimitStoreFor(
  app: App,
  config: Config,
  deps: AppDependencies,
  clock: Clock,
  state: RateLimitBackendState,
): Promise<FastifyRateLimitStoreCtor> {
  if (deps.rateLimitStore) return deps.rateLimitStore;
  if (config.redisUrl === undefined) return memoryStoreOn(clock);
  const redis = connectRedis(config.redisUrl, config.redisCommandTimeoutMs);
  app.addHook('onClose', async () => closeRedis(redis));
  await untilConnected(redis, 2_000);
  state.backend = 'redis';
  return redisStoreOn({ redis, clock, keyPrefix: config.redisKeyPrefix, logger: app.log, state });
}
