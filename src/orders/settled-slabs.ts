/**
 * Settled orders' packed state moved off the V8 heap, into shared slabs (docs/decisions/020-settled-state-in-slabs.md).
 *
 * A settled order's packed state (decision 018) is one string of about a kilobyte. A million of
 * them are most of the old generation: ~1.1 GB of old-space pages. Every scavenge walks those
 * pages, and every full GC sweeps them. Here the same text is copied into an `ArrayBuffer` slab
 * shared with the orders settled around it, and the order keeps a `Buffer` view of its bytes.
 * The view is one small heap object. The slab's bytes are not on the V8 heap.
 *
 * The slab's lifetime is the GC's: it lives while any view on it does, so nothing is freed by
 * hand and nothing can be read after it was freed. What a slab wastes are the bytes of views
 * that died while others on it live, so an order moves to a slab only once it has stayed
 * settled for a while (`SlabMove`). An order is seldom written again after that.
 *
 * The text comes back exactly: a string whose every character is below 256 is kept one byte
 * per character (latin1), any other two bytes per UTF-16 code unit (lone surrogates too). The
 * first byte of a view says which.
 */

/** Bytes per slab: a view larger than this gets a slab of its own. */
export const SLAB_BYTES = 64 * 1024;

const LATIN1 = 1;
const UTF16 = 2;
/** A character outside latin1: the text needs two bytes per code unit. */
const WIDE = /[^\x00-\xff]/;

let slab: ArrayBuffer | undefined;
let used = 0;

/** The text copied into the current slab (a new one when it is full), as a view of its bytes. */
export function toSlab(text: string): Buffer {
  const oneByte = !WIDE.test(text);
  const length = 1 + (oneByte ? text.length : 2 * text.length);
  if (slab === undefined || used + length > slab.byteLength) {
    slab = new ArrayBuffer(Math.max(SLAB_BYTES, length));
    used = 0;
  }
  const view = Buffer.from(slab, used, length);
  used += length;
  view[0] = oneByte ? LATIN1 : UTF16;
  view.write(text, 1, oneByte ? 'latin1' : 'utf16le');
  return view;
}

/** The text `toSlab` copied. */
export function fromSlab(view: Buffer): string {
  return view.toString(view[0] === LATIN1 ? 'latin1' : 'utf16le', 1);
}

/** Starts the next view on a fresh slab (a reset: the slab in use may hold only dropped orders). */
export function newSlab(): void {
  slab = undefined;
  used = 0;
}

/**
 * Moves what settles to a slab once `delay` more settles have happened since. Orders are
 * written again soon after they settle, if ever (a webhook's outcome noted, a late pay-in), and
 * a write after the move would leave dead bytes in a slab that other orders keep alive. A ring
 * of the last `delay` settled items: the one a new item replaces is old enough to move.
 */
export class SlabMove<T> {
  private readonly ring: Array<T | undefined>;
  private at = 0;

  constructor(
    delay: number,
    private readonly move: (item: T) => void,
  ) {
    this.ring = new Array<T | undefined>(Math.max(1, delay)).fill(undefined);
  }

  /** `item` has just settled: the item settled `delay` settles ago moves now. */
  settled(item: T): void {
    const old = this.ring[this.at];
    this.ring[this.at] = item;
    this.at = (this.at + 1) % this.ring.length;
    if (old !== undefined) this.move(old);
  }

  /** Forgets every item waiting (a reset drops every order: none is kept alive by this ring). */
  clear(): void {
    this.ring.fill(undefined);
    this.at = 0;
  }
}
