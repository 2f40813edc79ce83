import { Faker, en } from '@faker-js/faker';

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const UPPER_NUM = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';

/** Seeded generator of keys, references and ids: same seed, same sequence. */
export interface Ids {
  /** A key with `prefix` and 32 random characters, e.g. `sk_test_…`. */
  key(prefix: string): string;
  /** A short unique id with `prefix`, e.g. `qt_…`, `dlv_…`. */
  id(prefix: string): string;
  /** An order reference: `ORD` + 13 readable characters. */
  reference(): string;
  /** The faker instance behind the ids (seeded). */
  readonly faker: Faker;
  /** Reseeds: the sequence restarts as after creation with `seed`. */
  reseed(seed: number): void;
}

/** Creates a seeded id generator. */
export function createIds(seed: number): Ids {
  const faker = new Faker({ locale: [en] });
  faker.seed(seed);
  const pick = (alphabet: string, length: number) => randomString(faker, alphabet, length);
  return {
    faker,
    key: (prefix) => `${prefix}${pick(ALNUM, 32)}`,
    id: (prefix) => `${prefix}${pick(ALNUM, 20)}`,
    reference: () => `ORD${pick(UPPER_NUM, 13)}`,
    reseed: (next) => faker.seed(next),
  };
}

/** FNV-1a 32-bit hash of a string: a stable, seedable number for per-lookup faker seeds. */
export function hashSeed(...parts: Array<string | number>): number {
  let h = 0x811c9dc5;
  for (const ch of parts.join('\u0000')) {
    h ^= ch.codePointAt(0) ?? 0;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

/**
 * `length` characters of `alphabet` from a seeded faker: one faker draw per five characters
 * (faker's own fromCharacters draws once per character, a visible cost on every order).
 */
export function randomString(faker: Faker, alphabet: string, length: number): string {
  const base = alphabet.length;
  const codes: number[] = [];
  while (codes.length < length) {
    let n = faker.number.int(0xffffffff);
    for (let i = 0; i < 5 && codes.length < length; i++) {
      codes.push(alphabet.charCodeAt(n % base));
      n = Math.floor(n / base);
    }
  }
  // One flat string: += would leave a rope of cons-strings, several times the memory.
  return String.fromCharCode(...codes);
}
