import type { ProjectContentsDeps } from '../projects/projects.service.js';
import type { SecretBox } from '../secrets/secret-box.js';
import { webhooksRoutes } from './webhooks.routes.js';
import { createWebhooksService } from './webhooks.service.js';
import { webhookSecrets } from './webhook-secrets.js';

/** E6: a project's webhooks and their deliveries (the worker runs in `serve`, main.ts). */
export function webhooksModule(deps: ProjectContentsDeps & { secrets: SecretBox }) {
  const service = createWebhooksService({
    ...deps,
    projectForWrite: deps.projects.lockForWrite,
    secrets: webhookSecrets(deps.secrets),
    allowPrivateNetworks: deps.config.webhookAllowPrivateNetworks,
  });
  return {
    service,
    routes: (app: Parameters<typeof webhooksRoutes>[0]) =>
      webhooksRoutes(app, { webhooksService: service, projectsService: deps.projects, config: deps.config }),
  };
}
