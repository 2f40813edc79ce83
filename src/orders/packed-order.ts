import type { TimelineGroup } from './order.vocabulary';

/** One timeline entry as a record (order.records.ts's `TimelineRecord`, which may not be imported here: it imports this). */
export interface TimelineRecord {
  group: TimelineGroup;
  event: string;
  details: Record<string, unknown> | null;
  at: number;
}

type Details = NonNullable<TimelineRecord['details']>;
/** What `extra` holds: a details object as given, a delivery id alone (`{ delivery_id }`) as its string, or an instant that is not a safe integer. */
export type Extra = Details | string | number;

/**
 * An order's timeline kept packed (docs/decisions/009-packed-order-records.md): one short
 * one-byte string of varints (per entry: what it is, interned with any shared details; where its
 * own details are; the time since the entry before), and the details of its own in a list beside
 * it. As plain records, each entry was an object of four fields and a slot in an array (~70
 * bytes, ~15 per finished order: a third of a stored order's heap, and most of the objects a
 * full GC walks); packed, a finished order's timeline is ~3 objects and ~200 bytes. Entries are
 * read as fresh `TimelineRecord`s; a details object is kept as given, so a shared one stays
 * shared. `packed-timeline.test.ts` checks it answers what an array of records answers.
 * @example const t = new PackedTimeline(); t.push('status', 'initiated', null, now); t.toArray();
 */
export class PackedTimeline {
  /** The entries' varints, one per character (0–255): a flat one-byte string. */
  private bytes = '';
  /** Details of the entries' own, and any instant that is not a safe non-negative integer. */
  private extra: Extra[] | undefined;

  /** A timeline holding these records (a restored snapshot's). */
  static from(records: readonly TimelineRecord[]): PackedTimeline {
    const t = new PackedTimeline();
    const out: number[] = [];
    let last = 0;
    for (const r of records) {
      t.encode(out, codeOf(r.group, r.event, sharedOf(r.details)), r.details, r.at, last);
      if (isPlainInstant(r.at)) last = r.at;
    }
    t.bytes = flat(out);
    return t;
  }

  /**
   * A timeline of these varints and own details as another timeline's `raw()` gave them (a
   * settled order's, decision 018: codes are this process's, so never written anywhere).
   */
  static fromRaw(bytes: string, extra: readonly Extra[] | undefined): PackedTimeline {
    const t = new PackedTimeline();
    t.bytes = bytes;
    t.extra = extra as Extra[] | undefined;
    return t;
  }

  /** Its varints and own details as they are, for `fromRaw`. */
  raw(): [bytes: string, extra: readonly Extra[] | undefined] {
    return [this.bytes, this.extra];
  }

  get length(): number {
    const s = this.bytes;
    let n = 0;
    cursor = 0;
    while (cursor < s.length) {
      skipVarint(s);
      skipVarint(s);
      skipVarint(s);
      n++;
    }
    return n;
  }

  /** Appends an entry; its index. */
  push(group: TimelineGroup, event: string, details: TimelineRecord['details'], at: number): number {
    const s = this.bytes;
    const out: number[] = [];
    let n = 0;
    let last = 0;
    cursor = 0;
    while (cursor < s.length) {
      skipVarint(s);
      const tag = readVarint(s);
      const body = readVarint(s);
      if (tag % 4 === 0) last += body;
      else if (tag % 4 === 1) last -= body;
      n++;
    }
    for (let i = 0; i < s.length; i++) out.push(s.charCodeAt(i));
    this.encode(out, codeOf(group, event, sharedOf(details)), details, at, last);
    this.bytes = flat(out);
    return n;
  }

  group(i: number): TimelineGroup {
    return this.entry(i).group;
  }

  event(i: number): string {
    return this.entry(i).event;
  }

  at(i: number): number {
    return this.entry(i).at;
  }

  details(i: number): TimelineRecord['details'] {
    return this.entry(i).details;
  }

  /** Replaces an entry's details (kept as given; a lone delivery id is kept as its string). */
  setDetails(i: number, details: TimelineRecord['details']): void {
    const s = this.bytes;
    const out: number[] = [];
    let n = 0;
    cursor = 0;
    while (cursor < s.length) {
      const from = cursor;
      const code = readVarint(s);
      const tag = readVarint(s);
      const body = readVarint(s);
      if (n++ !== i) {
        for (let j = from; j < cursor; j++) out.push(s.charCodeAt(j));
        continue;
      }
      // This entry again, with the new details: its group and event, its time as it was.
      const kind = CODES[code]!;
      const shared = sharedOf(details);
      varint(out, codeOf(kind.group, kind.event, shared));
      let ref = Math.floor(tag / 4);
      if (details === null || shared !== null) ref = 0;
      else if (ref > 0) this.extra![ref - 1] = compact(details);
      else ref = this.keep(compact(details)) + 1;
      varint(out, ref * 4 + (tag % 4));
      varint(out, body);
    }
    if (i >= n || i < 0 || !Number.isInteger(i)) throw new RangeError(`no timeline entry ${i}`);
    this.bytes = flat(out);
  }

