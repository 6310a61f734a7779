import type { Db } from '../../db/database.js';

/** D40: how long an identical upload is answered with the report already stored. */
export const RECEIPT_LIFETIME_MS = 24 * 60 * 60 * 1000;

export interface UploadReceipt {
  report_id: number | null;
  gate: string | null;
}

/** The receipts of uploads (migration 0014), on the upload's transaction. */
export function createUploadReceipts(db: Db) {
  return {
    /**
     * Takes the receipt of `digest` for this upload, and returns null: no identical upload was
     * received since `freshAfter`, so this one is stored. Otherwise returns the receipt already there.
     * The insert is what decides between two identical uploads racing: on PostgreSQL the second waits
     * for the first's transaction and then sees its row; on SQLite writers take turns.
     */
    async claim(projectId: string, digest: string, now: string, freshAfter: string): Promise<UploadReceipt | null> {
      const claimed = await db
        .insertInto('upload_receipts')
        .values({ project_id: projectId, body_digest: digest, report_id: null, gate: null, received_at: now })
        .onConflict((conflict) =>
          conflict
            .columns(['project_id', 'body_digest'])
            .doUpdateSet({ report_id: null, gate: null, received_at: now })
            .where('upload_receipts.received_at', '<=', freshAfter),
        )
        .returning('project_id')
        .executeTakeFirst();
      if (claimed !== undefined) return null;
      return db
        .selectFrom('upload_receipts')
        .select(['report_id', 'gate'])
        .where('project_id', '=', projectId)
        .where('body_digest', '=', digest)
        .executeTakeFirstOrThrow();
    },

    /** Records what the claimed receipt's upload was answered. */
    async complete(projectId: string, digest: string, reportId: number, gate: string): Promise<void> {
      await db
        .updateTable('upload_receipts')
        .set({ report_id: reportId, gate })
        .where('project_id', '=', projectId)
        .where('body_digest', '=', digest)
        .execute();
    },

    /** Deletes up to `limit` receipts received before `cutoff`; how many went. */
    async deleteBefore(cutoff: string, limit: number): Promise<number> {
      const batch = db.selectFrom('upload_receipts').select('body_digest').where('received_at', '<', cutoff).limit(limit);
      const result = await db
        .deleteFrom('upload_receipts')
        .where('received_at', '<', cutoff)
        .where('body_digest', 'in', batch)
        .executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}
