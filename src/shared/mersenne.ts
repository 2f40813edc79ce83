import type { Randomizer } from '@faker-js/faker';

const N = 624;
const M = 397;
const MATRIX_A = 0x9908b0df;
const UPPER = 0x80000000;
const LOWER = 0x7fffffff;

/**
 * faker's default randomizer (MT19937, 53-bit floats: `generateMersenne53Randomizer`) drawing
 * the same numbers from the same seed, but cheap to re-seed. faker's `seed()` allocates a
 * 624-slot array and twists all of it at once (about 30 µs); a lookup that re-seeds and then
 * draws four numbers (the account lookup's name) pays that on every call. Here seeding fills a
 * preallocated array and the twist runs lazily, slot by slot, in the same order and in place,
 * so each output equals faker's (the unit test compares long sequences over many seeds).
 * Numeric seeds only (faker's array seeds are not needed here).
 */
export function createLazyMersenne53(seed = 0): Randomizer {
  const mt = new Uint32Array(N);
  /** Slots below `twisted` hold this generation's (twisted) state. */
  let twisted = 0;
  let index = 0;

  const init = (s: number) => {
    mt[0] = s;
    for (let i = 1; i < N; i++) {
      const prev = mt[i - 1]! ^ (mt[i - 1]! >>> 30);
      mt[i] = Math.imul(1812433253, prev) + i;
    }
    twisted = 0;
    index = 0;
  };

  /** Twists slots up to and including `upTo`, in order (faker's in-place twist, resumable). */
  const twistTo = (upTo: number) => {
    for (let t = twisted; t <= upTo; t++) {
      const y = (mt[t]! & UPPER) | (mt[(t + 1) % N]! & LOWER);
      mt[t] = mt[(t + M) % N]! ^ (y >>> 1) ^ (y & 1 ? MATRIX_A : 0);
    }
    twisted = upTo + 1;
  };

  const nextU32 = () => {
    if (index >= N) {
      // the next generation: faker twists the whole array again; lazily here, same result
      twisted = 0;
      index = 0;
    }
    if (index >= twisted) twistTo(index);
    let y = mt[index++]!;
    y ^= y >>> 11;
    y ^= (y << 7) & 0x9d2c5680;
    y ^= (y << 15) & 0xefc60000;
    y ^= y >>> 18;
    return y >>> 0;
  };

  init(seed);
  return {
    next() {
      const a = nextU32() >>> 5;
      const b = nextU32() >>> 6;
      return (a * 67108864 + b) * (1 / 9007199254740992);
    },
    seed(next) {
      if (typeof next !== 'number') throw new TypeError('createLazyMersenne53: numeric seeds only');
      init(next);
    },
  };
}
