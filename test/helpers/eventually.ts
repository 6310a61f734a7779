/**
 * Waiting for something a test needs, on a machine of any speed. A wait ends when its condition
 * holds; its bound only tells a hang from slowness — far beyond what a busy 2-core machine takes,
 * under the tests' own timeout (vitest.config.ts), so that a hang still fails with a message that
 * names what never came.
 */
export const HANG_MS = 120_000;

/** Waits until `check` holds; `pause` runs between checks (a short timer, or `nextTurn` under fake timers). */
export async function eventually(
  check: () => boolean | Promise<boolean>,
  options: { what?: string; pause?: () => Promise<unknown> } = {},
): Promise<void> {
  const pause = options.pause ?? shortPause;
  const deadline = Date.now() + HANG_MS;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`still waiting after ${HANG_MS / 1000} s for ${options.what ?? 'a condition'}`);
    await pause();
  }
}

const shortPause = () => new Promise((resolve) => setTimeout(resolve, 20));

/** One turn of the event loop (I/O included), for tests whose timers are fake. */
export const nextTurn = () => new Promise((resolve) => setImmediate(resolve));
