import type { Clock } from '../../src/clock.js';

/** A clock that only moves when the test says so. */
export class FakeClock implements Clock {
  private current: number;

  constructor(start: string | Date = '2026-11-21T10:00:00.000Z') {
    this.current = new Date(start).getTime();
  }

  now(): Date {
    return new Date(this.current);
  }

  advance(ms: number): void {
    this.current += ms;
  }

  set(at: string | Date): void {
    this.current = new Date(at).getTime();
  }
}
