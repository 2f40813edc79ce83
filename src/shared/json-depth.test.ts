import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import * as z from 'zod';
import { MAX_JSON_DEPTH, tooDeepAlong, tooDeepField } from './json-depth';
import { freeFormPaths } from './validation';
import { OrderSnapshotSchema } from '../orders/model';
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

describe('tooDeepAlong (where a schema lets a value nest: freeFormPaths)', () => {
  const schema = z.object({
    a: z.unknown(),
    b: z.array(z.object({ d: z.record(z.string(), z.unknown()).nullable(), n: z.number() })),
    c: z.union([z.string(), z.object({ e: z.any() })]),
    t: z.tuple([z.string(), z.unknown()]).optional(),
  });

  it('finds the free-form places of a schema, and of an order (CONTRACT §13)', () => {
    expect(freeFormPaths(schema)).toEqual([['a'], ['b', '*', 'd', '*'], ['c', 'e'], ['t', '*']]);
    expect(freeFormPaths(OrderSnapshotSchema)).toEqual([
      ['metadata', '*'],
      ['timeline', '*', 'details', '*'],
    ]);
    // A recursive schema nests without bound: free-form where it starts.
    const Tree: z.ZodType = z.lazy(() => z.object({ kids: z.array(Tree) }));
    expect(freeFormPaths(z.object({ tree: Tree }))).toEqual([['tree']]);
  });

  it('answers as the whole walk does for every value the schema accepts (seeded)', () => {
    const value = fc.record({
      a: fc.jsonValue({ maxDepth: 6 }),
      b: fc.array(fc.record({ d: fc.option(fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 6 })), { nil: null }), n: fc.integer() }), {
        maxLength: 3,
      }),
      c: fc.oneof(fc.string(), fc.record({ e: fc.jsonValue({ maxDepth: 6 }) })),
      t: fc.option(fc.tuple(fc.string(), fc.jsonValue({ maxDepth: 6 })), { nil: undefined }),
    });
    const paths = freeFormPaths(schema);
    fc.assert(
      // (from 4: the schema's own objects go 4 levels deep; a limit above them is the only kind used)
      fc.property(value, fc.integer({ min: 4, max: 9 }), (v, max) => {
        expect(schema.safeParse(v).success).toBe(true);
        const along = tooDeepAlong(v, paths, max);
        expect(along !== undefined).toBe(tooDeepField(v, max) !== undefined);
        if (along !== undefined) expect(tooDeepField({ [along]: (v as Record<string, unknown>)[along] }, max)).toBe(along);
      }),
      seeded({ numRuns: 3_000 }),
    );
  });

  it('walks 100,000 levels of a free-form place without overflowing the stack', () => {
    const deep = JSON.parse('['.repeat(100_000) + ']'.repeat(100_000));
    expect(tooDeepAlong({ b: [{ d: { x: deep } }] }, freeFormPaths(schema), MAX_JSON_DEPTH)).toBe('b');
  });
});
