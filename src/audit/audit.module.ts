import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import type { Db } from '../db/database.js';
import { auditRoutes, type TeamManagerCheck } from './audit.routes.js';
import { createAuditService } from './audit.service.js';

/** E5: the team's and the user's audit lists. */
export function auditModule(deps: { db: Db; clock: Clock; config: Config; teams: TeamManagerCheck }) {
  const service = createAuditService(deps);
  return {
    service,
    routes: (app: Parameters<typeof auditRoutes>[0]) => auditRoutes(app, { auditService: service, teams: deps.teams, config: deps.config }),
  };
}
