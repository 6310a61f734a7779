import { createApp } from './app.js';
import type { Config } from './config.js';
import { createDatabase, migrateToLatest } from './db/database.js';

/** `scoreboard serve`: migrate, listen, and close gracefully on SIGTERM/SIGINT. */
export async function serve(config: Config): Promise<void> {
  const db = createDatabase(config.databaseUrl);
  await migrateToLatest(db);
  const app = await createApp(config, { db });
  app.addHook('onClose', async () => db.destroy());

  let closing = false;
  const shutdown = (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'shutting down: finishing in-flight requests');
    // Bounded: a stuck request must not keep the process alive forever.
    const force = setTimeout(() => process.exit(1), 10_000);
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

  const address = await app.listen({ port: config.port, host: config.host });
  app.log.info(`Scoreboard listening on ${address}`);
}
