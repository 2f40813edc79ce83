/**
 * A VirtualClock under a test's hand (src/clock/virtual-clock*.test.ts): a manual clock at a fixed
 * start, host timers the test runs itself, and work time it moves itself.
 */
import type { HostTimers, WorkSlicing } from '../../src/clock/clock.host';
import { VirtualClock } from '../../src/clock/virtual-clock';

export const START = Date.UTC(2026, 0, 1);

/** A manual clock at START. */
export function manualClock() {
  return new VirtualClock({ start: START, mode: 'manual' });
}

/** Host timers a test runs by hand. */
export function fakeHost() {
  const pending: Array<{ fn: () => void; ms: number }> = [];
  const host: HostTimers = {
    set: (fn, ms) => {
      const t = { fn, ms };
      pending.push(t);
      return t;
    },
    clear: (h) => {
      const i = pending.indexOf(h as (typeof pending)[number]);
      if (i >= 0) pending.splice(i, 1);
    },
  };
  return { host, pending };
}

/**
 * Work time a test moves by hand (each fired timer "costs" 1 ms), and a yield that counts itself
 * and runs `during` (what other requests do while the advance is yielded) before resuming on
 * setImmediate, as the real one does. No wall time is read.
 */
export function countedSlicing(sliceMs: number, during?: (yields: number) => void | Promise<void>) {
  const state = { work: 0, yields: 0 };
  const slicing: WorkSlicing = {
    now: () => state.work,
    sliceMs,
    yield: async () => {
      state.yields++;
      await new Promise<void>((resolve) => setImmediate(resolve));
      await during?.(state.yields);
    },
  };
  const cost = () => {
    state.work += 1;
  };
  return { state, slicing, cost };
}
