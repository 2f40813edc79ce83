/**
 * The lifecycle's words, defined once (issue 17): the statuses, how a payout may end and the
 * groups of an order's timeline. The machine, the records, the schemas, the scenario schema,
 * the docs generator and the dashboard take them from here; the final and settled sets are the
 * machine's own tags (`STATUSES_TAGGED` in order.machine.ts).
 */

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

/** CONTRACT §4: how the payout of an order ends (`POST /sandbox/orders/{reference}/payout`). */
export const PAYOUT_OUTCOMES = ['success', 'fail', 'revert', 'partial'] as const;
export type PayoutOutcome = (typeof PAYOUT_OUTCOMES)[number];

/** The groups of an order's timeline entries. */
export const TIMELINE_GROUPS = ['status', 'payin', 'payout', 'refund', 'webhook', 'order'] as const;
export type TimelineGroup = (typeof TIMELINE_GROUPS)[number];
