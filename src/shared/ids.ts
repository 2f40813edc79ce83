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
 * Draws per epoch: every this many draws the generator starts again from a seed made of the
 * sandbox's seed and the epoch's number, so a restore replays at most this many draws (~50 ms)
 * however many the sandbox made (CONTRACT §13: a restore never hangs; issue 22 and the
 * reliability issue: 200 million draws took 4.6 s). A sandbox that evicts as it goes (`--max-orders`)
 * draws without end, so no bound on `draws` near `--max-orders` could hold for what it saves.
 * Same seed, same run still: the epochs are a function of the seed.
 */
export const DRAWS_PER_EPOCH = 2 ** 22;

/**
 * The largest `draws` a document may say: far beyond any run (a draw a nanosecond for a century),
 * with room left to count on exactly (a number is exact to 2^53).
 */
export const MAX_DRAWS = 2 ** 52;

/** The seed and how many numbers were drawn since (faker's generator state is not readable). */
export const IdsStateSchema = z.object({
  seed: z.number().int(),
  draws: z.number().int().nonnegative().max(MAX_DRAWS, `must be at most ${MAX_DRAWS} (how many ids the sandbox has drawn)`),
});
export type IdsState = z.output<typeof IdsStateSchema>;

/** The seed of epoch `epoch` (> 0) of a sequence seeded with `seed`. */
const epochSeed = (seed: number, epoch: number) => hashSeed('ids epoch', seed, epoch);

/** Creates a seeded id generator. */
export function createIds(seed: number): Ids {
  // faker's default generator, counted: replaying `draws` numbers restores its state.
  const inner = generateMersenne53Randomizer();
  let current = { seed, draws: 0 };
  const randomizer: Randomizer = {
    next() {
      if (current.draws === MAX_DRAWS) {
        // The count starts again rather than pass what a document may say (CONTRACT §13: what is
        // saved loads again): the sequence restarts too, and `unused` skips an id drawn before.
        inner.seed(current.seed);
        current.draws = 0;
      } else if (current.draws % DRAWS_PER_EPOCH === 0 && current.draws > 0) {
        // A new epoch starts every DRAWS_PER_EPOCH draws (a restore replays at most that many).
        inner.seed(epochSeed(current.seed, current.draws / DRAWS_PER_EPOCH));
      }
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
      // The epoch the count falls in, then at most DRAWS_PER_EPOCH - 1 draws into it.
      const epoch = Math.floor(state.draws / DRAWS_PER_EPOCH);
      if (epoch > 0) inner.seed(epochSeed(state.seed, epoch));
      for (let i = 0; i < state.draws % DRAWS_PER_EPOCH; i++) inner.next();
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
