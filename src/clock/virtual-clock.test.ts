import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { fixedWallClock } from './clock';
import { parseDuration } from './duration';
import type { HostTimers, WorkSlicing } from './clock.host';
import { AdvanceInterruptedError, ClockBusyError, VirtualClock } from './virtual-clock';
import { seeded } from '../../test/support/property';

const START = Date.UTC(2026, 0, 1);

function manualClock() {
  return new VirtualClock({ start: START, mode: 'manual' });
}

/** Host timers a test runs by hand. */
function fakeHost() {
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
function countedSlicing(sliceMs: number, during?: (yields: number) => void | Promise<void>) {
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

describe('VirtualClock (manual)', () => {
  it('stays still until advanced', () => {
    const clock = manualClock();
    expect(clock.now()).toBe(START);
    expect(clock.now()).toBe(START);
    clock.advance(1500);
    expect(clock.now()).toBe(START + 1500);
  });

  it('fires due timers in time order, each seeing its own due time', () => {
    const clock = manualClock();
    const seen: Array<[string, number]> = [];
    clock.setTimer(START + 300, () => seen.push(['c', clock.now()]), 'c');
    clock.setTimer(START + 100, () => seen.push(['a', clock.now()]), 'a');
    clock.setTimer(START + 200, () => seen.push(['b', clock.now()]), 'b');
    clock.setTimer(START + 900, () => seen.push(['late', clock.now()]), 'late');
    const fired = clock.advance(500);
    expect(seen).toEqual([
      ['a', START + 100],
      ['b', START + 200],
      ['c', START + 300],
    ]);
    expect(fired.map((f) => f.label)).toEqual(['a', 'b', 'c']);
    expect(clock.now()).toBe(START + 500);
    expect(clock.pending).toBe(1);
  });

  it('keeps insertion order for timers due at the same time', () => {
    const clock = manualClock();
    const seen: string[] = [];
    for (const name of ['x', 'y', 'z']) clock.setTimer(START + 10, () => seen.push(name));
    clock.advance(10);
    expect(seen).toEqual(['x', 'y', 'z']);
  });

  it('fires timers scheduled by firing timers inside the advanced span', () => {
    const clock = manualClock();
    const seen: number[] = [];
    const chain = () => {
      seen.push(clock.now() - START);
      if (seen.length < 5) clock.setTimer(clock.now() + 100, chain);
    };
    clock.setTimer(START + 100, chain);
    clock.advance(350);
    expect(seen).toEqual([100, 200, 300]);
    clock.advance(1000);
    expect(seen).toEqual([100, 200, 300, 400, 500]);
  });

  it('fires a timer set in the past on the next advance, at the current time', () => {
    const clock = manualClock();
    clock.advance(1000);
    let at = 0;
    clock.setTimer(START, () => {
      at = clock.now();
    });
    clock.advance(0);
    expect(at).toBe(START + 1000);
  });

  it('does not fire cancelled timers', () => {
    const clock = manualClock();
    const seen: string[] = [];
    const a = clock.setTimer(START + 10, () => seen.push('a'));
    clock.setTimer(START + 20, () => seen.push('b'));
    clock.clearTimer(a);
    expect(clock.pending).toBe(1);
    clock.advance(100);
    expect(seen).toEqual(['b']);
  });

  it('never goes back', () => {
    const clock = manualClock();
    clock.advance(100);
    expect(() => clock.advanceTo(START)).toThrow(/never goes back/);
    expect(() => clock.advance(-1)).toThrow(RangeError);
    expect(clock.now()).toBe(START + 100);
  });

  it('keeps firing after a timer throws, and reports the error', () => {
    const errors: string[] = [];
    const clock = new VirtualClock({ start: START, onError: (_e, label) => errors.push(label) });
    const seen: string[] = [];
    clock.setTimer(START + 1, () => {
      throw new Error('boom');
    }, 'bad');
    clock.setTimer(START + 2, () => seen.push('good'));
    clock.advance(5);
    expect(errors).toEqual(['bad']);
    expect(seen).toEqual(['good']);
  });

  it('reset drops timers and returns to the start', () => {
    const clock = manualClock();
    clock.setTimer(START + 10, () => {});
    clock.advance(5);
    clock.reset();
    expect(clock.now()).toBe(START);
    expect(clock.pending).toBe(0);
  });

  it('fires any random set of timers in (due, insertion) order, with cancels', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ due: fc.integer({ min: 0, max: 1000 }), cancel: fc.boolean() }), { maxLength: 200 }),
        fc.integer({ min: 0, max: 1200 }),
        (specs, span) => {
          const clock = manualClock();
          const seen: Array<{ due: number; i: number; at: number }> = [];
          const ids = specs.map((s, i) =>
            clock.setTimer(START + s.due, () => seen.push({ due: s.due, i, at: clock.now() - START })),
          );
          specs.forEach((s, i) => s.cancel && clock.clearTimer(ids[i]!));
          clock.advance(span);
          const expected = specs
            .map((s, i) => ({ ...s, i }))
            .filter((s) => !s.cancel && s.due <= span)
            .sort((a, b) => a.due - b.due || a.i - b.i)
            .map((s) => ({ due: s.due, i: s.i, at: s.due }));
          expect(seen).toEqual(expected);
          expect(clock.pending).toBe(specs.filter((s) => !s.cancel && s.due > span).length);
        },
      ),
      seeded({ numRuns: 200 }),
    );
  });
});

