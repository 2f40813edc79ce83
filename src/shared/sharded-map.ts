/**
 * A `Map` of string or number keys that can hold millions of entries without the pause one `Map` takes
 * to grow (docs/decisions/021-store-index-without-rehash-pauses.md).
 *
 * V8 grows a `Map` by rehashing every entry into a table twice the size, all at once, inside
 * whichever `set` found it full. With a million orders that is ~60–90 ms, and ~250 ms at two
 * million. Here the keys are spread over `SHARDS` maps by a hash, so a growth rehashes one
 * shard's share.
 *
 * Iteration is in insertion order, as a `Map`'s is. Each entry also has a slot in two parallel
 * arrays (key, value), and a shard maps a key to its slot, as a small integer. So there is no
 * heap object per entry beyond what a `Map` keeps.
 * - A deleted entry's slot becomes a hole, which iteration skips.
 * - Once holes are most of the slots, `delete` compacts the arrays (one pass, in order).
 * - Setting a key that is there keeps its place; a key deleted and set again goes last.
 * - Entries added while iterating are visited, as with a `Map`. After a compaction, an iterator
 *   that started before it goes on over the slots it started with, gives each entry's value as
 *   it is now and skips the entries deleted since. It does not see entries added after the
 *   compaction.
 */

/** Shards: a growth rehashes about 1/256 of the entries (4,000 of a million). */
const SHARDS = 256;
/** Holes before a compaction is worth a pass: below this, skipping them costs little. */
const MIN_HOLES_TO_COMPACT = 4096;

export class ShardedMap<K extends string | number, V extends NonNullable<unknown>> implements Iterable<[K, V]> {
  private readonly shards: Array<Map<K, number>> = Array.from({ length: SHARDS }, () => new Map<K, number>());
  private keyAt: Array<K | undefined> = [];
  private valueAt: Array<V | undefined> = [];
  private holes = 0;
  private count = 0;

  /** `minHolesToCompact`: holes before a compaction is considered (tests set it low). */
  constructor(private readonly minHolesToCompact = MIN_HOLES_TO_COMPACT) {}

  get size(): number {
    return this.count;
  }

  get(key: K): V | undefined {
    const slot = this.shardOf(key).get(key);
    return slot === undefined ? undefined : this.valueAt[slot];
  }

  has(key: K): boolean {
    return this.shardOf(key).has(key);
  }

  set(key: K, value: V): this {
    const shard = this.shardOf(key);
    const slot = shard.get(key);
    if (slot !== undefined) {
      this.valueAt[slot] = value;
      return this;
    }
    shard.set(key, this.valueAt.length);
    this.keyAt.push(key);
    this.valueAt.push(value);
    this.count++;
    return this;
  }

  delete(key: K): boolean {
    const shard = this.shardOf(key);
    const slot = shard.get(key);
    if (slot === undefined) return false;
    shard.delete(key);
    this.keyAt[slot] = undefined;
    this.valueAt[slot] = undefined;
    this.count--;
    this.holes++;
    if (this.holes >= this.minHolesToCompact && this.holes * 2 > this.valueAt.length) this.compact();
    return true;
  }

  clear(): void {
    for (const shard of this.shards) shard.clear();
    this.keyAt = [];
    this.valueAt = [];
    this.holes = 0;
    this.count = 0;
  }

  entries(): IterableIterator<[K, V]> {
    return this.walk((key, value) => [key, value]);
  }

  keys(): IterableIterator<K> {
    return this.walk((key) => key);
  }

  values(): IterableIterator<V> {
    return this.walk((_, value) => value);
  }

  [Symbol.iterator](): IterableIterator<[K, V]> {
    return this.entries();
  }

  /** The live entries in insertion order, each as `pick` makes it. */
  private *walk<T>(pick: (key: K, value: V) => T): IterableIterator<T> {
    const keys = this.keyAt;
    const values = this.valueAt;
    for (let slot = 0; slot < values.length; slot++) {
      let value = values[slot];
      if (value === undefined) continue;
      const key = keys[slot]!;
      if (values !== this.valueAt) {
        // Compacted (or cleared) since this began: these arrays are no longer written, so the
        // shards say whether the entry is still there, and its value now.
        value = this.get(key);
        if (value === undefined) continue;
      }
      yield pick(key, value);
    }
  }

  /** How many entries each shard holds (how evenly the keys spread). */
  shardSizes(): number[] {
    return this.shards.map((shard) => shard.size);
  }

  /** The live entries moved to fresh arrays, in order, and each shard told its key's new slot. */
  private compact(): void {
    const keys: K[] = [];
    const values: V[] = [];
    for (let slot = 0; slot < this.valueAt.length; slot++) {
      const value = this.valueAt[slot];
      if (value === undefined) continue;
      const key = this.keyAt[slot]!;
      this.shardOf(key).set(key, values.length);
      keys.push(key);
      values.push(value);
    }
    this.keyAt = keys;
    this.valueAt = values;
    this.holes = 0;
  }

  private shardOf(key: K): Map<K, number> {
    // A number as its low 32 bits (sequential ids spread evenly); a string by FNV-1a over its
    // UTF-16 code units.
    let h: number;
    if (typeof key === 'number') h = key | 0;
    else {
      h = 0x811c9dc5;
      for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193);
    }
    return this.shards[(h >>> 0) % SHARDS]!;
  }
}
