/**
 * E6's retry schedule, which every outbox follows (webhook deliveries, and the calls to providers):
 * the attempts after the first are due about 1 min, 5 min, 30 min, 2 h, 8 h and 24 h after the
 * first; after the last the work is failed.
 */
export const RETRY_SCHEDULE_MS = [60_000, 300_000, 1_800_000, 7_200_000, 28_800_000, 86_400_000] as const;
/** Each retry lands within this share of its time either way, so receivers that failed together are not retried together. */
const JITTER = 0.1;

/**
 * When the attempt after the `attempts`-th is due, counted from the first (`createdAt`), never
 * before `now` nor before `notBefore` (a receiver's Retry-After); null after the last.
 */
export function nextAttemptAt(
  createdAt: string,
  attempts: number,
  now: Date,
  options: { schedule?: readonly number[]; random?: () => number; notBefore?: Date } = {},
): string | null {
  const offset = (options.schedule ?? RETRY_SCHEDULE_MS)[attempts - 1];
  if (offset === undefined) return null;
  const jittered = offset * (1 + ((options.random ?? Math.random)() * 2 - 1) * JITTER);
  const due = Math.max(new Date(createdAt).getTime() + jittered, now.getTime(), options.notBefore?.getTime() ?? 0);
  return new Date(due).toISOString();
}