describe('VirtualClock.advanceToAsync', () => {
  it('waits for work a timer starts, at that timer time, so what it schedules fires in the same advance', async () => {
    const clock = manualClock();
    const seen: number[] = [];
    let work: Promise<void> | undefined;
    const attempt = () => {
      seen.push(clock.now() - START);
      const startedAt = clock.now();
      // like a webhook attempt: the result arrives later in wall time, then schedules a retry
      work = new Promise<void>((resolve) => setTimeout(resolve, 5)).then(() => {
        if (seen.length < 4) clock.setTimer(startedAt + 1000, attempt, 'retry');
      });
    };
    clock.setTimer(START + 100, attempt);
    const settle = () => {
      const w = work;
      work = undefined;
      return w;
    };
    await clock.advanceToAsync(START + 10_000, settle);
    expect(seen).toEqual([100, 1100, 2100, 3100]);
    expect(clock.now()).toBe(START + 10_000);
  });

  it('refuses a second advance while one is running', async () => {
    const clock = manualClock();
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    clock.setTimer(START + 1, () => {});
    const first = clock.advanceToAsync(START + 10, () => gate);
    await expect(clock.advanceToAsync(START + 20, () => undefined)).rejects.toThrow(ClockBusyError);
    release();
    await first;
  });

  it('fires every timer due at one instant before waiting once for their work', async () => {
    const clock = manualClock();
    const log: string[] = [];
    for (const name of ['a', 'b', 'c']) clock.setTimer(START + 5, () => log.push(`fire ${name}`));
    clock.setTimer(START + 6, () => log.push('fire d'));
    await clock.advanceToAsync(START + 10, () => {
      log.push('settle');
      return undefined;
    });
    expect(log).toEqual(['settle', 'fire a', 'fire b', 'fire c', 'settle', 'fire d', 'settle']);
  });

  it('stops an advance that a reset interrupted, keeping the clock at its start', async () => {
    const clock = manualClock();
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let late = false;
    clock.setTimer(START + 1, () => {});
    clock.setTimer(START + 5, () => (late = true));
    const first = clock.advanceToAsync(START + 10, () => gate);
    clock.reset();
    // the clock is free at once for the next caller
    await clock.advanceToAsync(START + 2, () => undefined);
    release();
    await expect(first).rejects.toThrow(AdvanceInterruptedError);
    await expect(first).rejects.toMatchObject({ reason: 'reset' });
    expect(late).toBe(false);
    expect(clock.now()).toBe(START + 2);
  });
});

