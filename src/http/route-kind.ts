import type { FastifyContextConfig, FastifyRequest } from 'fastify';
import type { Ability } from '../auth/abilities.js';

/*
 * What a route is, declared once. Every key a route may put in its `config` is listed here; its
 * kind is derived from them when the route is added (app.ts), and the request pipeline, the rate
 * limiters, the error handler and the OpenAPI document all read that one answer.
 */

/** The rate-limit budgets of a project's client calls, each CLIENT-WIRE.md's per-project limit. */
export type ClientRateGroup = 'reports' | 'failures' | 'reads';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The ability the route requires (D6); routes without it need no token. */
    ability?: Ability;
    /**
     * The ability this request needs when it depends on the path (E4: removing a team member takes
     * `admin`, leaving takes `write`); `ability` is the least any request to the route needs.
     */
    abilityFor?: (request: FastifyRequest) => Ability;
    /** Whether the route requires an active subscription (D7). */
    subscription?: boolean;
    /** Marks a client-package route: project-token authentication and `{success, message}` answers. */
    clientApi?: {
      rateGroup: ClientRateGroup;
      /** Extra fields of this route's 401 body (`/api/token/verify` says `valid: false`). */
      unauthenticatedBody?: Record<string, unknown>;
    };
    /**
     * E7's own routes: `sign-in` needs no credential and identifies none (counted against the client
     * IP like any anonymous request, D8, whatever token or cookie it carries, D29); `signed-in`
     * needs a dashboard session, not a token (auth/route-guard.ts).
     */
    sessionRoute?: 'sign-in' | 'signed-in';
    /** The route hashes a password (E7): when D30's hashing lane is full, its 503 carries Retry-After. */
    hashesPassword?: true;
    /** A public badge (E2.3): no token; the badge key in the URL is all it needs, and it is rate limited per key. */
    publicBadge?: true;
    /** A document anyone may read: no token, not rate limited (the OpenAPI document). */
    publicDocument?: true;
    /** For the OpenAPI document: the route's own 403s of state (D4 step 8), each as `` `Forbidden`: why ``. */
    forbiddenWhen?: readonly string[];
    /** For the OpenAPI document: the route's own budget besides D8's, as the end of "over the rate limit, or …". */
    tooManyWhen?: string;
    /** For the OpenAPI document: the route's 409 (its fixed message) and when it is answered. */
    conflictWhen?: { message: string; why: string; extra?: Record<string, unknown> };
    /**
     * For the OpenAPI document: the route's 502 (a provider it calls refused, or did not answer in
     * time), when it is answered, and the fields the body adds (TypeBox schemas).
     */
    badGatewayWhen?: { example: string; why: string; extra?: Record<string, unknown> };
    /** For the OpenAPI document: why a route without a path resource answers 404 (a body naming something). */
    notFoundWhen?: string;
    /** The headers of the route's own `helmet` policy, computed when the route is added (security-headers.ts). */
    securityHeaders?: Readonly<Record<string, string>>;
    /** Derived when the route is added (`routeKindOf`); never written by a route. */
    kind?: RouteKind;
  }
}

/**
 * - `v1`: the REST API (D4's order, a personal access token or a session);
 * - `sign-in`, `session`: E7's sign-in, and the routes only a dashboard session may call;
 * - `client`: the client package's (CLIENT-WIRE.md: a project API token, `{success, message}` answers);
 * - `badge`: a public badge (E2.3, counted per badge key);
 * - `document`: the OpenAPI document; `page`: anything else (the dashboard, health, metrics).
 */
/**
 * D7: the configs of the REST API routes that need an active subscription (projects, what they
 * hold, teams), by the ability each needs (D6).
 */
export const SUBSCRIBED = {
  read: { ability: 'read', subscription: true },
  write: { ability: 'write', subscription: true },
  admin: { ability: 'admin', subscription: true },
} as const;

export type RouteKind = 'v1' | 'sign-in' | 'session' | 'client' | 'badge' | 'document' | 'page';

/** A route's kind, from its declaration. */
export function routeKindOf(config: FastifyContextConfig | undefined): RouteKind {
  const declared = config ?? {};
  if (declared.clientApi !== undefined) return 'client';
  if (declared.sessionRoute !== undefined) return declared.sessionRoute === 'sign-in' ? 'sign-in' : 'session';
  if (declared.ability !== undefined) return 'v1';
  if (declared.publicBadge !== undefined) return 'badge';
  if (declared.publicDocument !== undefined) return 'document';
  return 'page';
}

/** The request's path, without query string or fragment (the router ignores both). */
const pathOf = (request: FastifyRequest) => request.url.split(/[?#]/, 1)[0]!;

/**
 * The kind of the route a request reached; for a request no route matched (or whose URL the router
 * could not read), the kind its path belongs to: under `/api/v1/` the REST API's, elsewhere under
 * `/api` the client package's (its answers keep the client's `{success, message}` shape), else a page.
 */
export function kindOf(request: FastifyRequest): RouteKind {
  const config = request.routeOptions?.config;
  const declared = request.is404 || config === undefined ? 'page' : (config.kind ?? routeKindOf(config));
  if (declared !== 'page') return declared;
  const path = pathOf(request);
  if (path.startsWith('/api/v1/')) return 'v1';
  if ((path === '/api' || path.startsWith('/api/')) && path !== '/api/v1') return 'client';
  return 'page';
}

/** Whether the client package gets this answer (CLIENT-WIRE.md: `success` and `message` in every body). */
export function answersClientPackage(request: FastifyRequest): boolean {
  return kindOf(request) === 'client';
}

/** Kinds whose own hooks count each request against a rate limit first (D8, CLIENT-WIRE.md, E2.3). */
const RATE_LIMITED: ReadonlySet<RouteKind> = new Set(['v1', 'sign-in', 'session', 'client', 'badge']);

/**
 * Whether the request is counted against a rate limit by its route's own hooks: a rate-limited
 * kind's routes, and (D8) any path under `/api/v1/`, known or not. Everything else has its Host
 * header checked first (D24), before any hook of a route.
 */
export function isRateLimited(request: FastifyRequest): boolean {
  if (request.is404) return pathOf(request).startsWith('/api/v1/');
  return RATE_LIMITED.has(kindOf(request));
}
