import type { Clock } from '../clock.js';
import type { Db } from '../db/database.js';
import { DELETE_BATCH, deleteInBatches, type RetentionJobDeps, startRetentionJob } from '../jobs/retention.js';
import { SESSION_IDLE_MS } from './identify-session.js';
import { createSessionsRepository } from './sessions.repository.js';
import { FAILURE_WINDOW_MS } from './sign-in-lockout.js';

/**
 * E7: an ended session (absolute or idle) is refused as soon as it ends; this removes its row, and
 * the sign-in attempts whose 15 minutes and lock are over, so neither table grows with every sign-in.
 * Safe with several instances at once (jobs/retention.ts). Returns how many rows of each went.
 */
export async function pruneSessions(deps: { db: Db; clock: Clock }): Promise<{ sessions: number; failures: number }> {
  const now = deps.clock.now().getTime();
  const repository = createSessionsRepository(deps.db);
  const sessions = await deleteInBatches(DELETE_BATCH, (size) =>
    repository.deleteEnded(new Date(now).toISOString(), new Date(now - SESSION_IDLE_MS).toISOString(), size),
  );
  const failures = await deleteInBatches(DELETE_BATCH, (size) =>
    repository.deleteStaleAttempts(new Date(now - FAILURE_WINDOW_MS).toISOString(), size),
  );
  return { sessions, failures };
}

/** Runs `pruneSessions` shortly after start, then every hour (jobs/retention.ts), until the returned function is called. */
export function startSessionRetention(deps: RetentionJobDeps): () => void {
  return startRetentionJob(deps, {
    name: 'session clean-up run',
    prune: () => pruneSessions(deps),
    message: 'deleted ended sessions and old failed sign-ins',
  });
}
