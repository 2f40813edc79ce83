import type { PartnerRegistry } from '../auth';
import type { OrderEvents, OrderService } from '../orders';
import type { Bus } from '../shared/bus';
import type { Dispatcher } from './dispatcher';

/** Timeline details of an event that was not delivered; shared, so 100k orders pay nothing for them. */
const SKIPPED = {
  partner: Object.freeze({ delivery: 'skipped: partner removed' }),
  unsubscribed: Object.freeze({ delivery: 'skipped: event not subscribed' }),
  noUrl: Object.freeze({ delivery: 'skipped: no webhook_url' }),
};

/**
 * The subscription rule (CONTRACT §5): each event the orders publish becomes a delivery when
 * the partner subscribes to it and has a URL or a listener that takes it (§17); either way the webhooks report what happened to
 * it on the order's timeline (`orders.noteDelivery`). Returns the unsubscribe.
 */
export function routeOrderEvents(deps: {
  bus: Pick<Bus<OrderEvents>, 'on'>;
  orders: Pick<OrderService, 'noteDelivery'>;
  partners: PartnerRegistry;
  dispatcher: Pick<Dispatcher, 'enqueue' | 'listening'>;
}): () => void {
  const { orders, partners, dispatcher } = deps;
  return deps.bus.on('order.emitted', ({ event, order, summary, entryId }) => {
    const partner = partners.get(order.clientId);
    const outcome = !partner
      ? SKIPPED.partner
      : !partner.events.includes(event)
        ? SKIPPED.unsubscribed
        : !partner.webhook_url && !dispatcher.listening(partner.client_id, event)
          ? SKIPPED.noUrl
          : { delivery_id: dispatcher.enqueue({ partner, environment: order.env, order: order.reference, event, data: summary() }).id };
    orders.noteDelivery(order.reference, entryId, outcome);
  });
}
