import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { seeded } from '../../test/support/property';
import { createIds } from './ids';
import { ShardedMap } from './sharded-map';

type Op = { kind: 'set'; key: string; value: number } | { kind: 'delete'; key: string } | { kind: 'iterate' };

/** Keys from a small alphabet, so sets and deletes meet the same keys again. */
const key = fc.string({ unit: fc.constantFrom('a', 'b', 'c', 'é', '🚀'), minLength: 0, maxLength: 2 });
const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('set' as const), key, value: fc.integer() }) },
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('delete' as const), key }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'iterate' as const }) },
);

describe('ShardedMap (decision 021)', () => {
  it('answers as a Map does, insertion order included, through compactions (property)', () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 300 }), fc.integer({ min: 1, max: 8 }), (ops, minHoles) => {
        const map = new Map<string, { n: number }>();
        const sharded = new ShardedMap<string, { n: number }>(minHoles);
        for (const o of ops) {
          if (o.kind === 'set') {
            const value = { n: o.value };
            map.set(o.key, value);
            expect(sharded.set(o.key, value)).toBe(sharded);
          } else if (o.kind === 'delete') {
            expect(sharded.delete(o.key)).toBe(map.delete(o.key));
          } else {
            expect([...sharded]).toStrictEqual([...map]);
          }
          expect(sharded.size).toBe(map.size);
          if (o.kind !== 'iterate') expect(sharded.get(o.key)).toBe(map.get(o.key));
        }
        expect([...sharded.keys()]).toStrictEqual([...map.keys()]);
        expect([...sharded.values()]).toStrictEqual([...map.values()]);
        for (const k of [...map.keys(), ...ops.map((o) => (o.kind === 'iterate' ? '' : o.key))]) {
          expect(sharded.has(k)).toBe(map.has(k));
          expect(sharded.get(k)).toBe(map.get(k));
        }
      }),
      seeded({ numRuns: 300 }),
    );
  });

  it('visits what is added while iterating, skips what is deleted, as a Map does', () => {
    const sharded = new ShardedMap<string, string>(1);
    const map = new Map<string, string>();
    for (const k of ['a', 'b', 'c', 'd']) {
      sharded.set(k, k);
      map.set(k, k);
    }
    const seen = (m: ShardedMap<string, string> | Map<string, string>) => {
      const out: string[] = [];
      for (const v of m.values()) {
        out.push(v);
        if (v === 'a') {
          m.delete('c');
          m.set('e', 'e');
        }
      }
      return out;
    };
    expect(seen(sharded)).toStrictEqual(seen(map));
    expect(seen(sharded)).toStrictEqual(['a', 'b', 'd', 'e']);
  });

  it('keeps an iterator that began before a compaction on the entries still there, with their values now', () => {
    const sharded = new ShardedMap<string, string>(2);
    for (const k of ['a', 'b', 'c', 'd', 'e', 'f']) sharded.set(k, k);
    const it = sharded.values();
    expect(it.next().value).toBe('a');
    // Four of six deleted: more holes than entries, so the arrays are compacted under the iterator.
    for (const k of ['a', 'b', 'c', 'e']) sharded.delete(k);
    sharded.set('f', 'F');
    sharded.set('g', 'g');
    expect([...it]).toStrictEqual(['d', 'F']);
    expect([...sharded.values()]).toStrictEqual(['d', 'F', 'g']);
  });

  it('ends an iteration that a clear() overtook', () => {
    const sharded = new ShardedMap<string, string>();
    for (const k of ['a', 'b', 'c']) sharded.set(k, k);
    const seen: string[] = [];
    for (const v of sharded.values()) {
      seen.push(v);
      sharded.clear();
    }
    expect(seen).toStrictEqual(['a']);
    expect(sharded.size).toBe(0);
    expect([...sharded]).toStrictEqual([]);
  });

  it('spreads 100,000 order references evenly: no shard holds twice its share, so none grows by rehashing most of them', () => {
    const ids = createIds(7);
    const sharded = new ShardedMap<string, number>();
    for (let i = 0; i < 100_000; i++) sharded.set(ids.reference(), i);
    const sizes = sharded.shardSizes();
    expect(sizes.length).toBeGreaterThanOrEqual(64);
    expect(sizes.reduce((a, b) => a + b, 0)).toBe(100_000);
    expect(Math.max(...sizes)).toBeLessThan((2 * 100_000) / sizes.length);
    expect(Math.min(...sizes)).toBeGreaterThan(100_000 / sizes.length / 2);
  });

  it('takes number keys too: sequential ids spread over every shard, and 1 is not "1"', () => {
    const sharded = new ShardedMap<number, string>();
    for (let id = 1; id <= 25_600; id++) sharded.set(id, `t${id}`);
    expect(new Set(sharded.shardSizes())).toStrictEqual(new Set([100]));
    expect(sharded.get(300)).toBe('t300');
    expect(sharded.delete(300)).toBe(true);
    expect(sharded.has(300)).toBe(false);
    expect([...sharded.keys()].slice(297, 300)).toStrictEqual([298, 299, 301]);
    const mixed = new ShardedMap<string | number, string>();
    mixed.set(1, 'number').set('1', 'string');
    expect([mixed.get(1), mixed.get('1'), mixed.size]).toStrictEqual(['number', 'string', 2]);
  });
});
