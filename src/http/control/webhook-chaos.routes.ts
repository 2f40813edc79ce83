import { ClientIdParamsSchema, type PartnerRegistry } from '../../auth';
import { WebhookChaosBodySchema, WebhookChaosSchema, type Dispatcher } from '../../webhooks';
import type { Api, AnyRouteSpec } from '../api/api';

// CONTRACT §22 webhook chaos per partner.

const admin = { auth: 'admin', tag: 'sandbox' } as const;
const path = '/sandbox/partners/{client_id}/webhook-chaos';

// The specs are exported so the control client (src/client/control-client.ts) is typed by them.
export const setWebhookChaosSpec = {
  ...admin,
  method: 'PUT',
  path,
  operationId: 'setWebhookChaos',
  summary: "Duplicate, reorder or delay a partner's webhook deliveries (seeded; replaces its chaos)",
  params: ClientIdParamsSchema,
  body: WebhookChaosBodySchema,
  data: WebhookChaosSchema,
  message: 'Webhook chaos set',
  errors: [404],
} as const satisfies AnyRouteSpec;
export const getWebhookChaosSpec = {
  ...admin,
  method: 'GET',
  path,
  operationId: 'getWebhookChaos',
  summary: "A partner's webhook chaos",
  params: ClientIdParamsSchema,
  data: WebhookChaosSchema,
  message: 'Webhook chaos retrieved',
  errors: [404],
} as const satisfies AnyRouteSpec;
export const removeWebhookChaosSpec = {
  ...admin,
  method: 'DELETE',
  path,
  operationId: 'removeWebhookChaos',
  summary: "Stop a partner's webhook chaos (held deliveries keep their time)",
  params: ClientIdParamsSchema,
  data: WebhookChaosSchema,
  message: 'Webhook chaos removed',
  errors: [404],
} as const satisfies AnyRouteSpec;

/** CONTRACT §22 webhook chaos routes. */
export function registerWebhookChaosRoutes(api: Api, deps: { dispatcher: Dispatcher; partners: PartnerRegistry }): void {
  const { dispatcher, partners } = deps;
  api.route(setWebhookChaosSpec, ({ params, body }) => dispatcher.chaos.set(partners.require(params.client_id).client_id, body));
  api.route(getWebhookChaosSpec, ({ params }) => dispatcher.chaos.get(partners.require(params.client_id).client_id));
  api.route(removeWebhookChaosSpec, ({ params }) => dispatcher.chaos.remove(partners.require(params.client_id).client_id));
}
