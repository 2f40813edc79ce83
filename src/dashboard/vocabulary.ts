import { KybStatusSchema } from '../auth';
import { lifecycleGraph, type LifecycleGraph } from '../orders/lifecycle-graph';
import type { LifecycleTimings } from '../orders/order.machine';
import { ORDER_STATUSES, ORDER_TYPES, PAYOUT_OUTCOMES } from '../orders/model';
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

/**
 * Every order type's lifecycle graph, read from the machine with the sandbox's own timings: the
 * readiness screen draws a run's coverage on it (CONTRACT §21) with no order of the type at hand.
 */
export function dashboardLifecycles(timings: LifecycleTimings): Record<string, LifecycleGraph> {
  return Object.fromEntries(ORDER_TYPES.map((type) => [type, lifecycleGraph(type, timings)]));
}

/** What the page is given with its HTML: the vocabularies, the lifecycles and the demo partner's client id. */
export interface DashboardBootstrap {
  vocabulary: DashboardVocabulary;
  lifecycles: Record<string, LifecycleGraph>;
  demo_client_id: string;
}
