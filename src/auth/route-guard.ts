import type { FastifyContextConfig, FastifyRequest } from 'fastify';
import { missingAbility, subscriptionRequired, unauthenticated } from '../http/api-error.js';
import { hasAbility } from './abilities.js';
import type { Caller } from './caller.js';

/** What a route declares it needs (D6, D7). */
export type AccessRequirement = Pick<FastifyContextConfig, 'ability' | 'subscription'>;

/**
 * D4 steps 3-5, driven by what the route declares in its config (`ability`, `subscription`):
 * 401 without a caller, then 403 without an active subscription, then 403 without the ability.
 */
export function enforceRouteAccess(request: FastifyRequest): void {
  assertAccess(request.caller, request.routeOptions.config);
}

/** D4 steps 3-5 for `caller` against `requirement`; a requirement without an ability needs no caller. */
export function assertAccess(caller: Caller | null, requirement: AccessRequirement): void {
  const { ability, subscription } = requirement;
  if (ability === undefined) return;
  if (caller === null) throw unauthenticated();
  if (subscription && caller.activePlan === null) throw subscriptionRequired();
  if (!hasAbility(caller.abilities, ability)) throw missingAbility(ability);
}
