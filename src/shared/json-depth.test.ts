import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { MAX_JSON_DEPTH, tooDeepField } from './json-depth';
import { seeded } from '../../test/support/property';

const nest = (levels: number, leaf: unknown = 1): unknown => {
  let v = leaf;
  for (let i = 0; i < levels; i++) v = { a: v };
  return v;
};

describe('tooDeepField', () => {
  it('accepts a body nested exactly to the limit', () => {
    expect(tooDeepField({ metadata: nest(MAX_JSON_DEPTH - 1) })).toBeUndefined();
  });

  it('names the top-level field that crosses the limit', () => {
    expect(tooDeepField({ ok: 1, metadata: nest(MAX_JSON_DEPTH) })).toBe('metadata');
    expect(tooDeepField({ a: [[[1]]] }, 3)).toBe('a');
    expect(tooDeepField([[[[1]]]], 3)).toBe('body');
  });

  it('walks 100,000 levels without overflowing the stack', () => {
    expect(tooDeepField({ metadata: JSON.parse('['.repeat(100_000) + ']'.repeat(100_000)) })).toBe('metadata');
  });

  it('ignores primitives and shallow bodies', () => {
    expect(tooDeepField(null)).toBeUndefined();
    expect(tooDeepField('x')).toBeUndefined();
    expect(tooDeepField({ a: { b: [1, 2, { c: null }] } })).toBeUndefined();
  });

  it('answers as the first, stack-based walk did, field for field (seeded)', () => {
    // the walk it replaced: an explicit stack, last field first
    const reference = (value: unknown, max: number): string | undefined => {
      if (typeof value !== 'object' || value === null) return undefined;
      const stack: Array<[unknown, number, string]> = [];
      if (Array.isArray(value)) stack.push([value, 1, 'body']);
      else for (const [key, child] of Object.entries(value)) stack.push([child, 2, key]);
      while (stack.length > 0) {
        const [node, depth, field] = stack.pop()!;
        if (typeof node !== 'object' || node === null) continue;
        if (depth > max) return field;
        const children = Array.isArray(node) ? node : Object.values(node);
        for (const child of children) if (typeof child === 'object' && child !== null) stack.push([child, depth + 1, field]);
      }
      return undefined;
    };
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 7 }), fc.integer({ min: 0, max: 7 }), (value, max) => {
        expect(tooDeepField(value, max)).toBe(reference(value, max));
      }),
      seeded({ numRuns: 5_000 }),
    );
  });
});
