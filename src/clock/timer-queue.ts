import { ShardedMap } from '../shared/sharded-map';
/**
 * What a timer runs when it fires: handed its own tag and id, so one function can serve every
 * timer of a kind (an order's delayed events: no closure kept per timer, decision 015).
 */
export type TimerFire = (tag: TimerTag | undefined, id: number) => void;

/** A timer's line in a list: a string, or a function of its tag (shared; called when read). */
export type TimerLabel = string | ((tag: TimerTag | undefined) => string);

/** One pending timer. */
class TimerEntry {
  readonly id: number;
  readonly due: number;
  readonly seq: number;
  /**
   * When it fired (its due time, or later if it was scheduled in the past): set as it fires, not
   * before (one boxed number less per pending timer, decision 015).
   */
  declare at: number;
  readonly fire: TimerFire;
  cancelled = false;
  /** What the timer is for, as plain data, so a state snapshot can re-create it (CONTRACT §13). */
  readonly tag: TimerTag | undefined;
  private readonly name: TimerLabel;

  constructor(id: number, due: number, seq: number, name: TimerLabel, fire: TimerFire, tag: TimerTag | undefined) {
    this.id = id;
    this.due = due;
    this.seq = seq;
    this.fire = fire;
    this.tag = tag;
    this.name = name;
  }

  get label(): string {
    const name = this.name;
    return typeof name === 'string' ? name : name(this.tag);
  }
}

/** A timer's purpose as JSON: `kind` names the module that can re-create it. */
export interface TimerTag {
  kind: string;
  [field: string]: unknown;
}

/** Width of a bucket of due times, virtual ms. */
const BUCKET_MS = 1000;

const before = (a: TimerEntry, b: TimerEntry) => a.due < b.due || (a.due === b.due && a.seq < b.seq);
/** `before` as a sort's comparator (`seq` is unique: no two timers compare equal). */
const firingOrder = (a: { due: number; seq: number }, b: { due: number; seq: number }) => a.due - b.due || a.seq - b.seq;

/** Timers sorted per run of this many, then merged: each run's sort is a few ms of work. */
const RUN = 4096;

/**
 * `entries` in firing order, without blocking the event loop for long (CONTRACT §9): sorted in
 * runs of RUN with a pause after each `sliceMs` of work, then merged as they are iterated (a heap
 * of the runs' heads). A state save takes 200,000 pending timers this way (a sort in one go: ~0.5 s).
 */
export async function inFiringOrder<T extends { due: number; seq: number }>(
  entries: readonly T[],
  slicing: { now(): number; sliceMs: number; yield(): Promise<void> },
): Promise<Iterable<T>> {
  const runs: T[][] = [];
  let sliceStart = slicing.now();
  for (let i = 0; i < entries.length; i += RUN) {
    runs.push(entries.slice(i, i + RUN).sort(firingOrder));
    if (slicing.now() - sliceStart >= slicing.sliceMs) {
      await slicing.yield();
      sliceStart = slicing.now();
    }
  }
  return {
    *[Symbol.iterator]() {
      // heads: [run, index] ordered by the run's item at index
      const heads: Array<[number, number]> = [];
      const item = ([run, at]: [number, number]) => runs[run]![at]!;
      const less = (a: [number, number], b: [number, number]) => firingOrder(item(a), item(b)) < 0;
      const down = (i: number) => {
        for (;;) {
          let child = 2 * i + 1;
          if (child >= heads.length) return;
          if (child + 1 < heads.length && less(heads[child + 1]!, heads[child]!)) child++;
          if (!less(heads[child]!, heads[i]!)) return;
          [heads[i], heads[child]] = [heads[child]!, heads[i]!];
          i = child;
        }
      };
      for (const [i, run] of runs.entries()) if (run.length > 0) heads.push([i, 0]);
      for (let i = (heads.length >> 1) - 1; i >= 0; i--) down(i);
      while (heads.length > 0) {
        const top = heads[0]!;
        yield item(top);
        if (top[1] + 1 < runs[top[0]]!.length) {
          top[1]++;
        } else {
          heads[0] = heads[heads.length - 1]!;
          heads.pop();
        }
        down(0);
      }
    },
  };
}

/** A small binary min-heap of entries ordered by (due, insertion order). */
class EntryHeap {
  readonly items: TimerEntry[] = [];

