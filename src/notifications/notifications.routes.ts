import { callerOf } from '../auth/caller.js';
import { credentialOf } from '../auth/write-credential.js';
import type { App } from '../http/app-types.js';
import type { NotificationSettingsService } from './notification-settings.service.js';
import { NotificationSettingsResponse, UpdateNotificationSettingsBody } from './notifications.schemas.js';

/** E11.2: the caller's notification choices. D7: no subscription needed (like the rest of /user). */
export async function notificationsRoutes(app: App, { settings }: { settings: NotificationSettingsService }) {
  const tags = ['user'];

  app.get('/user/notifications', {
    config: { ability: 'read' },
    schema: {
      tags,
      summary: "The caller's notification choices, and whether this server sends email",
      response: { 200: NotificationSettingsResponse },
    },
    handler: async (request) => ({ data: await settings.read(callerOf(request)) }),
  });

  app.put('/user/notifications', {
    config: { ability: 'write' },
    schema: {
      tags,
      summary: "Change the caller's notification choices (the fields given; the others keep their value)",
      body: UpdateNotificationSettingsBody,
      response: { 200: NotificationSettingsResponse },
    },
    handler: async (request) => ({ data: await settings.update(credentialOf(request), request.body) }),
  });
}
