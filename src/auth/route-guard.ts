import type { FastifyContextConfig, FastifyRequest } from 'fastify';
import { missingAbility, subscriptionRequired, unauthenticated } from '../http/api-error.js';
import { hasAbility, type Ability } from './abilities.js';
import type { Caller } from './caller.js';

/** What a route declares it needs (D6, D7). */
export type AccessRequirement = Pick<FastifyContextConfig, 'ability' | 'subscription'>;

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * The ability this request needs when it depends on the path (E4: removing a team member takes
     * `admin`, leaving takes `write`); `ability` is the least any request to the route needs.
     */
    abilityFor?: (request: FastifyRequest) => Ability;
  }
}

/** What this request needs: the route's declaration, with the ability its path calls for. */
export function requirementOf(request: FastifyRequest): AccessRequirement {
  const { ability, subscription, abilityFor } = request.routeOptions.config;
  return { ability: ability === undefined ? undefined : (abilityFor?.(request) ?? ability), subscription };
}

/**
 * D4 steps 3-5, driven by what the route declares in its config (`ability`, `subscription`):
 * 401 without a caller, then 403 without an active subscription, then 403 without the ability.
 */
export function enforceRouteAccess(request: FastifyRequest): void {
  assertAccess(request.caller, requirementOf(request));
}

/** D4 steps 3-5 for `caller` against `requirement`; a requirement without an ability needs no caller. */
export function assertAccess(caller: Caller | null, requirement: AccessRequirement): void {
  const { ability, subscription } = requirement;
  if (ability === undefined) return;
  if (caller === null) throw unauthenticated();
  if (subscription && caller.activePlan === null) throw subscriptionRequired();
  if (!hasAbility(caller.abilities, ability)) throw missingAbility(ability);
}