// CONTRACT §9 (issue 22 items 7, 8): no wall time here; the work clock and the yields are counted.
describe('VirtualClock.advanceToAsync shares the event loop (CONTRACT §9)', () => {
  it('yields after each slice of work, so I/O queued at the start runs before the advance returns', async () => {
    const { state, slicing, cost } = countedSlicing(20);
    const clock = new VirtualClock({ start: START, mode: 'manual', slicing });
    let firedCount = 0;
    for (let i = 1; i <= 1000; i++) clock.setTimer(START + i, () => {
      firedCount++;
      cost();
    });
    let firedWhenOtherWorkRan: number | undefined;
    setImmediate(() => (firedWhenOtherWorkRan = firedCount));
    const fired = await clock.advanceToAsync(START + 2000, () => undefined);
    expect(fired).toHaveLength(1000);
    // 1000 ms of work in slices of 20 ms: a yield after each slice, the first after 20 timers.
    expect(state.yields).toBeGreaterThanOrEqual(49);
    expect(state.yields).toBeLessThanOrEqual(50);
    expect(firedWhenOtherWorkRan).toBe(20);
    expect(clock.now()).toBe(START + 2000);
  });

  it('yields inside one instant too, still firing all of its timers before settling once', async () => {
    const { state, slicing, cost } = countedSlicing(10);
    const clock = new VirtualClock({ start: START, mode: 'manual', slicing });
    const log: string[] = [];
    for (let i = 0; i < 100; i++) clock.setTimer(START + 5, () => {
      log.push('fire');
      cost();
    });
    await clock.advanceToAsync(START + 10, () => {
      log.push('settle');
      return undefined;
    });
    expect(state.yields).toBeGreaterThanOrEqual(9);
    expect(log).toEqual(['settle', ...Array(100).fill('fire'), 'settle']);
  });

  it('while yielded: now() is the instant being fired, another advance is busy, and timers set then fire in time order', async () => {
    let clock!: VirtualClock;
    let seenNow: number | undefined;
    const fires: Array<[string, number]> = [];
    const { slicing, cost } = countedSlicing(10, async (n) => {
      if (n !== 1) return;
      // a request served mid-advance (10 timers fired, the 10th at START + 10)
      seenNow = clock.now();
      await expect(clock.advanceToAsync(START + 500, () => undefined)).rejects.toThrow(ClockBusyError);
      clock.setTimer(START + 3, () => fires.push(['past', clock.now()]), 'past');
      clock.setTimer(START + 15, () => fires.push(['mid', clock.now()]), 'mid');
      clock.setTimer(START + 150, () => fires.push(['after', clock.now()]), 'after');
      clock.setTimer(START + 1000, () => fires.push(['beyond', clock.now()]), 'beyond');
    });
    clock = new VirtualClock({ start: START, mode: 'manual', slicing });
    for (let i = 1; i <= 100; i++) clock.setTimer(START + i, () => {
      fires.push([`t${i}`, clock.now()]);
      cost();
    }, `t${i}`);
    const fired = await clock.advanceToAsync(START + 200, () => undefined);
    expect(seenNow).toBe(START + 10);
    const labels = fired.map((f) => f.label);
    expect(labels).toHaveLength(103);
    // the overdue one fires first, at the instant it was set in; the others at their own time
    expect(labels.slice(9, 13)).toEqual(['t10', 'past', 't11', 't12']);
    expect(labels.slice(15, 18)).toEqual(['t15', 'mid', 't16']);
    expect(labels.at(-1)).toBe('after');
    expect(fires.find(([l]) => l === 'past')![1]).toBe(START + 10);
    expect(fires.find(([l]) => l === 'mid')![1]).toBe(START + 15);
    expect(fires.find(([l]) => l === 'after')![1]).toBe(START + 150);
    const ats = fired.map((f) => f.at);
    expect(ats).toEqual([...ats].sort((a, b) => a - b));
    expect(fires.every(([l, at]) => fired.find((f) => f.label === l)!.at === at)).toBe(true);
    // done: the clock is free, unpinned, at the target, the later timer still queued
    expect(clock.now()).toBe(START + 200);
    expect(clock.pending).toBe(1);
    await clock.advanceToAsync(START + 1000, () => undefined);
    expect(fires.at(-1)).toEqual(['beyond', START + 1000]);
  });

  it('a reset during a yield stops the advance (reason reset), and nothing from before fires', async () => {
    let clock!: VirtualClock;
    const { slicing, cost } = countedSlicing(10, (n) => {
      if (n === 1) clock.reset();
    });
    clock = new VirtualClock({ start: START, mode: 'manual', slicing });
    let count = 0;
    for (let i = 1; i <= 100; i++) clock.setTimer(START + i, () => {
      count++;
      cost();
    });
    const error = await clock.advanceToAsync(START + 200, () => undefined).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AdvanceInterruptedError);
    expect((error as AdvanceInterruptedError).reason).toBe('reset');
    expect(count).toBe(10);
    expect(clock.now()).toBe(START);
    expect(clock.pending).toBe(0);
    // the clock is free and unpinned for the next caller
    const after = await clock.advanceToAsync(START + 50, () => undefined);
    expect(after).toEqual([]);
    expect(clock.now()).toBe(START + 50);
  });

  it('a state restore during a yield stops the advance (reason restore) at the restored instant', async () => {
    let clock!: VirtualClock;
    const restoredAt = START + 5_000;
    const { slicing, cost } = countedSlicing(10, (n) => {
      if (n === 1) clock.restore({ now_ms: restoredAt, start_ms: START, mode: 'manual', speed: 1 });
    });
    clock = new VirtualClock({ start: START, mode: 'manual', slicing });
    let count = 0;
    for (let i = 1; i <= 100; i++) clock.setTimer(START + i, () => {
      count++;
      cost();
    });
    await expect(clock.advanceToAsync(START + 200, () => undefined)).rejects.toMatchObject({
      name: 'AdvanceInterruptedError',
      reason: 'restore',
    });
    expect(count).toBe(10);
    expect(clock.now()).toBe(restoredAt);
    expect(clock.pending).toBe(0);
    await clock.advanceToAsync(restoredAt + 1, () => undefined);
    expect(clock.now()).toBe(restoredAt + 1);
  });

  it('a state restore while the advance waits on settle stops it with reason restore', async () => {
    const clock = manualClock();
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    clock.setTimer(START + 1, () => {});
    const first = clock.advanceToAsync(START + 10, () => gate);
    clock.restore({ now_ms: START + 3, start_ms: START, mode: 'manual', speed: 1 });
    release();
    await expect(first).rejects.toMatchObject({ reason: 'restore' });
    expect(clock.now()).toBe(START + 3);
  });
});

