import { describe, expect, it } from 'vitest';
import { AdvanceInterruptedError, ClockBusyError, VirtualClock } from './virtual-clock';
import { countedSlicing, manualClock, START } from '../../test/support/virtual-clock';

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
    for (let i = 1; i <= 1000; i++)
      clock.setTimer(START + i, () => {
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
    for (let i = 0; i < 100; i++)
      clock.setTimer(START + 5, () => {
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
    for (let i = 1; i <= 100; i++)
      clock.setTimer(
        START + i,
        () => {
          fires.push([`t${i}`, clock.now()]);
          cost();
        },
        `t${i}`,
      );
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
    for (let i = 1; i <= 100; i++)
      clock.setTimer(START + i, () => {
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
    for (let i = 1; i <= 100; i++)
      clock.setTimer(START + i, () => {
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

// CONTRACT §13: while a state document streams, an advance under way waits at its next step.
describe('VirtualClock.advanceToAsync while held', () => {
  it('fires nothing until the hold is let go, then goes on to its target', async () => {
    const clock = manualClock();
    const fired: number[] = [];
    for (let i = 1; i <= 3; i++) clock.setTimer(START + i * 1000, () => fired.push(i));
    const letGo = clock.hold();
    const advancing = clock.advanceToAsync(START + 5000, () => undefined);
    for (let i = 0; i < 20; i++) await new Promise<void>((r) => setImmediate(r));
    expect(fired).toEqual([]);
    expect(clock.pending).toBe(3);
    letGo();
    expect((await advancing).length).toBe(3);
    expect(fired).toEqual([1, 2, 3]);
    expect(clock.now()).toBe(START + 5000);
  });
});
