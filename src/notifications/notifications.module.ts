import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import type { Db } from '../db/database.js';
import { createNotificationSettingsService } from './notification-settings.service.js';
import { notificationsRoutes } from './notifications.routes.js';

/** E11: notifications. Today each user's choices (E11.2); the emails are to come. */
export function notificationsModule(deps: { db: Db; clock: Clock; config: Config }) {
  const settings = createNotificationSettingsService(deps);
  return {
    settings,
    routes: (app: Parameters<typeof notificationsRoutes>[0]) => notificationsRoutes(app, { settings }),
  };
}
