import type { Clock } from '../clock.js';
import type { Db } from '../db/database.js';
import { tokensRoutes } from './tokens.routes.js';
import { createTokensService } from './tokens.service.js';

/** D9: personal access tokens (`/user/tokens`). */
export function tokensModule(deps: { db: Db; clock: Clock }) {
  const service = createTokensService(deps);
  return { service, routes: (app: Parameters<typeof tokensRoutes>[0]) => tokensRoutes(app, { tokensService: service }) };
}
