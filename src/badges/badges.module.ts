import type { ProjectContentsDeps } from '../projects/projects.service.js';
import { createBadgeRateLimiter } from './badge-rate-limit.js';
import { badgesRoutes } from './badges.routes.js';
import { createBadgesService } from './badges.service.js';
import { publicBadgeRoutes } from './public-badges.routes.js';

/** E2.3: a project's badge URLs (REST API) and the badges themselves (`/badges`, no token). */
export function badgesModule(deps: ProjectContentsDeps) {
  const service = createBadgesService({ ...deps, projectForWrite: deps.projects.lockForWrite });
  return {
    service,
    routes: (app: Parameters<typeof badgesRoutes>[0]) =>
      badgesRoutes(app, { badgesService: service, projectsService: deps.projects, config: deps.config }),
    /** Each badge key counts against its own budget (E2.3), not D8's per-IP one. */
    publicRoutes: (app: Parameters<typeof publicBadgeRoutes>[0]) =>
      publicBadgeRoutes(app, { badgesService: service, applyRateLimit: createBadgeRateLimiter(app, deps.config.badgeRateLimit) }),
  };
}
