import { timingSafeEqual } from 'node:crypto';
import type { FastifyContextConfig, FastifyRequest } from 'fastify';
import { csrfTokenMismatch, missingAbility, subscriptionRequired, unauthenticated } from '../wire/api-error.js';
import { hasAbility } from './abilities.js';
import type { Caller } from './caller.js';

/** What a route declares it needs (D6, D7). */
export type AccessRequirement = Pick<FastifyContextConfig, 'ability' | 'subscription'>;

/** What this request needs: the route's declaration, with the ability its path calls for. */
export function requirementOf(request: FastifyRequest): AccessRequirement {
  const { ability, subscription, abilityFor } = request.routeOptions.config;
  return { ability: ability === undefined ? undefined : (abilityFor?.(request) ?? ability), subscription };
}

/**
 * D4 steps 3-5, driven by what the route declares in its config (`ability`, `subscription`):
 * 401 without a caller, then (E7) 403 for a session's request that may change something without its
 * CSRF token, then 403 without an active subscription, then 403 without the ability.
 */
export function enforceRouteAccess(request: FastifyRequest): void {
  const requirement = requirementOf(request);
  const { caller } = request;
  const sessionRoute = request.routeOptions.config.sessionRoute;
  // E7's own routes (the session, sign-out) are a session's only: a token has no session to show or end.
  if (sessionRoute === 'signed-in' && !caller?.session) throw unauthenticated();
  if ((requirement.ability !== undefined || sessionRoute === 'signed-in') && caller?.session && !SAFE_METHODS.has(request.method)) {
    if (!isCsrfTokenOf(caller.session.csrfToken, request.headers['x-csrf-token'])) throw csrfTokenMismatch();
  }
  assertAccess(caller, requirement);
}

/** Methods that change nothing: a session's GET needs no CSRF token (E7: "every non-GET request"). */
const SAFE_METHODS = new Set(['GET', 'HEAD']);

/** D4 steps 3-5 for `caller` against `requirement`; a requirement without an ability needs no caller. */
export function assertAccess(caller: Caller | null, requirement: AccessRequirement): void {
  const { ability, subscription } = requirement;
  if (ability === undefined) return;
  if (caller === null) throw unauthenticated();
  if (subscription && caller.activePlan === null) throw subscriptionRequired();
  if (!hasAbility(caller.abilities, ability)) throw missingAbility(ability);
}

/** Whether `header` is the session's CSRF token, compared in constant time. */
export function isCsrfTokenOf(expected: string, header: string | string[] | undefined): boolean {
  if (typeof header !== 'string') return false;
  const a = Buffer.from(header);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}
