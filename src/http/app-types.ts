import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type {
  FastifyBaseLogger,
  FastifyContextConfig,
  HTTPMethods,
  FastifyInstance,
  FastifyRequest,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerDefault,
} from 'fastify';
import type { Caller } from '../auth/caller.js';
import { unauthenticated } from '../wire/api-error.js';

/** The Fastify instance with TypeBox inference, as every feature's routes receive it. */
export type App = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>;

/** The caller of a route that declares an ability; the route guard has already answered 401 otherwise. */
export function callerOf(request: FastifyRequest): Caller {
  if (request.caller === null) throw unauthenticated();
  return request.caller;
}

/** One route as registered: what it answers and what its config declares (ability, client API...). */
export interface RouteTableEntry {
  readonly method: HTTPMethods | HTTPMethods[];
  readonly url: string;
  readonly config: FastifyContextConfig;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Every route the app registered, in order (HEAD routes included). */
    routeTable: readonly RouteTableEntry[];
  }

  /** OpenAPI annotations carried by route schemas. */
  interface FastifySchema {
    tags?: string[];
    summary?: string;
    description?: string;
    hide?: boolean;
  }
}