  /** The entry as a record of its own (read up to it; the entries after it are not decoded). */
  entry(i: number): TimelineRecord {
    const r = this.read(i);
    if (!r) throw new RangeError(`no timeline entry ${i}`);
    return r;
  }

  /** The entry at `i` as a record, or undefined when there is none (`noteDelivery`'s check). */
  find(i: number): TimelineRecord | undefined {
    return this.read(i);
  }

  private read(i: number): TimelineRecord | undefined {
    if (!(i >= 0 && Number.isInteger(i))) return undefined;
    const s = this.bytes;
    let last = 0;
    let n = 0;
    cursor = 0;
    while (cursor < s.length) {
      const code = readVarint(s);
      const tag = readVarint(s);
      const body = readVarint(s);
      let at = 0;
      if (tag % 4 === 2) at = this.extra![body] as number;
      else last = at = tag % 4 === 1 ? last - body : last + body;
      if (n++ !== i) continue;
      const kind = CODES[code]!;
      const ref = Math.floor(tag / 4);
      const own = ref === 0 ? kind.details : this.extra![ref - 1]!;
      return { group: kind.group, event: kind.event, details: typeof own === 'string' ? { delivery_id: own } : (own as Details | null), at };
    }
    return undefined;
  }

  /** Every entry as records of their own, oldest first. */
  toArray(): TimelineRecord[] {
    const s = this.bytes;
    const out: TimelineRecord[] = [];
    let last = 0;
    cursor = 0;
    while (cursor < s.length) {
      const kind = CODES[readVarint(s)]!;
      const tag = readVarint(s);
      const body = readVarint(s);
      let at: number;
      if (tag % 4 === 2) at = this.extra![body] as number;
      else last = at = tag % 4 === 1 ? last - body : last + body;
      const ref = Math.floor(tag / 4);
      const own = ref === 0 ? kind.details : this.extra![ref - 1]!;
      out.push({ group: kind.group, event: kind.event, details: typeof own === 'string' ? { delivery_id: own } : (own as Details | null), at });
    }
    return out;
  }

  /** JSON (a state snapshot) holds the records, as the stored array did. */
  toJSON(): TimelineRecord[] {
    return this.toArray();
  }

  /** Appends one entry's varints to `out`; `last` is the instant of the last entry kept as a delta. */
  private encode(out: number[], code: number, details: TimelineRecord['details'], at: number, last: number): void {
    varint(out, code);
    let ref = 0;
    if (details !== null && !Object.isFrozen(details)) ref = this.keep(compact(details)) + 1;
    if (isPlainInstant(at)) {
      const delta = at - last;
      varint(out, ref * 4 + (delta < 0 ? 1 : 0));
      varint(out, Math.abs(delta));
    } else {
      varint(out, ref * 4 + 2);
      varint(out, this.keep(at));
    }
  }

  /** Adds to `extra` (kept exactly sized: no slack for as long as the order is stored); its index. */
  private keep(value: Extra): number {
    const old = this.extra ?? [];
    const extra = new Array<Extra>(old.length + 1);
    for (let i = 0; i < old.length; i++) extra[i] = old[i]!;
    extra[old.length] = value;
    this.extra = extra;
    return old.length;
  }
}

/** Where the decoder stands in the string it reads (one decoder at a time: no closure per call). */
let cursor = 0;

function readVarint(s: string): number {
  let value = 0;
  let scale = 1;
  for (;;) {
    const b = s.charCodeAt(cursor++);
    value += (b & 0x7f) * scale;
    if (b < 0x80) return value;
    scale *= 0x80;
  }
}

function skipVarint(s: string): void {
  while (s.charCodeAt(cursor++) >= 0x80);
}

/** Details shared by every order (frozen), or null. */
function sharedOf(details: TimelineRecord['details']): Details | null {
  return details !== null && Object.isFrozen(details) ? details : null;
}

/**
 * A new array holding `list` and then `item`, of exactly that length (a pushed array keeps half
 * again its length as slack; a spread into a literal too): for lists kept with every stored order.
 */
export function appended<T>(list: readonly T[], item: T): T[] {
  const out = new Array<T>(list.length + 1);
  for (let i = 0; i < list.length; i++) out[i] = list[i]!;
  out[list.length] = item;
  return out;
}

/**
 * Group, event and any shared (frozen) details of an entry, interned for the whole process:
 * an entry holds its index. Shared details are the webhooks' "skipped" outcomes, the same
 * object for every order, so an entry pointing at one needs no slot of its own.
 */
const CODES: Array<{ group: TimelineGroup; event: string; details: Details | null }> = [];
const CODE_OF = new Map<string, number>();
const SHARED_ID = new WeakMap<object, number>();
let sharedCount = 0;

