import { describe, expect, it } from 'vitest';
import { ceil, decimalPlaces, floor, round, sum } from './money';
import { seeded } from '../../test/support/property';

describe('money', () => {
  it('rounds half away from zero without binary drift', () => {
    expect(round(1.005, 2)).toBe(1.01);
    expect(round(-1.005, 2)).toBe(-1.01);
    expect(round(2.675, 2)).toBe(2.68);
    expect(round(1234.5, 0)).toBe(1235);
  });

  it('handles numbers JavaScript prints in exponent notation', () => {
    expect(round(1e-7, 8)).toBe(1e-7);
    expect(round(1.2e-9, 8)).toBe(0);
    expect(ceil(1e-7, 6)).toBe(0.000001);
    expect(floor(5e-7, 6)).toBe(0);
    expect(round(1e21, 2)).toBe(1e21);
  });

  it('floors and ceils to a precision', () => {
    expect(floor(1.239, 2)).toBe(1.23);
    expect(ceil(1.231, 2)).toBe(1.24);
    expect(ceil(1.23, 2)).toBe(1.23);
  });

  it('sums to the rounded total', () => {
    expect(sum([0.1, 0.2], 2)).toBe(0.3);
  });
});

describe('money fast paths agree with the exact decimal path', () => {
  it('for random values and precisions', async () => {
    const fc = (await import('fast-check')).default;
    const exactShift = (v: number, p: number) => {
      const [m, e = '0'] = String(v).split('e');
      return Number(`${m}e${Number(e) + p}`);
    };
    const exactRound = (v: number, d: number) => (v < 0 ? -1 : 1) * exactShift(Math.round(exactShift(Math.abs(v), d)), -d) + 0;
    const exactFloor = (v: number, d: number) => exactShift(Math.floor(exactShift(v, d) + 1e-9), -d) + 0;
    const exactCeil = (v: number, d: number) => exactShift(Math.ceil(exactShift(v, d) - 1e-9), -d) + 0;
    fc.assert(
      fc.property(fc.double({ min: -1e9, max: 1e9, noNaN: true }), fc.integer({ min: 0, max: 8 }), (v, d) => {
        expect(round(v, d)).toBe(exactRound(v, d));
        expect(floor(v, d)).toBe(exactFloor(v, d));
        expect(ceil(v, d)).toBe(exactCeil(v, d));
      }),
      seeded({ numRuns: 20_000 }),
    );
  });
});

describe('decimalPlaces', () => {
  it('counts the places of the shortest decimal form, exponents included', () => {
    expect(decimalPlaces(2.385)).toBe(3);
    expect(decimalPlaces(2.38)).toBe(2);
    expect(decimalPlaces(12)).toBe(0);
    expect(decimalPlaces(1e-7)).toBe(7);
    expect(decimalPlaces(1.5e-7)).toBe(8);
    expect(decimalPlaces(1e21)).toBe(0);
    expect(decimalPlaces(-0.125)).toBe(3);
    expect(decimalPlaces(0.1 + 0.2)).toBe(17);
  });
});
