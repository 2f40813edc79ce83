import { describe, expect, it } from 'vitest';
import { nonFiniteNumberAt } from './json-numbers';

describe('nonFiniteNumberAt', () => {
  it('names the first number JSON cannot carry, in document order, or none', () => {
    expect(nonFiniteNumberAt({ a: 1, b: [2, { c: 3 }], d: 'Infinity' })).toBeUndefined();
    expect(nonFiniteNumberAt({ a: 1, b: [2, { c: Number.POSITIVE_INFINITY }], d: Number.NaN })).toBe('b.1.c');
    expect(nonFiniteNumberAt(Number.NEGATIVE_INFINITY)).toBe('(root)');
    // deep without recursion
    let deep: unknown = Number.NaN;
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(nonFiniteNumberAt(deep)).toMatch(/^0(\.0)*$/);
  });
});