function codeOf(group: TimelineGroup, event: string, shared: Details | null): number {
  if (shared === null) {
    // The common case without building a key: by group, then event.
    let byEvent = PLAIN_CODES.get(group);
    if (!byEvent) PLAIN_CODES.set(group, (byEvent = new Map()));
    let code = byEvent.get(event);
    if (code === undefined) byEvent.set(event, (code = internCode(group, event, null)));
    return code;
  }
  return internCode(group, event, shared);
}

const PLAIN_CODES = new Map<TimelineGroup, Map<string, number>>();

function internCode(group: TimelineGroup, event: string, shared: Details | null): number {
  let sharedId = 0;
  if (shared !== null) {
    sharedId = SHARED_ID.get(shared) ?? 0;
    if (sharedId === 0) SHARED_ID.set(shared, (sharedId = ++sharedCount));
  }
  const key = `${sharedId} ${group} ${event}`;
  let code = CODE_OF.get(key);
  if (code === undefined) {
    code = CODES.length;
    CODES.push({ group, event, details: shared });
    CODE_OF.set(key, code);
  }
  return code;
}

/** Instants kept as varints: safe non-negative integers (every instant a clock or a snapshot makes). */
function isPlainInstant(at: number): boolean {
  return Number.isSafeInteger(at) && at >= 0 && !Object.is(at, -0);
}

/** Base-128 varint of a safe non-negative integer: 7 bits per character, high bit set but on the last. */
function varint(out: number[], value: number): void {
  while (value >= 0x80) {
    out.push((value % 0x80) + 0x80);
    value = Math.floor(value / 0x80);
  }
  out.push(value);
}

/** One flat one-byte string of these character codes (no cons-string left behind). */
function flat(codes: number[]): string {
  if (codes.length <= CHUNK) return String.fromCharCode.apply(null, codes);
  // A very long timeline (thousands of entries): in chunks, within the arguments a call takes.
  let s = '';
  for (let i = 0; i < codes.length; i += CHUNK) s += String.fromCharCode.apply(null, codes.slice(i, i + CHUNK));
  return s;
}

const CHUNK = 8192;

/** A details object holding a delivery id alone, as the id itself (it reads back as `{ delivery_id }`). */
function compact(details: Details): Extra {
  if (typeof details.delivery_id !== 'string' || Object.getPrototypeOf(details) !== Object.prototype) return details;
  const keys = Object.keys(details);
  return keys.length === 1 ? details.delivery_id : details;
}

/**
 * The machine's context in one object of its own fields, in the schema's order: xstate's
 * `assign` builds each new context with `Object.assign({}, …)`, an object of four in-object
 * fields and a property array holding the rest (two objects, slack included, kept with every
 * stored order). A context with other fields than these twelve is kept as it is.
 */
export function packContext<C extends ContextFields>(c: C): C {
  if (Object.keys(c).length !== CONTEXT_FIELDS) return c;
  const packed: ContextFields = {
    due: c.due,
    precision: c.precision,
    hold: c.hold,
    paid: c.paid,
    unconfirmed: c.unconfirmed,
    ratio: c.ratio,
    refundDue: c.refundDue,
    refunded: c.refunded,
    outcome: c.outcome,
    percentage: c.percentage,
    autoPayin: c.autoPayin,
    payinClosesAfter: c.payinClosesAfter,
  };
  return packed as C;
}

/** The fields of order.records.ts's `OrderContext` (which may not be imported here: it imports this). */
interface ContextFields {
  due: number;
  precision: number;
  hold: boolean;
  paid: number;
  unconfirmed: number;
  ratio: number;
  refundDue: number;
  refunded: number;
  outcome: string;
  percentage: number;
  autoPayin: unknown;
  payinClosesAfter: number | null;
}

const CONTEXT_FIELDS = 12;

/**
 * The timers of an order with none pending, shared (frozen: nothing may push into it): an
 * empty array of its own per stored order is 32 bytes kept for nothing. `timersOf` hands the
 * machine runner an array of the order's own when it sets one.
 */
export const NO_TIMERS: Array<[string, number]> = Object.freeze([]) as unknown as Array<[string, number]>;

/**
 * The pay-in references of an order with none yet, shared (frozen): an empty array of its own
 * per stored order is an object kept for nothing while the order waits for its pay-in. A pay-in
 * gives the order an array of its own (`appended`).
 */
export const NO_REFS: string[] = Object.freeze([]) as unknown as string[];

/** The order's timers to change: its own array (a new one in place of the shared empty one). */
export function ownTimers(order: { timers: Array<[string, number]> }): Array<[string, number]> {
  if (order.timers === NO_TIMERS) order.timers = [];
  return order.timers;
}

/** After a step: an order left with no timer pending gives its array back for the shared empty one. */
export function releaseTimers(order: { timers: Array<[string, number]> }): void {
  if (order.timers.length === 0) order.timers = NO_TIMERS;
}