describe('VirtualClock (realtime)', () => {
  it('follows the wall clock times speed', () => {
    const wall = fixedWallClock(1_000_000);
    const { host } = fakeHost();
    const clock = new VirtualClock({ start: START, mode: 'realtime', speed: 60, wall, host });
    wall.advance(1000);
    expect(clock.now()).toBe(START + 60_000);
    clock.configure({ speed: 1 });
    wall.advance(1000);
    expect(clock.now()).toBe(START + 61_000);
  });

  it('arms a host timer for the next due timer, scaled by speed, and fires on tick', () => {
    const wall = fixedWallClock(0);
    const { host, pending } = fakeHost();
    const clock = new VirtualClock({ start: START, mode: 'realtime', speed: 10, wall, host });
    let fired = 0;
    clock.setTimer(START + 5000, () => fired++);
    expect(pending.at(-1)?.ms).toBe(500);
    wall.advance(500);
    pending.at(-1)!.fn();
    expect(fired).toBe(1);
    expect(clock.pending).toBe(0);
  });

  it('can still be advanced by hand, and switching to manual freezes it', () => {
    const wall = fixedWallClock(0);
    const { host } = fakeHost();
    const clock = new VirtualClock({ start: START, mode: 'realtime', wall, host });
    clock.advance(60_000);
    expect(clock.now()).toBe(START + 60_000);
    clock.configure({ mode: 'manual' });
    wall.advance(10_000);
    expect(clock.now()).toBe(START + 60_000);
  });

  it('a tick fires at most one slice of work, then re-arms with no delay for the rest (speed 1e6)', () => {
    const wall = fixedWallClock(0);
    const { host, pending } = fakeHost();
    const { slicing, cost } = countedSlicing(10);
    const clock = new VirtualClock({ start: START, mode: 'realtime', speed: 1_000_000, wall, host, slicing });
    const seen: number[] = [];
    for (let i = 1; i <= 35; i++) clock.setTimer(START + i * 1000, () => {
      seen.push(i);
      cost();
    });
    wall.advance(1); // 1,000,000 virtual ms: every timer is due
    const ticks: number[] = [];
    while (pending.length > 0) {
      const next = pending.shift()!;
      if (ticks.length > 0) expect(next.ms).toBe(0);
      const before = seen.length;
      next.fn();
      ticks.push(seen.length - before);
    }
    expect(ticks).toEqual([10, 10, 10, 5]);
    expect(seen).toEqual(Array.from({ length: 35 }, (_, i) => i + 1));
    expect(clock.pending).toBe(0);
  });

  it('rejects a non-positive speed', () => {
    expect(() => new VirtualClock({ speed: 0 })).toThrow(RangeError);
  });
});

describe('parseDuration', () => {
  it('reads the control API forms', () => {
    expect(parseDuration('90s')).toBe(90_000);
    expect(parseDuration('5m')).toBe(300_000);
    expect(parseDuration('2h')).toBe(7_200_000);
    expect(parseDuration('1d')).toBe(86_400_000);
    expect(parseDuration('1h30m')).toBe(5_400_000);
    expect(parseDuration('250ms')).toBe(250);
  });

  it('rejects anything else', () => {
    for (const bad of ['', '5', 'm', '5 minutes', '-5m', '5x', '1h 30m']) expect(parseDuration(bad)).toBeUndefined();
  });
});
