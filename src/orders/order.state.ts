import * as z from 'zod';
import { OrderSnapshotSchema, QuoteSnapshotSchema, type OrderRecord, type QuoteRecord } from './order.records';
import { NO_REFS, NO_TIMERS, PackedTimeline } from './packed-order';
import { StoredOrder } from './order-terms';

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
  return structuredClone(snapshotFields(order, order.timeline.toArray())) as z.output<typeof OrderSnapshotSchema>;
}

/** `orderSnapshot(order)` as JSON, without copying the order first. */
export function orderSnapshotJson(order: OrderRecord): string {
  // The packed timeline writes its records (PackedTimeline#toJSON), in its place among the fields.
  return JSON.stringify(snapshotFields(order, order.timeline));
}

/**
 * The order's fields in the schema's order, as a snapshot holds them (not its timers): read one
 * by one, since a stored order keeps its terms packed behind accessors (decision 014). A memo is
 * written only when there is one.
 */
function snapshotFields(o: OrderRecord, timeline: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {
    type: o.type,
    from: o.from,
    to: o.to,
    pricing: o.pricing,
    fee: o.fee,
    env: o.env,
    clientId: o.clientId,
    reference: o.reference,
    merchant_reference: o.merchant_reference,
    customer_reference: o.customer_reference,
    metadata: o.metadata,
  };
  if (o.memo !== undefined) out.memo = o.memo;
  out.recipient = o.recipient;
  out.payin = o.payin;
  out.payinRefs = o.payinRefs;
  out.payinExpiresAt = o.payinExpiresAt;
  out.payinPaidAt = o.payinPaidAt;
  out.payout = o.payout;
  out.refundTarget = o.refundTarget;
  out.refund = o.refund;
  out.timeline = timeline;
  out.status = o.status;
  out.context = o.context;
  out.created_at = o.created_at;
  out.updated_at = o.updated_at;
  out.version = o.version;
  return out;
}

/**
 * An order record from a validated snapshot entry, which it takes over: a restore is handed a
 * document parsed for it alone (a copy would double the memory of a large restore); its timers
 * are revived separately.
 */
export function orderFromSnapshot(entry: z.output<typeof OrderSnapshotSchema>): OrderRecord {
  const payinRefs = entry.payinRefs.length === 0 ? NO_REFS : entry.payinRefs;
  const order = new StoredOrder(Object.assign(entry as unknown as OrderRecord, { timeline: PackedTimeline.from(entry.timeline), timers: NO_TIMERS, payinRefs }));
  // A final order is settled (decision 018); a timer revived for it later leaves it so until a step writes it.
  order.settle();
  return order;
}

/** A quote record from a validated snapshot entry, which it takes over (see orderFromSnapshot). */
export function quoteFromSnapshot(entry: z.output<typeof QuoteSnapshotSchema>): QuoteRecord {
  return entry;
}
