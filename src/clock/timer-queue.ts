/** One pending timer. */
export interface TimerEntry {
  id: number;
  due: number;
  seq: number;
  label: string;
  fire: () => void;
  cancelled: boolean;
}

/**
 * A binary min-heap of timers ordered by (due, insertion order). Cancel is O(1) and lazy:
 * cancelled entries are skipped when they reach the top, and the heap is compacted when
 * they outnumber the live ones.
 */
export class TimerQueue {
  private heap: TimerEntry[] = [];
  private readonly byId = new Map<number, TimerEntry>();
  private seq = 0;
  private nextId = 1;

  get size(): number {
    return this.byId.size;
  }

  push(due: number, fire: () => void, label: string): number {
    const entry: TimerEntry = { id: this.nextId++, due, seq: this.seq++, label, fire, cancelled: false };
    this.byId.set(entry.id, entry);
    this.heap.push(entry);
    this.up(this.heap.length - 1);
    return entry.id;
  }

  cancel(id: number): boolean {
    const entry = this.byId.get(id);
    if (!entry) return false;
    this.byId.delete(id);
    entry.cancelled = true;
    if (this.heap.length > 64 && this.heap.length > 2 * this.byId.size) this.compact();
    return true;
  }

  peek(): TimerEntry | undefined {
    this.dropCancelledTop();
    return this.heap[0];
  }

  /** Removes and returns the earliest timer if it is due at or before `at`. */
  popDue(at: number): TimerEntry | undefined {
    this.dropCancelledTop();
    const top = this.heap[0];
    if (!top || top.due > at) return undefined;
    this.removeAt(0);
    this.byId.delete(top.id);
    return top;
  }

  private dropCancelledTop(): void {
    while (this.heap[0]?.cancelled) this.removeAt(0);
  }

  private compact(): void {
    this.heap = this.heap.filter((e) => !e.cancelled);
    for (let i = (this.heap.length >> 1) - 1; i >= 0; i--) this.down(i);
  }

  clear(): void {
    this.heap = [];
    this.byId.clear();
  }

  private removeAt(index: number): void {
    const last = this.heap.pop();
    if (last === undefined || index === this.heap.length) return;
    this.heap[index] = last;
    this.up(index);
    this.down(index);
  }

  private less(a: TimerEntry, b: TimerEntry): boolean {
    return a.due < b.due || (a.due === b.due && a.seq < b.seq);
  }

  private up(i: number): void {
    const h = this.heap;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.less(h[i]!, h[parent]!)) break;
      [h[i], h[parent]] = [h[parent]!, h[i]!];
      i = parent;
    }
  }

  private down(i: number): void {
    const h = this.heap;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < h.length && this.less(h[l]!, h[m]!)) m = l;
      if (r < h.length && this.less(h[r]!, h[m]!)) m = r;
      if (m === i) return;
      [h[i], h[m]] = [h[m]!, h[i]!];
      i = m;
    }
  }
}
