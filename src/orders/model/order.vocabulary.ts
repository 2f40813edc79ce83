/**
 * The lifecycle's words, defined once (issue 17): the order types, the statuses and what they
 * mean (final, settled), how a payout may end and the groups of an order's timeline. The
 * machine (its state tags come from `statusTags`), the records, the schemas, the scenario
 * schema, the docs generator and the dashboard take them from here.
 */

/** Spec §2.2 / §4.1: the order types; each has its own machine. */
export const ORDER_TYPES = ['onramp', 'offramp', 'swap'] as const;
export type OrderType = (typeof ORDER_TYPES)[number];

/** Spec §3: every order status; machine state ids are these, so `snapshot.value` is the status. */
export const ORDER_STATUSES = [
  'initiated',
  'pending',
  'processing',
  'settled',
  'awaiting_user_payment',
  'awaiting_lp_payment',
  'routing',
  'executing',
  'partially_completed',
  'completed',
  'cancelled',
  'expired',
  'failed',
  'refunded',
  'reverted',
] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];

/**
 * Statuses an order ends in (CONTRACT §9: what eviction may drop once no timer of its own is
 * pending; a pay-in arriving then is late and refunded). A final status may still move on
 * (`cancelled` → `refunded` after a late pay-in): final means the order's business is over.
 */
const FINAL_STATUSES = ['completed', 'partially_completed', 'refunded', 'cancelled', 'expired'] as const satisfies readonly OrderStatus[];

/** Statuses whose payout has landed (`amount_settled` counts from here). */
const SETTLED_STATUSES = ['settled', 'completed', 'partially_completed'] as const satisfies readonly OrderStatus[];

/** What a status means, as the machine's state tags (`snapshot.hasTag('final')`). */
export type StatusTag = 'final' | 'settled';

const FINAL: ReadonlySet<OrderStatus> = new Set(FINAL_STATUSES);
const SETTLED: ReadonlySet<OrderStatus> = new Set(SETTLED_STATUSES);

/** Whether an order in `status` is over (one of FINAL_STATUSES). */
export function isFinal(status: OrderStatus): boolean {
  return FINAL.has(status);
}

/** Whether the payout of an order in `status` has landed (one of SETTLED_STATUSES). */
export function isSettled(status: OrderStatus): boolean {
  return SETTLED.has(status);
}

/** The tags of a status's machine state, read from the sets above (never listed twice). */
export function statusTags(status: OrderStatus): StatusTag[] {
  const tags: StatusTag[] = [];
  if (SETTLED.has(status)) tags.push('settled');
  if (FINAL.has(status)) tags.push('final');
  return tags;
}

/** CONTRACT §4: how the payout of an order ends (`POST /sandbox/orders/{reference}/payout`). */
export const PAYOUT_OUTCOMES = ['success', 'fail', 'revert', 'partial'] as const;
export type PayoutOutcome = (typeof PAYOUT_OUTCOMES)[number];

/** The groups of an order's timeline entries. */
export const TIMELINE_GROUPS = ['status', 'payin', 'payout', 'refund', 'webhook', 'order'] as const;
export type TimelineGroup = (typeof TIMELINE_GROUPS)[number];
