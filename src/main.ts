import { OperatorError } from './cli/operator-error.js';
import { createApp } from './app.js';
import { startAuditRetention } from './audit/audit-retention.js';
import { systemClock } from './clock.js';
import { startReportRetention } from './reports/report-retention.js';
import { startReceiptRetention } from './reports/receipt-retention.js';
import { startDeliveryRetention } from './webhooks/delivery-retention.js';
import { startOutboxRetention } from './outbox/outbox-retention.js';
import { startSessionRetention } from './sessions/session-retention.js';
import { startWeeklyDigest } from './notifications/weekly-digest.js';
import { NOTIFICATION_EVENT_RETENTION_DAYS, startNotificationEventRetention } from './notifications/notification-event-retention.js';
import { createDeliveryWorker } from './webhooks/delivery-worker.js';
import { createWebhookSender } from './webhooks/outbound-http.js';
import { type Config, emailConfigured } from './config.js';
import { describeDatabaseFailure } from './db/connect-errors.js';
import { openDatabase } from './db/database.js';
import { migrateToLatest } from './migrate.js';
import { createStatementCounter } from './http/sql-statement-count.js';
import { describeKeySource, loadSecretKeys } from './secrets/secret-keys.js';

/** What the worker leaves of SHUTDOWN_TIMEOUT_MS for closing the database and Redis. */
const CLOSE_MARGIN_MS = 1_000;

/**
 * `scoreboard serve`: migrate, listen, and close gracefully on SIGTERM/SIGINT: stop accepting and
 * stop claiming webhook deliveries, let in-flight requests and webhook attempts finish and record
 * them (within SHUTDOWN_TIMEOUT_MS, D39), close the database pool and Redis (the app's onClose
 * hooks), exit 0.
 */
