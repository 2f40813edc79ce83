import { describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH, tooDeepField } from './json-depth';

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
});
