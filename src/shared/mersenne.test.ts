import { describe, expect, it } from 'vitest';
import { generateMersenne53Randomizer } from '@faker-js/faker';
import { createLazyMersenne53 } from './mersenne';

describe('createLazyMersenne53', () => {
  it("draws faker's generateMersenne53Randomizer sequence from the same seeds, across generations", () => {
    const ours = createLazyMersenne53();
    const theirs = generateMersenne53Randomizer();
    for (const seed of [0, 1, 42, 0x811c9dc5, 0xffffffff, 2 ** 31, 123_456_789]) {
      ours.seed(seed);
      theirs.seed(seed);
      // 700 floats = 1400 words: past two twists of the 624-word state
      for (let i = 0; i < 700; i++) expect(ours.next()).toBe(theirs.next());
    }
  });

  it('re-seeding mid-sequence restarts it', () => {
    const ours = createLazyMersenne53(7);
    const first = [ours.next(), ours.next()];
    for (let i = 0; i < 500; i++) ours.next();
    ours.seed(7);
    expect([ours.next(), ours.next()]).toEqual(first);
  });
});
