import type { Clock } from '../clock.js';

const DAY_MS = 24 * 60 * 60 * 1000;

/** The instant `days` days before the clock's now, as stored timestamps are written (D2): the retention jobs' cut. */
export function daysAgo(clock: Clock, days: number): string {
  return new Date(clock.now().getTime() - days * DAY_MS).toISOString();
}

/**
 * Calls `deleteBatch(size)` until a batch deletes fewer than `size` rows, and returns how many went
 * in all. Each batch is its own short statement, so writers never wait long behind it; and several
 * instances running it at once share the work (each batch deletes what is still there).
 */
export async function deleteInBatches(size: number, deleteBatch: (size: number) => Promise<number>): Promise<number> {
  let deleted = 0;
  for (;;) {
    const count = await deleteBatch(size);
    deleted += count;
    if (count < size) return deleted;
  }
}
