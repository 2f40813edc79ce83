import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createIds } from './ids';
import { seeded } from '../../test/support/property';

describe('createIds', () => {
  it("draws what faker.number.int(0xffffffff) draws from the same seed, and counts it the same (seeded)", () => {
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
});
