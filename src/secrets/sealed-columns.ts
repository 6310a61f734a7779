import type { Kysely } from 'kysely';
import { type SecretBox, SecretBoxError } from './secret-box.js';

/**
 * E9.2: every column that holds a sealed secret, with the context its values are sealed with (the
 * row's id in it: a value copied into another row does not open there). `secrets:reencrypt` goes
 * through all of them; a feature that stores a new kind of secret adds its column here.
 */
export interface SealedColumn {
  readonly table: 'connections' | 'webhooks';
  readonly column: 'credentials' | 'secret' | 'previous_secret';
  /** The context a value of the row `id` is sealed with. */
  context(id: string): string;
}

/** A connection's credentials (JSON), always sealed: a connection is refused where nothing can be sealed. */
export const CONNECTION_CREDENTIALS: SealedColumn = { table: 'connections', column: 'credentials', context: (id) => `connection:${id}` };
/** A webhook's signing secret: sealed when a key is available; plain when stored before E9.2 or without a key. */
export const WEBHOOK_SECRET: SealedColumn = { table: 'webhooks', column: 'secret', context: (id) => `webhook:${id}` };
/** The secret before a webhook's last rotation (it signs too for 24 hours), as its secret. */
export const WEBHOOK_PREVIOUS_SECRET: SealedColumn = {
  table: 'webhooks',
  column: 'previous_secret',
  context: (id) => `webhook-previous:${id}`,
};

export const SEALED_COLUMNS: readonly SealedColumn[] = [CONNECTION_CREDENTIALS, WEBHOOK_SECRET, WEBHOOK_PREVIOUS_SECRET];

/** A stored value that opens under no configured key; names its row, never its value. */
export interface UnopenedSecret {
  table: string;
  column: string;
  id: string;
  reason: SecretBoxError['reason'];
}

export interface RewriteOutcome {
  /** Values written again (sealed under the current key). */
  rewritten: number;
  /** Values already as wanted. */
  unchanged: number;
  failures: UnopenedSecret[];
}

/** Rows read (and rewritten in one transaction) at a time. */
const BATCH = 100;

/**
 * Rewrites the values of `column` under the box's current key, in batches of their own
 * transactions, in id order: `plain` rewrites only the values not sealed at all (the start-up data
 * step: cheap when none is left, one query), `stale` every value not sealed under the current key
 * (a rotation's `secrets:reencrypt`; plain ones are sealed on the way). Each row is written only if
 * it still holds the value read (a secret rotated meanwhile is left as the service wrote it), so it
 * runs safely beside a serving instance or another run of itself, and again after an interruption.
 * A value that opens under no configured key is left as it is and reported.
 */
export async function resealColumn(
  db: Kysely<any>,
  box: SecretBox,
  column: SealedColumn,
  which: 'plain' | 'stale',
): Promise<RewriteOutcome> {
  const outcome: RewriteOutcome = { rewritten: 0, unchanged: 0, failures: [] };
  if (!box.canSeal) return outcome;
  let after = '';
  for (;;) {
    const rows = (await db
      .selectFrom(column.table)
      .select(['id', `${column.column} as value`])
      .where(column.column, 'is not', null)
      .where('id', '>', after)
      // Sealed values all start so: the rows stored before E9.2 (or without a key) are the others.
      .$if(which === 'plain', (query) => query.where(column.column, 'not like', 'sb1:%'))
      .orderBy('id')
      .limit(BATCH)
      .execute()) as Array<{ id: string; value: string }>;
    if (rows.length === 0) return outcome;
    after = rows[rows.length - 1]!.id;
    const changes: Array<{ id: string; old: string; sealed: string }> = [];
    for (const { id, value } of rows) {
      if (which === 'plain' ? box.isSealed(value) : box.isCurrent(value)) {
        outcome.unchanged++;
        continue;
      }
      try {
        const plain = box.isSealed(value) ? box.open(value, column.context(id)) : value;
        changes.push({ id, old: value, sealed: box.seal(plain, column.context(id)) });
      } catch (error) {
        if (!(error instanceof SecretBoxError)) throw error;
        outcome.failures.push({ table: column.table, column: column.column, id, reason: error.reason });
      }
    }
    if (changes.length === 0) continue;
    await db.transaction().execute(async (trx) => {
      for (const change of changes) {
        const result = await trx
          .updateTable(column.table)
          .set({ [column.column]: change.sealed })
          .where('id', '=', change.id)
          .where(column.column, '=', change.old)
          .executeTakeFirst();
        if (Number(result.numUpdatedRows) > 0) outcome.rewritten++;
        else outcome.unchanged++;
      }
    });
  }
}
