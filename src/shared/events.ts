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
