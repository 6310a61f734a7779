import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import type { Db } from '../db/database.js';
import type { PasswordHasher } from './password-hash.js';
import { sessionsRoutes } from './sessions.routes.js';
import { createSessionsService } from './sessions.service.js';

/** E7: the dashboard's sign-in, sessions and password. */
export function sessionsModule(deps: { db: Db; clock: Clock; config: Config; passwords: PasswordHasher }) {
  const service = createSessionsService(deps);
  return {
    service,
    routes: (app: Parameters<typeof sessionsRoutes>[0]) => sessionsRoutes(app, { sessionsService: service, config: deps.config }),
  };
}
