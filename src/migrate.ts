import { type Db, runMigrations } from './db/database.js';
import type { DataStep } from './db/migrations/index.js';
import type { SecretBox } from './secrets/secret-box.js';
import { sealPlainWebhookSecrets } from './webhooks/webhook-secrets.js';

/** The data steps each migration run ends with (db/migrations/index.ts `DataStep`), in order. */
function dataSteps(secrets: SecretBox | undefined): readonly DataStep[] {
  return [
    // Imported when a migration run gets here: it brings the report pipeline (its upload validator
    // and answer serialisers, compiled as they load), which the other operator commands never use
    // and each of their processes paid for at start.
    async (db) => (await import('./reports/changes/changes-backfill.js')).backfillChanges(db),
    // E9.2: webhook secrets stored before it are sealed once a key is available (none: kept as they are).
    ...(secrets?.canSeal ? [(db: Parameters<DataStep>[0]) => sealPlainWebhookSecrets(db, secrets)] : []),
  ];
}

/**
 * Runs pending migrations and the data steps; what `migrate`, `serve` and the tests run. `secrets`
 * is the service's box (secrets/secret-keys.ts); without it nothing is sealed.
 */
export function migrateToLatest(db: Db, options: { secrets?: SecretBox } = {}): Promise<string[]> {
  return runMigrations(db, dataSteps(options.secrets));
}
