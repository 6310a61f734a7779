import type { FastifyRequest } from 'fastify';
import { missingAbility, subscriptionRequired, unauthenticated } from '../http/api-error.js';
import { hasAbility } from './abilities.js';

/**
 * D4 steps 3-5, driven by what the route declares in its config (`ability`, `subscription`):
 * 401 without a caller, then 403 without an active subscription, then 403 without the ability.
 */
export function enforceRouteAccess(request: FastifyRequest): void {
  const { ability, subscription } = request.routeOptions.config;
  if (ability === undefined) return;
  const caller = request.caller;
  if (caller === null) throw unauthenticated();
  if (subscription && caller.activePlan === null) throw subscriptionRequired();
  if (!hasAbility(caller.abilities, ability)) throw missingAbility(ability);
}
