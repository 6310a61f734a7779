import type { Clock } from '../clock.js';
import { type Config, emailConfigured } from '../config.js';
import type { Db } from '../db/database.js';
import type { EmailKind } from './email-kinds.js';
import { createEmailNotifications, type EmailOutcome } from './email-notifications.js';
import { createMailer } from './mailer.js';
import { createNotificationSettingsService } from './notification-settings.service.js';
import { notificationsRoutes } from './notifications.routes.js';
import { unsubscribeRoutes } from './unsubscribe.routes.js';
import { createUnsubscribeService } from './unsubscribe.service.js';
import { signingKeyReader } from './unsubscribe-token.js';
import { createWeeklyDigest } from './weekly-digest.js';

/**
 * E11: notifications. Each user's choices (E11.2); the emails (E11.3–E11.4), written to the outbox
 * by the events the other features report through features.ts, sent through SMTP when SMTP_URL and
 * MAIL_FROM are set; the weekly digest; one-click unsubscribe. (E11.5's chat formats are webhooks'.)
 */
export function notificationsModule(deps: {
  db: Db;
  clock: Clock;
  config: Config;
  onEmail?: (kind: EmailKind, outcome: EmailOutcome) => void;
}) {
  const { db, clock, config } = deps;
  const mailer = emailConfigured(config) ? createMailer({ smtpUrl: config.smtpUrl!, mailFrom: config.mailFrom! }) : null;
  const settings = createNotificationSettingsService(deps);
  // One read of the unsubscribe links' key for the emails that sign them and the routes that check them.
  const signingKey = signingKeyReader(db);
  const emails = createEmailNotifications({ db, clock, config, mailer, signingKey, ...(deps.onEmail && { onEmail: deps.onEmail }) });
  const unsubscribe = createUnsubscribeService({ db, clock, signingKey });
  return {
    settings,
    emails,
    weeklyDigest: createWeeklyDigest({ emails, clock }),
    /** Closes the SMTP client (app.ts, when the app closes). */
    close: () => mailer?.close(),
    routes: (app: Parameters<typeof notificationsRoutes>[0]) => notificationsRoutes(app, { settings }),
    /** Outside /api/v1: the unsubscribe links of the emails. */
    unsubscribeRoutes: (app: Parameters<typeof unsubscribeRoutes>[0]) => unsubscribeRoutes(app, { unsubscribe }),
  };
}
