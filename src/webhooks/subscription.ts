import type { PartnerRegistry } from '../auth';
import type { OrderService } from '../orders';
import type { Dispatcher } from './dispatcher';

/** Timeline details of an event that was not delivered; shared, so 100k orders pay nothing for them. */
const SKIPPED = {
  partner: Object.freeze({ delivery: 'skipped: partner removed' }),
  unsubscribed: Object.freeze({ delivery: 'skipped: event not subscribed' }),
  noUrl: Object.freeze({ delivery: 'skipped: no webhook_url' }),
};

/**
 * The subscription rule (CONTRACT §5): each event the machine emits becomes a delivery when
 * the partner subscribes to it and has a URL; either way the event stays on the order's
 * timeline, with what happened to it.
 */
export function routeOrderEvents(deps: { orders: OrderService; partners: PartnerRegistry; dispatcher: Dispatcher }): () => void {
  const { partners, dispatcher } = deps;
  return deps.orders.onEvent(({ event, order, summary }) => {
    const partner = partners.get(order.clientId);
    if (!partner) return SKIPPED.partner;
    if (!partner.events.includes(event)) return SKIPPED.unsubscribed;
    if (!partner.webhook_url) return SKIPPED.noUrl;
    return { delivery_id: dispatcher.enqueue({ partner, environment: order.env, order: order.reference, event, data: summary() }).id };
  });
}
