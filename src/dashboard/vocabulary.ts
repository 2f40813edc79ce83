import { KybStatusSchema } from '../auth';
import { ORDER_STATUSES, ORDER_TYPES, PAYOUT_OUTCOMES } from '../orders/order.vocabulary';
import { ENVIRONMENTS } from '../reference';
import { WEBHOOK_EVENTS } from '../shared/events';
import { DeliveryStatusSchema } from '../webhooks';

/**
 * The words the dashboard's selects offer (statuses, events, …), taken from the modules that
 * define them and written into the page itself (issue 20: the page no longer reads the whole
 * OpenAPI document to fill its dropdowns).
 */
export function dashboardVocabulary() {
  return {
    statuses: [...ORDER_STATUSES],
    events: [...WEBHOOK_EVENTS],
    types: [...ORDER_TYPES],
    kyb: [...KybStatusSchema.options],
    deliveryStatuses: [...DeliveryStatusSchema.options],
    environments: [...ENVIRONMENTS],
    payoutOutcomes: [...PAYOUT_OUTCOMES],
  };
}
export type DashboardVocabulary = ReturnType<typeof dashboardVocabulary>;

/** What the page is given with its HTML: the vocabularies and the demo partner's client id. */
export interface DashboardBootstrap {
  vocabulary: DashboardVocabulary;
  demo_client_id: string;
}
