/**
 * The request inspector's bodies (a request's and its answer's), kept as UTF-8 bytes in chunks
 * outside the JS heap rather than as strings in it (docs/decisions/024-inspector-bodies-off-heap.md).
 *
 * A create's answer is a string of its own (~1.3 KB) that the ring keeps through the next 10,000
 * requests: every one was copied by two scavenges and promoted, and kept the young generation's
 * collections busy (in process, scavenges took 11–18 µs of a create's 65–79). Bytes in a chunk
 * cost the GC nothing.
 *
 * Bodies are written in the order the ring's slots are, and a slot is written again only when it
 * is the oldest: chunks fill one after another and empty in the same order, so a chunk is let go
 * (or kept for reuse) once no body in it is kept. A body read is decoded again each time.
 * A string that UTF-8 cannot carry exactly (a lone surrogate, from an excerpt cut inside a pair)
 * is kept as the string it is, and so is a text equal to the last one of its kind (a polled
 * answer the render cache shares, a request sent again): one string for all its records.
 */
export class BodyBytes {
  /** The chunks by index; undefined once let go. */
  private readonly chunks: Array<Buffer | undefined> = [];
  /** Per chunk: how many kept bodies are in it. */
  private readonly counts: number[] = [];
  /** Indexes of chunks let go, to be given to the next ones opened. */
  private readonly freeIndexes: number[] = [];
  /** A chunk emptied, kept to be written again rather than allocated anew. */
  private spare: Buffer | undefined;
  /** The chunk written to, and how much of it is used. */
  private current = -1;
  private used = 0;
  /** Per key (a slot and which body): its chunk (-1: none; -2: the string in `strings`), start and length in bytes. */
  private readonly chunkOf: number[] = [];
  private readonly startOf: number[] = [];
  private readonly lengthOf: number[] = [];
  private readonly strings: Array<string | undefined> = [];
  /** The last text set, by kind (a key's parity: a request's body or an answer's). */
  private readonly last: Array<string | undefined> = [undefined, undefined];

  constructor(private readonly chunkSize = CHUNK_SIZE) {}

  /** Keeps `text` under `key`, in place of what the key held; undefined keeps nothing. */
  set(key: number, text: string | undefined): void {
    this.delete(key);
    if (text === undefined || text === '') return;
    // The same text as the last one of its kind (a polled answer, often the render cache's own
    // string; a request sent again): the string kept for that one, which costs nothing more.
    const kind = key & 1;
    const last = this.last[kind];
    if (text === last) {
      this.chunkOf[key] = STRING;
      this.strings[key] = last;
      return;
    }
    this.last[kind] = text;
    if (!(text as WellFormed).isWellFormed()) {
      this.chunkOf[key] = STRING;
      this.strings[key] = text;
      return;
    }
    // At most 3 bytes per UTF-16 unit: room for the worst case, so the write is never cut.
    const most = text.length * 3;
    if (this.current < 0 || this.used + most > this.chunks[this.current]!.length) this.open(most);
    const chunk = this.chunks[this.current]!;
    const written = chunk.write(text, this.used, 'utf8');
    this.chunkOf[key] = this.current;
    this.startOf[key] = this.used;
    this.lengthOf[key] = written;
    this.counts[this.current]!++;
    this.used += written;
  }

  /** The text kept under `key`, decoded; undefined when it holds none. */
  get(key: number): string | undefined {
    const chunk = this.chunkOf[key];
    if (chunk === undefined || chunk === NONE) return undefined;
    if (chunk === STRING) return this.strings[key];
    const start = this.startOf[key]!;
    return this.chunks[chunk]!.toString('utf8', start, start + this.lengthOf[key]!);
  }

  /** Lets go of what `key` held. */
  delete(key: number): void {
    const chunk = this.chunkOf[key];
    if (chunk === undefined || chunk === NONE) return;
    this.chunkOf[key] = NONE;
    if (chunk === STRING) {
      this.strings[key] = undefined;
      return;
    }
    if (--this.counts[chunk]! === 0 && chunk !== this.current) this.release(chunk);
  }

  /** Lets go of everything (the chunks too, but one kept for reuse). */
  clear(): void {
    for (let key = 0; key < this.chunkOf.length; key++) this.delete(key);
    if (this.current >= 0 && this.counts[this.current] === 0) this.release(this.current);
    this.last.fill(undefined);
    this.current = -1;
    this.used = 0;
  }

  /** Bytes held in chunks, the spare included (tests read it). */
  get chunkBytes(): number {
    let total = this.spare?.length ?? 0;
    for (const chunk of this.chunks) total += chunk?.length ?? 0;
    return total;
  }

  /** A new chunk to write to, with room for at least `most` bytes. */
  private open(most: number): void {
    const previous = this.current;
    const size = Math.max(this.chunkSize, most);
    let chunk: Buffer;
    if (this.spare && this.spare.length >= size) {
      chunk = this.spare;
      this.spare = undefined;
    } else {
      chunk = Buffer.allocUnsafeSlow(size);
    }
    // A chunk's index is free again once no key names it (`release`).
    this.current = this.freeIndexes.pop() ?? this.chunks.length;
    this.chunks[this.current] = chunk;
    this.counts[this.current] = 0;
    this.used = 0;
    if (previous >= 0 && this.counts[previous] === 0) this.release(previous);
  }

  private release(chunk: number): void {
    const buffer = this.chunks[chunk];
    this.chunks[chunk] = undefined;
    this.freeIndexes.push(chunk);
    if (buffer && buffer.length === this.chunkSize && !this.spare) this.spare = buffer;
  }
}

/** A ring slot's request body key and its answer's: the key's parity is the body's kind (`last`). */
export const requestBodyKey = (slot: number): number => 2 * slot;
export const answerBodyKey = (slot: number): number => 2 * slot + 1;

const CHUNK_SIZE = 1 << 20;
const NONE = -1;
const STRING = -2;

type WellFormed = string & { isWellFormed(): boolean };
