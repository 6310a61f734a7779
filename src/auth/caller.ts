import type { Plan } from '../db/schema.js';
import type { Ability } from './abilities.js';

/** Who is calling, as established from a valid personal access token (D4 step 1). */
export interface Caller {
  userId: number;
  /** As stored when the token was read (for audit events, E5). */
  email: string;
  tokenId: number;
  abilities: Ability[];
  currentTeamId: number | null;
  /** The plan of the user's active subscription (D7), or null when there is none. */
  activePlan: Plan | null;
}

declare module 'fastify' {
  interface FastifyRequest {
    caller: Caller | null;
  }
  interface FastifyContextConfig {
    /** The ability the route requires (D6); routes without it need no token. */
    ability?: Ability;
    /** Whether the route requires an active subscription (D7). */
    subscription?: boolean;
  }
}
