import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { ISO } from './iso';
import { seeded } from '../../test/support/property';

describe('ISO', () => {
  const same = (ms: number): void => {
    expect(ISO(ms), String(ms)).toBe(new Date(ms).toISOString());
  };

  it('writes what Date#toISOString writes, for any instant from 1970 to 9999 (seeded)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 253_402_300_799_999 }), (ms) => {
        same(ms);
      }),
      seeded({ numRuns: 20_000 }),
    );
  });

  it('writes it for instants a few ms apart, across days and years, and repeated', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 253_402_300_000_000 }),
        fc.array(fc.integer({ min: -5, max: 90_000_000 }), { maxLength: 20 }),
        (start, steps) => {
          let ms = start;
          for (const step of steps) {
            ms = Math.max(0, ms + step);
            same(ms);
            same(ms);
          }
        },
      ),
      seeded({ numRuns: 2_000 }),
    );
  });

  it('falls back to Date for the edges: before 1970, from year 10000 on, fractions', () => {
    for (const ms of [
      0, 86_399_999, 86_400_000, 951_782_400_000, 253_402_300_799_999, 253_402_300_800_000, -1, -62_198_755_200_000, 1.5,
      1_790_000_000_000.25, 8.64e15,
    ])
      same(ms);
    expect(() => ISO(Number.NaN)).toThrow(RangeError);
  });
});
