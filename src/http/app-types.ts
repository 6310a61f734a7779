import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type {
  FastifyBaseLogger,
  FastifyContextConfig,
  HTTPMethods,
  FastifyInstance,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerDefault,
} from 'fastify';

/** The Fastify instance with TypeBox inference, as every feature's routes receive it. */
export type App = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>;

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
