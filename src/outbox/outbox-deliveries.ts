import type { Db } from '../db/database.js';
import { PAGE_SIZE, pageOffset, paginationEnvelope } from '../wire/pagination.js';
import { createOutboxQueue } from './outbox-queue.js';

/**
 * A project's calls of `kinds`, newest first, paginated like D16, in E6's delivery shape with the
 * message's kind as its `event`: what E9.5's tracker deliveries and E10.4's code-host deliveries
 * list, each with its own kinds.
 */
export async function outboxDeliveries<Event extends string>(
  db: Db,
  projectId: string,
  kinds: readonly Event[],
  page: number,
  path: string,
) {
  const outbox = createOutboxQueue(db);
  const total = await outbox.countForProject(projectId, kinds);
  const offset = pageOffset(page);
  const rows = offset >= total ? [] : await outbox.listForProject(projectId, kinds, { limit: PAGE_SIZE, offset });
  const data = rows.map(({ kind, ...row }) => ({ ...row, event: kind as Event }));
  return { data, ...paginationEnvelope({ path, page, total, count: rows.length }) };
}
