import type { Kysely } from 'kysely';
import type { SecretBox } from '../secrets/secret-box.js';
import { resealColumn, type SealedColumn, WEBHOOK_PREVIOUS_SECRET, WEBHOOK_SECRET } from '../secrets/sealed-columns.js';

/**
 * E9.2 for E6's signing secrets: stored sealed (context `webhook:<id>`, and `webhook-previous:<id>`
 * for the one before a rotation) whenever the box can seal. A value that is not sealed was stored
 * before E9.2, or on PostgreSQL without SECRET_KEY, where webhooks keep working as before with
 * their secrets in plain text; it is used as it is.
 */
export function webhookSecrets(box: SecretBox) {
  const columnOf = (which: 'secret' | 'previous'): SealedColumn => (which === 'secret' ? WEBHOOK_SECRET : WEBHOOK_PREVIOUS_SECRET);
  return {
    /** What to store for the plain secret of webhook `id`. */
    stored(id: string, plain: string, which: 'secret' | 'previous'): string {
      return box.canSeal ? box.seal(plain, columnOf(which).context(id)) : plain;
    },
    /** The plain secret of webhook `id`; throws SecretBoxError when it opens under no configured key. */
    plain(id: string, stored: string, which: 'secret' | 'previous'): string {
      return box.isSealed(stored) ? box.open(stored, columnOf(which).context(id)) : stored;
    },
  };
}

export type WebhookSecrets = ReturnType<typeof webhookSecrets>;

/**
 * The data step (db/migrations/index.ts `DataStep`) that seals the webhook secrets stored in plain
 * text before E9.2, at each start with a key: each opens to the same plain text, so every
 * receiver's signature stays valid. Nothing to do without a key, and one query per column once done.
 */
export async function sealPlainWebhookSecrets(db: Kysely<any>, box: SecretBox): Promise<number> {
  let sealed = 0;
  for (const column of [WEBHOOK_SECRET, WEBHOOK_PREVIOUS_SECRET]) sealed += (await resealColumn(db, box, column, 'plain')).rewritten;
  return sealed;
}
