import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { seeded } from '../../test/support/property';
import { cutText, cutUtf8 } from './excerpt';

const wellFormed = (text: string) => (text as unknown as { isWellFormed(): boolean }).isWellFormed();

// Issue item 9: an excerpt never ends inside a character.
describe('cutText and cutUtf8', () => {
  it('cut before a surrogate pair or a UTF-8 sequence at the edge, and nowhere else', () => {
    expect(cutText('ab😀c', 3)).toBe('ab');
    expect(cutText('ab😀c', 4)).toBe('ab😀');
    expect(cutText('abc', 3)).toBe('abc');
    expect(cutText('abcd', 2)).toBe('ab');
    const bytes = Buffer.from('aé😀', 'utf8'); // 1 + 2 + 4 bytes
    expect(Buffer.from(cutUtf8(bytes, 2)).toString('utf8')).toBe('a');
    expect(Buffer.from(cutUtf8(bytes, 3)).toString('utf8')).toBe('aé');
    for (const max of [4, 5, 6]) expect(Buffer.from(cutUtf8(bytes, max)).toString('utf8')).toBe('aé');
    expect(Buffer.from(cutUtf8(bytes, 7)).toString('utf8')).toBe('aé😀');
  });

  it('give the longest well-formed prefix within the limit of any well-formed text (seeded)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 40 }), fc.nat(60), (text, max) => {
        const cut = cutText(text, max);
        expect(text.startsWith(cut)).toBe(true);
        expect(wellFormed(cut)).toBe(true);
        expect(cut.length).toBeGreaterThanOrEqual(Math.min(text.length, max) - 1);
        const bytes = Buffer.from(text, 'utf8');
        const head = Buffer.from(cutUtf8(bytes, max));
        expect(bytes.subarray(0, head.length).equals(head)).toBe(true);
        expect(Buffer.from(head.toString('utf8'), 'utf8').equals(head)).toBe(true);
        expect(head.length).toBeGreaterThanOrEqual(Math.min(bytes.length, max) - 3);
      }),
      seeded({ numRuns: 2_000 }),
    );
  });
});
