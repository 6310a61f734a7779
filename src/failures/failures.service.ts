import { v7 as uuidv7 } from 'uuid';
import { recordEvent } from '../webhooks/webhook-events.js';
import { asObject, pastTimestamp } from '../wire/json-values.js';
import type { Clock } from '../clock.js';
import { inTransaction, type Db } from '../db/database.js';
import { pageOffset, paginationEnvelope, PAGE_SIZE } from '../wire/pagination.js';
import type { ProjectTokenCredential } from '../projects/project-api-token.js';
import type { RunFailureRow } from './failures.repository.js';
import type { FailureUploadInput } from './failure-upload.schemas.js';
import type { RunFailure } from './failures.schemas.js';
import { createFailuresRepository } from './failures.repository.js';

/** Failed runs (`POST /api/reports/failure`): recorded against the project, listed newest first. */
export function createFailuresService(deps: { db: Db; clock: Clock }) {
  const failures = createFailuresRepository(deps.db);

  return {
    /** Recorded only if the token still names the project and it is not archived, as of the write (D22). */
    async recordFailure(credential: ProjectTokenCredential, projectId: string, input: FailureUploadInput): Promise<RunFailure> {
      const receivedAt = deps.clock.now().toISOString();
      const row = {
        uuid: uuidv7(),
        project_id: projectId,
        failure_reason: input.failure_reason ?? null,
        failure_label: input.failure_label ?? null,
        error_message: input.error_message ?? null,
        triggered_by: input.triggered_by ?? null,
        framework_version: input.laravel_version ?? input.framework_version ?? null,
        package_version: input.package_version ?? null,
        occurred_at: input.occurred_at ? pastTimestamp(input.occurred_at, 'occurred_at', deps.clock.now()) : receivedAt,
        metadata: JSON.stringify(asObject(input.metadata)),
        created_at: receivedAt,
      };
      return inTransaction(deps.db, async (trx) => {
        await credential.recheck(trx);
        const failure = toRunFailure({ ...row, id: await createFailuresRepository(trx).insert(row) });
        // E6, in the same transaction (the outbox).
        await recordEvent(trx, deps.clock, projectId, 'run.failed', { failure });
        return failure;
      });
    },

    async listFailures(projectId: string, page: number, path: string) {
      const total = await failures.countForProject(projectId);
      const offset = pageOffset(page);
      const rows = offset >= total ? [] : await failures.listForProject(projectId, { limit: PAGE_SIZE, offset });
      return { data: rows.map(toRunFailure), ...paginationEnvelope({ path, page, total, count: rows.length }) };
    },
  };
}

export type FailuresService = ReturnType<typeof createFailuresService>;

function toRunFailure(row: RunFailureRow): RunFailure {
  return {
    id: row.id,
    uuid: row.uuid,
    failure_reason: row.failure_reason,
    failure_label: row.failure_label,
    error_message: row.error_message,
    triggered_by: row.triggered_by,
    framework_version: row.framework_version,
    package_version: row.package_version,
    occurred_at: row.occurred_at,
    metadata: JSON.parse(row.metadata) as Record<string, unknown>,
    created_at: row.created_at,
  };
}
