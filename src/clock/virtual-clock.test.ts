import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { fixedWallClock } from './clock';
import { VirtualClock } from './virtual-clock';
import { inFiringOrder } from './timer-queue';
import { countedSlicing, fakeHost, manualClock, START } from '../../test/support/virtual-clock';
import { seeded } from '../../test/support/property';

// advanceToAsync has its own file: virtual-clock.async.test.ts.

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
    clock.setTimer(
      START + 1,
      () => {
        throw new Error('boom');
      },
      'bad',
    );
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
          const ids = specs.map((s, i) => clock.setTimer(START + s.due, () => seen.push({ due: s.due, i, at: clock.now() - START })));
          for (const [i, s] of specs.entries()) if (s.cancel) clock.clearTimer(ids[i]!);
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

describe('VirtualClock (realtime)', () => {
  it('advances from where it is when the wall moved on since the target was computed (a forward advance never "goes back")', async () => {
    // A wall clock that ticks 1 ms at every reading, as a busy machine's does between two reads.
    let ms = 1_000_000;
    const wall = { now: () => ms++ };
    const { host } = fakeHost();
    const clock = new VirtualClock({ start: START, mode: 'realtime', speed: 1_000_000, wall, host });
    const target = clock.now(); // advance(0) computed from this reading
    expect(clock.advanceTo(target)).toEqual([]); // before: RangeError "never goes back"
    expect(clock.now()).toBeGreaterThan(target);
    await expect(clock.advanceToAsync(clock.now() - 1, () => undefined)).resolves.toEqual([]);
    expect(clock.advance(0)).toEqual([]);
    // Manual mode never moves by itself: a target behind it is still refused.
    clock.configure({ mode: 'manual' });
    expect(() => clock.advanceTo(clock.now() - 1)).toThrow(/never goes back/);
  });

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
    for (let i = 1; i <= 35; i++)
      clock.setTimer(START + i * 1000, () => {
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

// CONTRACT §13: while a state document streams, no timer fires (the document is of one instant).
describe('VirtualClock.hold', () => {
  it('fires nothing on a realtime tick while held, arms no host timer, and fires what fell due once let go', () => {
    const wall = fixedWallClock(0);
    const { host, pending } = fakeHost();
    const clock = new VirtualClock({ start: START, mode: 'realtime', speed: 10, wall, host });
    let fired = 0;
    clock.setTimer(START + 5000, () => fired++);
    const letGo = clock.hold();
    expect(pending).toHaveLength(0);
    wall.advance(1000);
    expect(clock.tick()).toEqual([]);
    expect(fired).toBe(0);
    const second = clock.hold();
    letGo();
    letGo(); // a second call does nothing
    expect(pending).toHaveLength(0);
    second();
    expect(pending.at(-1)?.ms).toBe(0);
    pending.at(-1)!.fn();
    expect(fired).toBe(1);
  });
});

describe('inFiringOrder', () => {
  it('orders timers as the queue does (due, then insertion), across runs, without blocking (seeded)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.integer({ min: 0, max: 50 }), { maxLength: 9000 }), async (dues) => {
        const clock = manualClock();
        for (const [i, due] of dues.entries()) clock.setTimer(START + due, () => {}, `t${i}`, { kind: 'test', i });
        const { slicing, state } = countedSlicing(0);
        const ordered = [...(await inFiringOrder(clock.pendingTimersUnordered(), slicing))].map((t) => t.label);
        expect(ordered).toEqual(clock.pendingTimers().map((t) => t.label));
        expect(state.yields).toBe(Math.ceil(dues.length / 4096));
      }),
      seeded({ numRuns: 20 }),
    );
  });
});
