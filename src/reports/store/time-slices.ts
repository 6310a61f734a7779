import { setImmediate as nextTurn } from 'node:timers/promises';

/**
 * D28: long work on the event loop is cut into turns of at most SLICE_MS, so that other requests
 * are answered in between. Yielding costs a turn of the loop (other requests' callbacks run
 * first), so it happens only once a slice's time is used up, not at every step.
 */
const SLICE_MS = 10;

export function timeSlices(): () => Promise<void> {
  let since = performance.now();
  return async () => {
    if (performance.now() - since < SLICE_MS) return;
    await nextTurn();
    since = performance.now();
  };
}
