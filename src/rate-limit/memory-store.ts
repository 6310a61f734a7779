import type { FastifyRateLimitStore, FastifyRateLimitStoreCtor } from '@fastify/rate-limit';
import type { Clock } from '../clock.js';

interface Window {
  count: number;
  resetsAt: number;
}

/**
 * In-process fixed-window counters for @fastify/rate-limit, on our clock (the library's own store
 * reads Date.now(), which tests could only move with global fake timers). A window opens at a key's
 * first request and lasts `timeWindow`; expired windows are swept at most once per window length,
 * so memory stays proportional to the keys active in the last minute.
 */
export function memoryStoreOn(clock: Clock): FastifyRateLimitStoreCtor {
  return class MemoryRateLimitStore implements FastifyRateLimitStore {
    private readonly windows = new Map<string, Window>();
    private lastSweep = 0;

    incr(key: string, callback: (error: Error | null, result?: { current: number; ttl: number }) => void, timeWindow: number): void {
      const now = clock.now().getTime();
      this.sweep(now, timeWindow);
      let window = this.windows.get(key);
      if (window === undefined || window.resetsAt <= now) {
        window = { count: 0, resetsAt: now + timeWindow };
        this.windows.set(key, window);
      }
      window.count += 1;
      callback(null, { current: window.count, ttl: window.resetsAt - now });
    }

    child(): FastifyRateLimitStore {
      return this;
    }

    private sweep(now: number, timeWindow: number): void {
      if (now - this.lastSweep < timeWindow) return;
      this.lastSweep = now;
      for (const [key, window] of this.windows) if (window.resetsAt <= now) this.windows.delete(key);
    }
  };
}
