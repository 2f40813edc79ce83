import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createIds, DRAWS_PER_EPOCH, MAX_DRAWS } from './ids';
import { seeded } from '../../test/support/property';

describe('createIds', () => {
  it('draws what faker.number.int(0xffffffff) draws from the same seed, and counts it the same (seeded)', () => {
    fc.assert(
      fc.property(fc.integer(), fc.integer({ min: 1, max: 300 }), (seed, n) => {
        const ours = createIds(seed);
        const fakers = createIds(seed);
        for (let i = 0; i < n; i++) expect(ours.draw()).toBe(fakers.faker.number.int(0xffffffff));
        expect(ours.exportState()).toEqual(fakers.exportState());
        expect(ours.reference()).toBe(fakers.reference());
      }),
      seeded({ numRuns: 200 }),
    );
  });

  it('gives the same references and keys for the same seed, different ones for another', () => {
    const a = createIds(42);
    const b = createIds(42);
    const c = createIds(43);
    const seq = (ids: ReturnType<typeof createIds>) => [ids.reference(), ids.key('sk_test_'), ids.id('qt_'), ids.reference()];
    const first = seq(a);
    expect(seq(b)).toEqual(first);
    expect(seq(c)).not.toEqual(first);
    expect(first[0]).toMatch(/^ORD[A-HJ-NP-Z2-9]{13}$/);
    expect(first[1]).toMatch(/^sk_test_[A-Za-z0-9]{32}$/);
  });

  // The reliability issue: a restore replayed every draw (200 million took 4.6 s). Now it replays
  // at most one epoch's, and continues exactly as the run that never stopped, across epochs too.
  const next = (ids: ReturnType<typeof createIds>) => [ids.draw(), ids.reference(), ids.key('sk_test_')];

  it('continues from a snapshot exactly as the run that never stopped, on either side of an epoch', () => {
    for (const at of [0, 1, DRAWS_PER_EPOCH - 1, DRAWS_PER_EPOCH, DRAWS_PER_EPOCH + 1, 2 * DRAWS_PER_EPOCH + 3]) {
      const run = createIds(7);
      for (let i = 0; i < at; i++) run.draw();
      const restored = createIds(7);
      restored.restore(run.exportState());
      expect(restored.exportState()).toEqual({ seed: 7, draws: at });
      expect(next(restored), `at ${at}`).toEqual(next(run));
      expect(restored.exportState()).toEqual(run.exportState());
    }
  });

  it('starts its count and its sequence again past the largest count a document may hold', () => {
    const a = createIds(3);
    a.restore({ seed: 3, draws: MAX_DRAWS - 1 });
    a.draw();
    expect(a.exportState()).toEqual({ seed: 3, draws: MAX_DRAWS });
    const fresh = createIds(3);
    expect(a.draw()).toBe(fresh.draw());
    expect(a.exportState()).toEqual({ seed: 3, draws: 1 });
    expect(next(a)).toEqual(next(fresh));
  });

  it('restores the largest count a document may hold, the same way each time', () => {
    for (const draws of [MAX_DRAWS, MAX_DRAWS - 1, 200_000_001]) {
      const a = createIds(3);
      a.restore({ seed: 3, draws });
      const b = createIds(3);
      b.restore({ seed: 3, draws });
      expect(a.exportState()).toEqual({ seed: 3, draws });
      expect(next(a)).toEqual(next(b));
      expect(next(a)).not.toEqual(next(createIds(3)));
    }
  });
});
