/** Spec §6.1 event types; `order.fiat_recieved` is spelled this way on purpose. */
export const WEBHOOK_EVENTS = [
  'order.created',
  'order.assigned',
  'order.asset_locked',
  'order.fiat_recieved',
  'order.asset_released',
  'order.asset_refunded',
  'order.fiat_sent',
  'order.settled',
  'order.cancelled',
  'order.expired',
] as const;

export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

/** Spec §6.1: when each event fires. */
export const WEBHOOK_SUMMARIES: Record<WebhookEvent, string> = {
  'order.created': 'Order created, awaiting pay-in',
  'order.assigned': 'Liquidity assigned to the order',
  'order.asset_locked': 'Crypto locked in escrow',
  'order.fiat_recieved': 'Fiat pay-in confirmed (the name is spelled this way)',
  'order.asset_released': 'Crypto released to the recipient',
  'order.asset_refunded': 'Crypto refunded on-chain',
  'order.fiat_sent': 'Fiat payout initiated',
  'order.settled': 'Order fully settled',
  'order.cancelled': 'Order cancelled',
  'order.expired': 'Order expired, pay-in window elapsed',
};
