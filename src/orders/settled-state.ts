import { deepFreeze } from '../shared/freeze';
import type { OrderRecord } from './order.records';
import { NO_REFS, PackedTimeline, type Extra } from './packed-order';

/**
 * A settled order's changing fields kept as one flat string (docs/decisions/018-settled-orders-packed.md).
 *
 * An order in a final status with no timer pending is written again only now and then (a
 * webhook's outcome on its timeline, a late pay-in, a simulated change), yet the old
 * generation's marking walks every stored order at every full GC, and a scavenge's fixed cost
 * grows with the pages the store spreads over (decision 012). As objects, the fields below
 * are ~20 heap objects per completed order: its context (an object and its boxed amounts), its
 * payout and refund, its pay-in references, its timeline (an object, its string, its own
 * details) and its boxed instants. Packed, they are one string, which marking does not look
 * inside.
 *
 * The string is the order's packed terms (decision 014), a newline (JSON text has none of its
 * own), the JSON of `[payinRefs, payinExpiresAt, payinPaidAt, payout, refund, the context's
 * twelve values in the schema's order, created_at, updated_at, the timeline's own details]`,
 * a newline, then the timeline's varints as they are: one string for all. Only
 * state that JSON gives back exactly is packed (`exact`): a -0, a non-finite number, an
 * `undefined`, a class instance or a context of other fields keeps the order as it is.
 */

/** The fields of an order that change after its creation, but for its status, version and timers. */
export interface OrderState {
  payinRefs: OrderRecord['payinRefs'];
  payinExpiresAt: OrderRecord['payinExpiresAt'];
  payinPaidAt: OrderRecord['payinPaidAt'];
  payout: OrderRecord['payout'];
  refund: OrderRecord['refund'];
  timeline: OrderRecord['timeline'];
  context: OrderRecord['context'];
  created_at: number;
  updated_at: number;
}

/** The context's fields in the schema's order (order.records.ts; `packContext` builds them so). */
const CONTEXT_KEYS = ['due', 'precision', 'hold', 'paid', 'unconfirmed', 'ratio', 'refundDue', 'refunded', 'outcome', 'percentage', 'autoPayin', 'payinClosesAfter'] as const;

/** The terms (as `packTerms` packed them) and the state as one flat string, or null when JSON would not give the state back exactly. */
export function packState(s: OrderState, terms: string): string | null {
  const context = s.context as unknown as Record<string, unknown>;
  if (Object.getPrototypeOf(context) !== Object.prototype) return null;
  const keys = Object.keys(context);
  if (keys.length !== CONTEXT_KEYS.length) return null;
  const values = new Array<unknown>(CONTEXT_KEYS.length);
  for (let i = 0; i < CONTEXT_KEYS.length; i++) {
    if (keys[i] !== CONTEXT_KEYS[i]) return null;
    values[i] = context[keys[i]!];
  }
  const [bytes, extra] = s.timeline.raw();
  const parts = [s.payinRefs, s.payinExpiresAt, s.payinPaidAt, s.payout, s.refund, values, s.created_at, s.updated_at, extra ?? null];
  if (!exact(parts, 0)) return null;
  const packed = `${terms}\n${JSON.stringify(parts)}\n${bytes}`;
  // A concatenation is a rope of its parts; reading a character flattens it in place, and
  // the GC drops the rope's node: one flat string kept per settled order.
  packed.charCodeAt(0);
  return packed;
}

/**
 * The state `packState` packed, as fresh objects: frozen for a read (nothing may write them:
 * a write would be lost, so it throws), or not, for an order taken out of its packing to be
 * written.
 */
export function unpackState(packed: string, frozen: boolean): OrderState {
  const start = packed.indexOf('\n') + 1;
  const newline = packed.indexOf('\n', start);
  const a = JSON.parse(packed.slice(start, newline)) as [string[], number | null, number | null, OrderRecord['payout'], OrderRecord['refund'], unknown[], number, number, Extra[] | null];
  const values = a[5];
  const context = {} as Record<string, unknown>;
  for (let i = 0; i < CONTEXT_KEYS.length; i++) context[CONTEXT_KEYS[i]!] = values[i];
  const extra = a[8] ?? undefined;
  const payinRefs = a[0].length === 0 ? NO_REFS : a[0];
  if (frozen) {
    deepFreeze(payinRefs);
    deepFreeze(a[3]);
    deepFreeze(a[4]);
    deepFreeze(context);
    // Its own details list too, so `setDetails` throws before it changes anything.
    if (extra) Object.freeze(extra);
  }
  const timeline = PackedTimeline.fromRaw(packed.slice(newline + 1), extra);
  if (frozen) Object.freeze(timeline);
  return {
    payinRefs,
    payinExpiresAt: a[1],
    payinPaidAt: a[2],
    payout: a[3],
    refund: a[4],
    timeline,
    context: context as unknown as OrderRecord['context'],
    created_at: a[6],
    updated_at: a[7],
  };
}

/** The terms `packState` was given, from what it packed. */
export function packedTermsOf(packed: string): string {
  return packed.slice(0, packed.indexOf('\n'));
}

/**
 * Whether JSON gives `value` back exactly: strings, booleans, null, finite numbers but -0,
 * arrays without holes, plain objects of enumerable string keys; at most 64 levels deep.
 */
export function exact(value: unknown, depth: number): boolean {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return true;
    case 'number':
      return Number.isFinite(value) && !Object.is(value, -0);
    case 'object': {
      if (value === null) return true;
      if (depth >= 64) return false;
      if (Array.isArray(value)) {
        if (Object.getPrototypeOf(value) !== Array.prototype) return false;
        for (let i = 0; i < value.length; i++) if (!(i in value) || !exact(value[i], depth + 1)) return false;
        return Reflect.ownKeys(value).length === value.length + 1; // its indexes and `length`, nothing else
      }
      if (Object.getPrototypeOf(value) !== Object.prototype) return false;
      const keys = Reflect.ownKeys(value);
      for (const key of keys) {
        if (typeof key !== 'string' || !Object.prototype.propertyIsEnumerable.call(value, key)) return false;
        const d = Object.getOwnPropertyDescriptor(value, key)!;
        if (!('value' in d) || !exact(d.value, depth + 1)) return false;
      }
      return true;
    }
    default:
      return false;
  }
}