  push(entry: TimerEntry): void {
    const h = this.items;
    let i = h.length;
    h.push(entry);
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!before(entry, h[parent]!)) break;
      h[i] = h[parent]!;
      i = parent;
    }
    h[i] = entry;
  }

  pop(): TimerEntry | undefined {
    const h = this.items;
    const top = h[0];
    const last = h.pop();
    if (h.length === 0 || last === undefined) return top;
    let i = 0;
    const n = h.length;
    for (;;) {
      let child = 2 * i + 1;
      if (child >= n) break;
      if (child + 1 < n && before(h[child + 1]!, h[child]!)) child++;
      if (!before(h[child]!, last)) break;
      h[i] = h[child]!;
      i = child;
    }
    h[i] = last;
    return top;
  }
}

/** A binary min-heap of numbers (bucket keys). */
class NumberHeap {
  readonly items: number[] = [];

  push(value: number): void {
    const h = this.items;
    let i = h.length;
    h.push(value);
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (h[parent]! <= value) break;
      h[i] = h[parent]!;
      i = parent;
    }
    h[i] = value;
  }

  pop(): void {
    const h = this.items;
    const last = h.pop();
    if (h.length === 0 || last === undefined) return;
    let i = 0;
    const n = h.length;
    for (;;) {
      let child = 2 * i + 1;
      if (child >= n) break;
      if (child + 1 < n && h[child + 1]! < h[child]!) child++;
      if (h[child]! >= last) break;
      h[i] = h[child]!;
      i = child;
    }
    h[i] = last;
  }
}

/**
 * Timers ordered by (due, insertion order), bucketed by due second: a heap of bucket keys, and
 * a small heap per bucket. Popping touches one small, recently used heap instead of sifting
 * through one heap of every timer, so the cost per timer stays nearly flat from 1k to 100k.
 * Cancel is O(1) and lazy: cancelled entries are skipped when reached, and everything is
 * rebuilt when they outnumber the live ones.
 */
export class TimerQueue {
  private readonly keys = new NumberHeap();
  private buckets = new Map<number, EntryHeap>();
  /** Pending timers by id; sharded, so a million pending timers never rehash at once (decision 021). */
  private readonly byId = new ShardedMap<number, TimerEntry>();
  private cancelledCount = 0;
  private seq = 0;
  private nextId = 1;

  get size(): number {
    return this.byId.size;
  }

  push(due: number, fire: TimerFire, label: TimerLabel, tag?: TimerTag): number {
    const entry = new TimerEntry(this.nextId++, due, this.seq++, label, fire, tag);
    this.byId.set(entry.id, entry);
    this.insert(entry);
    return entry.id;
  }

  cancel(id: number): boolean {
    const entry = this.byId.get(id);
    if (!entry) return false;
    this.byId.delete(id);
    entry.cancelled = true;
    this.cancelledCount++;
    if (this.cancelledCount > 1024 && this.cancelledCount > this.byId.size) this.rebuild();
    return true;
  }

  /** A pending timer by id (undefined once fired or cancelled). */
  get(id: number): TimerEntry | undefined {
    return this.byId.get(id);
  }

  peek(): TimerEntry | undefined {
    const bucket = this.topBucket();
    return bucket?.items[0];
  }

  /** Removes and returns the earliest timer if it is due at or before `at`. */
  popDue(at: number): TimerEntry | undefined {
    const bucket = this.topBucket();
    const top = bucket?.items[0];
    if (!bucket || !top || top.due > at) return undefined;
    bucket.pop();
    this.byId.delete(top.id);
    return top;
  }

  /** Every pending timer in firing order. */
  entries(): TimerEntry[] {
    return [...this.byId.values()].sort(firingOrder);
  }

  /** Every pending timer, in no order (`inFiringOrder` orders them without blocking). */
  unordered(): TimerEntry[] {
    return [...this.byId.values()];
  }

  clear(): void {
    this.keys.items.length = 0;
    this.buckets.clear();
    this.byId.clear();
    this.cancelledCount = 0;
  }

  private insert(entry: TimerEntry): void {
    const key = Math.floor(entry.due / BUCKET_MS);
    let bucket = this.buckets.get(key);
    if (!bucket) {
      bucket = new EntryHeap();
      this.buckets.set(key, bucket);
      this.keys.push(key);
    }
    bucket.push(entry);
  }

  /** The bucket holding the earliest live timer, dropping cancelled entries and empty buckets. */
  private topBucket(): EntryHeap | undefined {
    for (;;) {
      const key = this.keys.items[0];
      if (key === undefined) return undefined;
      const bucket = this.buckets.get(key)!;
      while (bucket.items[0]?.cancelled) {
        bucket.pop();
        this.cancelledCount--;
      }
      if (bucket.items.length > 0) return bucket;
      this.buckets.delete(key);
      this.keys.pop();
    }
  }

  private rebuild(): void {
    const live = [...this.byId.values()];
    this.keys.items.length = 0;
    this.buckets = new Map();
    this.cancelledCount = 0;
    for (const entry of live) this.insert(entry);
  }
}
