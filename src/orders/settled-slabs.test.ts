import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { seeded } from '../../test/support/property';
import { fromSlab, newSlab, SLAB_BYTES, SlabMove, toSlab } from './settled-slabs';

describe('toSlab / fromSlab (decision 020)', () => {
  it('gives back exactly the text it copied, one byte a character when it can, two otherwise', () => {
    const texts = ['', 'plain ascii', 'latin1: é ÿ \u0000 \u00ff', 'wide: Ádá 🚀 日本', 'lone surrogates: \ud800 x \udfff', '\n'.repeat(3)];
    const views = texts.map(toSlab);
    expect(views.map(fromSlab)).toStrictEqual(texts);
    expect(views[1]!.length).toBe(1 + 'plain ascii'.length);
    expect(views[2]!.length).toBe(1 + texts[2]!.length);
    expect(views[3]!.length).toBe(1 + 2 * texts[3]!.length);
  });

  it('packs views side by side in one slab without overlapping, and every text stays as written (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.string({ maxLength: 2000 }), fc.string({ unit: 'binary', maxLength: 300 }), fc.string({ unit: 'grapheme-composite', maxLength: 300 })), { maxLength: 120 }), (texts) => {
        newSlab();
        const views = texts.map(toSlab);
        // Read back only after every later text was written beside them.
        expect(views.map(fromSlab)).toStrictEqual(texts);
      }),
      seeded({ numRuns: 100 }),
    );
  });

  it('shares a slab between small views and gives a larger one a slab of its own', () => {
    newSlab();
    const a = toSlab('a'.repeat(100));
    const b = toSlab('b'.repeat(100));
    expect(b.buffer).toBe(a.buffer);
    expect(a.buffer.byteLength).toBe(SLAB_BYTES);
    const big = 'c'.repeat(SLAB_BYTES * 2);
    const c = toSlab(big);
    expect(c.buffer).not.toBe(a.buffer);
    expect(fromSlab(c)).toBe(big);
    expect(fromSlab(a)).toBe('a'.repeat(100));
    // A full slab: the next view starts a new one.
    const filler = toSlab('d'.repeat(SLAB_BYTES - 10));
    const next = toSlab('e'.repeat(20));
    expect(next.buffer).not.toBe(filler.buffer);
    expect(fromSlab(filler)).toBe('d'.repeat(SLAB_BYTES - 10));
  });
});

describe('SlabMove', () => {
  it('moves an item once `delay` more have settled, each time it settled, and forgets on clear', () => {
    const moved: string[] = [];
    const move = new SlabMove<string>(3, (x) => moved.push(x));
    for (const x of ['a', 'b', 'c']) move.settled(x);
    expect(moved).toStrictEqual([]);
    move.settled('d');
    expect(moved).toStrictEqual(['a']);
    move.settled('a'); // settled again: it moves again later (the move itself skips what is there already)
    move.settled('e');
    expect(moved).toStrictEqual(['a', 'b', 'c']);
    move.clear();
    for (const x of ['f', 'g', 'h']) move.settled(x);
    expect(moved).toStrictEqual(['a', 'b', 'c']);
    move.settled('i');
    expect(moved).toStrictEqual(['a', 'b', 'c', 'f']);
  });
});
