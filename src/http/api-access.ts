import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Caller } from '../auth/caller.js';
import { enforceRouteAccess, requirementOf } from '../auth/route-guard.js';
import { callerCredential, type CredentialStores, originOf } from '../auth/write-credential.js';
import type { ApplyRateLimit } from '../rate-limit/api-rate-limit.js';
import type { App } from './app-types.js';
import { rejectInvalidHost } from './host-header.js';
import { carriesBody, normalizeJsonBody } from './json-body.js';
import { kindOf } from './route-kind.js';

/** D36: what every /api/v1 answer says about caching. */
export const NO_STORE = 'no-store';

/**
 * The REST API's checks of who is calling and what they may do, in D4's order. Read top to bottom:
 *
 *   onRequest      1   identify the caller (never rejects): a bearer token, else the dashboard's
 *                      session cookie (E7); never on sign-in (D29)    `identifyCaller`
 *                  2   count the request against its budget (429)    `applyRateLimit` (D8)
 *                      then a malformed Host header (400, D24)        host-header.ts
 *                  3-5 401, a session's write without its CSRF token (403, E7), 403 subscription,
 *                      403 ability, from the route's config           auth/route-guard.ts
 *   parsing        6   415, 413, 400 from the body parser             json-body.ts
 *   preValidation  1-5 again when a body arrived, which may have taken long enough for the token to
 *                      be revoked (D22); then JSON bodies trimmed (D12); the routes' own steps (7
 *                      404 of the path resource, 8 403s of state) come after these
 *   validation     9   422 from the route's schema
 *
 * Writes check the credential a third time in their own transaction (auth/write-credential.ts).
 */
export function apiAccess(deps: {
  identifyCaller: (request: FastifyRequest) => Promise<Caller | null>;
  credentialStores: CredentialStores;
  applyRateLimit: ApplyRateLimit;
}) {
  async function identify(request: FastifyRequest): Promise<void> {
    // D29: a sign-in acts for no one, so it never counts against a user whose token or cookie it
    // carries (1,200 guesses a minute on an Enterprise plan): only the address's budget applies.
    const caller = kindOf(request) === 'sign-in' ? null : await deps.identifyCaller(request);
    request.caller = caller;
    request.credential = caller && callerCredential(caller, requirementOf(request), deps.credentialStores, originOf(request));
  }

  /** D4 steps 1 and 2: also for a request under /api/v1 no route answers, or whose URL cannot be read. */
  async function count(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    await identify(request);
    await deps.applyRateLimit(request, reply);
  }

  /** The hooks of the scope that holds the REST API's routes, and its unknown paths. */
  function guard(scope: App): void {
    scope.addHook('onRequest', async (request, reply) => {
      // D36: no answer of the REST API is kept by a shared cache or the browser's (errors included).
      reply.header('cache-control', NO_STORE);
      await count(request, reply);
      rejectInvalidHost(request);
      enforceRouteAccess(request);
    });
    scope.addHook('preValidation', async (request) => {
      if (!carriesBody(request)) return;
      await identify(request);
      enforceRouteAccess(request);
    });
    scope.addHook('preValidation', normalizeJsonBody);
  }

  return { count, guard };
}
