import type { TimerTag } from './timer-queue';

/** Domain time (CONTRACT §2): what `created_at`, `expires_at`, TTLs and delays are measured on. */
export interface Clock {
  /** Virtual now, Unix ms. */
  now(): number;
}

/** A clock that can also run callbacks at a virtual time. */
export interface Scheduler extends Clock {
  /** Runs `fire` when the virtual clock reaches `at` (at once on the next tick if `at` is past). */
  setTimer(at: number, fire: () => void, label?: string, tag?: TimerTag): number;
  /** Cancels a timer; unknown or fired ids are ignored. */
  clearTimer(id: number): void;
}

/** Transport time (CONTRACT §2): request skew, webhook `svc-timestamp`, rate-limit refill, HTTP timeouts. */
export interface WallClock {
  now(): number;
}

/** The real wall clock. */
export const systemWallClock: WallClock = { now: () => Date.now() };

/** A wall clock a test can move by hand. */
export function fixedWallClock(start: number): WallClock & { set(ms: number): void; advance(ms: number): void } {
  let current = start;
  return {
    now: () => current,
    set: (ms) => {
      current = ms;
    },
    advance: (ms) => {
      current += ms;
    },
  };
}