export async function serve(config: Config): Promise<void> {
  const statementCounter = config.sqlStatementHeader ? createStatementCounter() : undefined;
  // E9.2: one box for the data step, the app and the delivery worker (an in-memory database's key
  // exists in it only). A malformed key or key file stops the start, named, never shown.
  const { db, keys } = await openMigrated(config, statementCounter);
  const app = await createApp(config, { db, statementCounter, secrets: keys.box });
  // Once, at start: where the key came from, never the key.
  app.log[keys.source === 'none' ? 'warn' : 'info']({ secret_key_source: keys.source }, describeKeySource(keys));
  // E5, issues 15 and 17: every instance prunes old audit events, old webhook deliveries and, when
  // a retention is set, old reports; the deletes are idempotent (reports': locked per project), so
  // instances may overlap.
  const stopAuditRetention = startAuditRetention({ db, clock: systemClock, retentionDays: config.auditRetentionDays, logger: app.log });
  const stopReportRetention = startReportRetention({ db, clock: systemClock, retention: config.reportRetention, logger: app.log });
  const stopDeliveryRetention = startDeliveryRetention({
    db,
    clock: systemClock,
    retentionDays: config.webhookDeliveryRetentionDays,
    logger: app.log,
  });
  // The outbox's done calls to other services, after the same retention as webhook deliveries.
  const stopOutboxRetention = startOutboxRetention({
    db,
    clock: systemClock,
    retentionDays: config.webhookDeliveryRetentionDays,
    logger: app.log,
  });
  // D40: the receipts that answer a retried upload are kept a day.
  const stopReceiptRetention = startReceiptRetention({ db, clock: systemClock, retentionDays: 1, logger: app.log });
  // E7: ended sessions and old failed sign-ins.
  const stopSessionRetention = startSessionRetention({ db, clock: systemClock, logger: app.log });
  if (emailConfigured(config) && config.publicUrl === undefined) {
    app.log.warn("email is configured without PUBLIC_URL: emails link to http://localhost; set PUBLIC_URL to the dashboard's address");
  }
  // E11.4: the record that kept each event's emails to one, kept a month.
  const stopNotificationEventRetention = startNotificationEventRetention({
    db,
    clock: systemClock,
    retentionDays: NOTIFICATION_EVENT_RETENTION_DAYS,
    logger: app.log,
  });
  // E11.3: every instance looks for a weekly digest due; notification_events keeps it to one.
  const stopWeeklyDigest = startWeeklyDigest(app.weeklyDigest, app.log);
  // E6: every instance delivers webhooks; claims keep each attempt to one instance (delivery-queue.ts).
  const sender = createWebhookSender({ allowPrivateNetworks: config.webhookAllowPrivateNetworks });
  const deliveries = createDeliveryWorker({
    db,
    clock: systemClock,
    sender,
    secrets: keys.box,
    logger: app.log,
    concurrency: config.webhookConcurrency,
    publicUrl: config.publicUrl,
    onAttempt: app.webhookMetrics.onAttempt,
  });
  app.addHook('onReady', async () => {
    deliveries.start();
    // E9.5, E10, E11.4 (tickets, pull-request feedback, email): calls to other services, one attempt at a time across instances.
    app.outboxWorker.start();
  });
  let shutdownStartedAt: number | undefined;
  let deliveriesStopped: Promise<void> = Promise.resolve();
  let outboxStopped: Promise<void> = Promise.resolve();
  // D39: the background work stops at once (preClose), so that the server stops accepting without
  // waiting for it; the webhook attempts in flight keep running while the requests in flight
  // finish, and the database closes only once both are done and every outcome is recorded.
  app.addHook('preClose', async () => {
    stopAuditRetention();
    stopReportRetention();
    stopDeliveryRetention();
    stopOutboxRetention();
    stopSessionRetention();
    stopReceiptRetention();
    stopWeeklyDigest();
    stopNotificationEventRetention();
    const elapsed = shutdownStartedAt === undefined ? 0 : Date.now() - shutdownStartedAt;
    const grace = Math.max(0, config.shutdownTimeoutMs - elapsed - CLOSE_MARGIN_MS);
    deliveriesStopped = deliveries.stop(grace);
    outboxStopped = app.outboxWorker.stop(grace);
  });
  // onClose hooks run in the reverse order of their registration: this one (added last) first,
  // after the HTTP server has closed, before the app's own (token cache, Redis).
  app.addHook('onClose', async () => {
    await deliveriesStopped;
    await outboxStopped;
    await sender.close();
    await db.destroy();
  });

  let closing = false;
  // While shutting down, answers close their connection, so a keep-alive client does not hold the
  // server open after its last request (idle connections are closed by Fastify at once).
  app.addHook('onSend', async (_request, reply) => {
    if (closing) reply.header('connection', 'close');
  });
  const shutdown = (signal: string) => {
    if (closing) return;
    closing = true;
    shutdownStartedAt = Date.now();
    app.log.info({ signal }, 'shutting down: finishing in-flight requests');
    // Bounded: a stuck request must not keep the process alive forever.
    const force = setTimeout(() => {
      app.log.error(
        { shutdownTimeoutMs: config.shutdownTimeoutMs },
        `shutdown timed out after ${config.shutdownTimeoutMs} ms (SHUTDOWN_TIMEOUT_MS) with requests still in flight; exiting`,
      );
      process.exit(1);
    }, config.shutdownTimeoutMs);
    force.unref();
    app.close().then(
      () => process.exit(0),
      (error: unknown) => {
        app.log.error({ err: error }, 'error while shutting down');
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  process.once('SIGINT', () => shutdown('SIGINT'));

  let address: string;
  try {
    address = await app.listen({ port: config.port, host: config.host });
  } catch (error) {
    await app.close();
    throw explainListenError(error, config);
  }
  app.log.info(`Scoreboard listening on ${address}`);
}

/** The configured database, migrated, and E9.2's keys; a database that cannot be reached or opened is an operator's error naming it. */
async function openMigrated(config: Config, statementCounter: ReturnType<typeof createStatementCounter> | undefined) {
  let db: ReturnType<typeof openDatabase> | undefined;
  try {
    db = openDatabase(config, { onQuery: statementCounter?.onQuery });
    // After the database is open: a SQLite file that cannot be created is named as such, before
    // the key file beside it.
    const keys = loadSecretKeys(config);
    await migrateToLatest(db, { secrets: keys.box });
    return { db, keys };
  } catch (error) {
    await db?.destroy().catch(() => {});
    const described = describeDatabaseFailure(error, config.databaseUrl);
    throw described === null ? error : new OperatorError(described);
  }
}

/** The reasons a server cannot listen that an operator can fix, said in the variables' names. */
function explainListenError(error: unknown, config: Config): unknown {
  const where = `${config.host}:${config.port}`;
  switch ((error as NodeJS.ErrnoException).code) {
    case 'EADDRINUSE':
      return new OperatorError(`port ${config.port} is in use (${where}): set PORT to a free port, or stop what listens there.`);
    case 'EACCES':
      return new OperatorError(`port ${config.port} needs more privileges than this process has: set PORT to 1024 or above.`);
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return new OperatorError(`HOST ${config.host} does not resolve to an address: set HOST (127.0.0.1, or 0.0.0.0 for every interface).`);
    case 'EADDRNOTAVAIL':
      return new OperatorError(
        `HOST ${config.host} is not an address of this machine: set HOST (127.0.0.1, or 0.0.0.0 for every interface).`,
      );
    default:
      return error;
  }
}
