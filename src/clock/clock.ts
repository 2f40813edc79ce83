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

let lastMs = Number.NaN;
let lastIso = '';
let prefixDay = Number.NaN;
let prefix = '';
const DAY_MS = 86_400_000;
/** 10000-01-01T00:00:00Z: from there on toISOString writes a six-digit, signed year. */
const YEAR_10000 = 253_402_300_800_000;
const PAD2 = Array.from({ length: 100 }, (_, i) => String(i).padStart(2, '0'));
const PAD3 = Array.from({ length: 1000 }, (_, i) => String(i).padStart(3, '0'));

/**
 * ISO 8601 of a Unix ms time, exactly as `Date#toISOString` writes it. Every order view renders
 * several: the date part is kept per day and the time of day written from integers (a fifth of
 * the cost), and the last answer is remembered (renders ask for the same instant often).
 */
export function ISO(ms: number): string {
  if (ms === lastMs) return lastIso;
  if (!(ms >= 0 && ms < YEAR_10000 && Number.isInteger(ms))) return new Date(ms).toISOString();
  const day = Math.floor(ms / DAY_MS);
  if (day !== prefixDay) {
    prefix = new Date(day * DAY_MS).toISOString().slice(0, 11); // YYYY-MM-DDT
    prefixDay = day;
  }
  let rest = ms - day * DAY_MS;
  const milli = rest % 1000;
  rest = (rest - milli) / 1000;
  const sec = rest % 60;
  rest = (rest - sec) / 60;
  const min = rest % 60;
  const hour = (rest - min) / 60;
  lastIso = `${prefix}${PAD2[hour]}:${PAD2[min]}:${PAD2[sec]}.${PAD3[milli]}Z`;
  lastMs = ms;
  return lastIso;
}
