/**
 * PostgreSQL gave up on a transaction because of another one (deadlock detected, serialization
 * failure); nothing was written, and running it again is safe. Two callers who each revoke the
 * other's token, each holding a share lock on their own (D22), end in a deadlock the server breaks.
 */
export function isTransientConflict(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === '40P01' || code === '40001';
}
