import * as z from 'zod';
import { Faker, en, generateMersenne53Randomizer, type Randomizer } from '@faker-js/faker';

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
  /**
   * The next number of the sequence as a uniform 32-bit integer: exactly what
   * `faker.number.int(0xffffffff)` draws, without faker's per-call option handling.
   */
  draw(): number;
  /** Reseeds: the sequence restarts as after creation with `seed`. */
  reseed(seed: number): void;
  /** Where the sequence stands, for a state snapshot (CONTRACT §13). */
  exportState(): IdsState;
  /** Continues the sequence from a snapshot: the same ids follow as if it had never stopped. */
  restore(state: IdsState): void;
}

/**
 * At most this many draws are replayed to restore a snapshot's sequence (~12 ns each, so about
 * 2.5 s): a sandbox with millions of orders has drawn tens of millions, and a document that says
 * 2^53 would hang the restore (issue 22).
 */
export const MAX_DRAWS = 200_000_000;

/** The seed and how many numbers were drawn since (faker's generator state is not readable). */
export const IdsStateSchema = z.object({
  seed: z.number().int(),
  draws: z.number().int().nonnegative().max(MAX_DRAWS, `must be at most ${MAX_DRAWS} (how many ids the sandbox has drawn)`),
});
export type IdsState = z.output<typeof IdsStateSchema>;

/** Creates a seeded id generator. */
export function createIds(seed: number): Ids {
  // faker's default generator, counted: replaying `draws` numbers restores its state.
  const inner = generateMersenne53Randomizer();
  let current = { seed, draws: 0 };
  const randomizer: Randomizer = {
    next() {
      current.draws++;
      return inner.next();
    },
    seed(next) {
      inner.seed(next);
      current = { seed: typeof next === 'number' ? next : Number(next[0] ?? 0), draws: 0 };
    },
  };
  const faker = new Faker({ locale: [en], randomizer });
  faker.seed(seed);
  const draw = () => Math.floor(randomizer.next() * 0x1_0000_0000);
  const pick = (alphabet: string, length: number, prefix?: string) => randomString(draw, alphabet, length, prefix);
  return {
    faker,
    draw,
    key: (prefix) => pick(ALNUM, 32, prefix),
    id: (prefix) => pick(ALNUM, 20, prefix),
    reference: () => pick(UPPER_NUM, 13, 'ORD'),
    reseed: (next) => faker.seed(next),
    exportState: () => ({ ...current }),
    restore(state) {
      faker.seed(state.seed);
      for (let i = 0; i < state.draws; i++) inner.next();
      current = { seed: state.seed, draws: state.draws };
    },
  };
}

/**
 * The first id `make` draws that `taken` does not know. A restored state may stand behind the
 * sequence that made its ids (issue 22: a create then overwrote a stored order): drawing again
 * keeps every stored record, and the same document still yields the same ids.
 */
export function unused(make: () => string, taken: (id: string) => boolean): string {
  for (;;) {
    const id = make();
    if (!taken(id)) return id;
  }
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
 * `length` characters of `alphabet` from seeded draws (`Ids#draw`): one draw per five characters
 * (faker's own fromCharacters draws once per character, a visible cost on every order), after
 * `prefix` (drawn from nothing).
 */
export function randomString(draw: () => number, alphabet: string, length: number, prefix = ''): string {
  const base = alphabet.length;
  const codes: number[] = [];
  for (let i = 0; i < prefix.length; i++) codes.push(prefix.charCodeAt(i));
  length += prefix.length;
  while (codes.length < length) {
    let n = draw();
    for (let i = 0; i < 5 && codes.length < length; i++) {
      codes.push(alphabet.charCodeAt(n % base));
      n = Math.floor(n / base);
    }
  }
  // One flat string, prefix included: += or `${prefix}${…}` would leave a cons-string (a rope
  // node, 32 bytes on a 64-bit heap) over two strings, kept as long as the id is.
  return String.fromCharCode(...codes);
}
