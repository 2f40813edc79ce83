import * as z from 'zod';
import { OrderSnapshotSchema, QuoteSnapshotSchema, type OrderRecord, type QuoteRecord } from './order.records';
import { NO_TIMERS, PackedTimeline } from './packed-order';

/**
 * The orders' part of a state snapshot (CONTRACT §13): every order with its machine snapshot
 * (status and context), every remembered quote. Timers are not here: the clock lists them in
 * firing order with their tags, and the service re-creates each from its tag.
 */

export const OrdersStateSchema = z.object({
  orders: z.array(OrderSnapshotSchema),
  quotes: z.array(QuoteSnapshotSchema),
  evicted_orders: z.number().int().nonnegative(),
});
export type OrdersState = z.output<typeof OrdersStateSchema>;

/** An order as a snapshot holds it: the record without its live timer handles. */
export function orderSnapshot(order: OrderRecord): z.output<typeof OrderSnapshotSchema> {
  const { timers: _timers, ...rest } = order;
  // The timeline as records, in its place among the fields (the key order a snapshot had).
  const plain: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(rest)) plain[key] = key === 'timeline' ? order.timeline.toArray() : value;
  return structuredClone(plain) as z.output<typeof OrderSnapshotSchema>;
}

/** `orderSnapshot(order)` as JSON, without copying the order first. */
export function orderSnapshotJson(order: OrderRecord): string {
  const { timers: _timers, ...rest } = order;
  // The packed timeline writes its records (PackedTimeline#toJSON), in its place among the fields.
  return JSON.stringify(rest);
}

/**
 * An order record from a validated snapshot entry, which it takes over: a restore is handed a
 * document parsed for it alone (a copy would double the memory of a large restore); its timers
 * are revived separately.
 */
export function orderFromSnapshot(entry: z.output<typeof OrderSnapshotSchema>): OrderRecord {
  return Object.assign(entry as unknown as OrderRecord, { timeline: PackedTimeline.from(entry.timeline), timers: NO_TIMERS });
}

/** A quote record from a validated snapshot entry, which it takes over (see orderFromSnapshot). */
export function quoteFromSnapshot(entry: z.output<typeof QuoteSnapshotSchema>): QuoteRecord {
  return entry;
}
