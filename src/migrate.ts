import { type Db, runMigrations } from './db/database.js';
import type { DataStep } from './db/migrations/index.js';
import { backfillChanges } from './reports/changes/changes-backfill.js';
import type { SecretBox } from './secrets/secret-box.js';
import { sealPlainWebhookSecrets } from './webhooks/webhook-secrets.js';

/** The data steps each migration run ends with (db/migrations/index.ts `DataStep`), in order. */
function dataSteps(secrets: SecretBox | undefined): readonly DataStep[] {
  return [
    (db) => backfillChanges(db),
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
