import * as z from 'zod';
import { ControlPageQuery } from '../../shared/schemas';
import type { PartnerRegistry } from '../../auth';
import type { Api, AnyRouteSpec } from '../api/api';
import { ENVIRONMENTS, type ReferenceStore } from '../../reference';
import {
  ALL_INCLUDES,
  availableActions,
  CancelBodySchema,
  ControlPayinSchema,
  ControlPayoutSchema,
  lifecycleGraph,
  LifecycleGraphSchema,
  OrderActionsSchema,
  OrderDetailSchema,
  ORDER_STATUSES,
  ReferenceParamsSchema,
  type OrderService,
} from '../../orders';
import { OrderTypeSchema } from '../../orders/model';
import { badRequest } from '../../shared/errors';
import { paginate } from '../../shared/envelope';
import { TRIMMED_PATTERN } from '../../shared/documented';
import { ControlCreateOrderSchema, createOrderBody, SandboxOrderSummarySchema } from './order-defaults';

const admin = { auth: 'admin', tag: 'sandbox', params: ReferenceParamsSchema, data: OrderDetailSchema } as const;

const ListQuerySchema = z.object({
  client_id: z.string().optional(),
  environment: z.enum(ENVIRONMENTS).optional(),
  status: z.enum(ORDER_STATUSES).optional(),
  type: OrderTypeSchema.optional(),
  ...ControlPageQuery,
});

const trimmed = (max: number) => z.string().trim().min(1).max(max).meta({ pattern: TRIMMED_PATTERN });
const FulfilBodySchema = z
  .object({
    tx_hash: trimmed(200).optional().meta({ description: 'crypto pay-in; default: the hash of the pending pay-in' }),
    reference: trimmed(100)
      .optional()
      .meta({ description: 'fiat pay-in; default: the reference of the pending pay-in', example: 'TRF8803344556677881' }),
    institution: trimmed(100).optional().meta({ description: 'fiat pay-in; default: the pay-in institution', example: '058' }),
  })
  .meta({ id: 'SandboxFulfilBody', description: "Every field optional: the pending pay-in's own proof is used", example: {} });

const SimulateBodySchema = z
  .object({
    status: z.enum(ORDER_STATUSES).meta({ description: 'the status to take the order to' }),
    reason: z
      .string()
      .max(200)
      .optional()
      .meta({ description: 'recorded on the timeline entry of the failing step (e.g. the payout outcome)' }),
  })
  .meta({ id: 'SimulateOrderBody', example: { status: 'refunded', reason: 'bank rejected the account' } });

const SimulatedOrderSchema = OrderDetailSchema.extend({
  path: z
    .array(z.enum(ORDER_STATUSES))
    .meta({ description: 'the statuses the order passed through, from where it stood to the one asked' }),
}).meta({ id: 'SimulatedOrder' });

const LifecycleViewSchema = z
  .object({
    reference: z.string(),
    client_id: z.string(),
    environment: z.enum(ENVIRONMENTS),
    status: z.enum(ORDER_STATUSES),
    path: z.array(z.enum(ORDER_STATUSES)).meta({ description: 'the statuses the order went through, in order' }),
    actions: OrderActionsSchema,
    reachable: z.array(z.enum(ORDER_STATUSES)).meta({ description: 'the statuses POST …/simulate can take the order to from here' }),
    graph: LifecycleGraphSchema,
  })
  .meta({ id: 'OrderLifecycle' });

// The specs are exported so the control client (src/client/control-client.ts) is typed by them.
export const sandboxListOrdersSpec = {
  ...admin,
  params: undefined,
  data: SandboxOrderSummarySchema,
  method: 'GET',
  path: '/sandbox/orders',
  operationId: 'sandboxListOrders',
  summary: 'Orders of every partner and environment, newest first',
  query: ListQuerySchema,
  paged: true,
  message: 'Orders retrieved',
} as const satisfies AnyRouteSpec;
export const sandboxCreateOrderSpec = {
  ...admin,
  params: undefined,
  method: 'POST',
  path: '/sandbox/orders',
  operationId: 'sandboxCreateOrder',
  summary: 'Create an order for a partner, unsigned (customer and recipient filled in when not given)',
  body: ControlCreateOrderSchema,
  message: 'Order created',
  errors: [400, 403, 404, 409],
} as const satisfies AnyRouteSpec;
export const sandboxGetOrderSpec = {
  ...admin,
  method: 'GET',
  path: '/sandbox/orders/{reference}',
  operationId: 'sandboxGetOrder',
  summary: 'Any order’s detail, with payout and timeline',
  message: 'Order retrieved',
  errors: [404],
} as const satisfies AnyRouteSpec;
export const sandboxOrderLifecycleSpec = {
  ...admin,
  data: LifecycleViewSchema,
  method: 'GET',
  path: '/sandbox/orders/{reference}/lifecycle',
  operationId: 'sandboxOrderLifecycle',
  summary: 'The order type’s lifecycle (from the state machine), the path the order took and the steps its status allows now',
  message: 'Lifecycle retrieved',
  errors: [404],
} as const satisfies AnyRouteSpec;
export const simulatePayinSpec = {
  ...admin,
  method: 'POST',
  path: '/sandbox/orders/{reference}/payin',
  operationId: 'simulatePayin',
  summary: 'Simulate a pay-in arriving (exact by default; partial, over, unconfirmed)',
  body: ControlPayinSchema,
  message: 'Pay-in simulated',
  errors: [400, 404],
} as const satisfies AnyRouteSpec;
export const sandboxFulfilOrderSpec = {
  ...admin,
  method: 'POST',
  path: '/sandbox/orders/{reference}/fulfil',
  operationId: 'sandboxFulfilOrder',
  summary: 'Confirm a pending (unconfirmed) pay-in, as POST /v1/orders/{reference}/fulfill does for the partner',
  body: FulfilBodySchema,
  message: 'Pay-in confirmed',
  errors: [400, 404],
} as const satisfies AnyRouteSpec;
export const sandboxCancelOrderSpec = {
  ...admin,
  method: 'POST',
  path: '/sandbox/orders/{reference}/cancel',
  operationId: 'sandboxCancelOrder',
  summary: 'Cancel an order, as PATCH /v1/orders/{reference}/cancel does for the partner',
  body: CancelBodySchema,
  message: 'Order cancelled',
  errors: [400, 404],
} as const satisfies AnyRouteSpec;
export const decidePayoutSpec = {
  ...admin,
  method: 'POST',
  path: '/sandbox/orders/{reference}/payout',
  operationId: 'decidePayout',
  summary: 'Decide how the payout ends: success, fail, revert, partial',
  body: ControlPayoutSchema,
  message: 'Payout outcome set',
  errors: [400, 404],
} as const satisfies AnyRouteSpec;
export const simulateOrderSpec = {
  ...admin,
  data: SimulatedOrderSchema,
  method: 'POST',
  path: '/sandbox/orders/{reference}/simulate',
  operationId: 'simulateOrder',
  summary: 'Take the order to a status in one call, along its machine’s shortest path, sending every webhook on the way (CONTRACT §16)',
  body: SimulateBodySchema,
  message: 'Order simulated',
  errors: [400, 404, 409],
} as const satisfies AnyRouteSpec;
export const expireOrderSpec = {
  ...admin,
  method: 'POST',
  path: '/sandbox/orders/{reference}/expire',
  operationId: 'expireOrder',
  summary: 'End the pay-in window now',
  message: 'Pay-in window ended',
  errors: [400, 404],
} as const satisfies AnyRouteSpec;

export interface OrderControlDeps {
  orders: OrderService;
  /** For the steps a partner takes through /v1 (create, cancel, fulfil), taken here on its behalf. */
  partners: PartnerRegistry;
  reference: ReferenceStore;
  /** Resolves once no webhook attempt is in flight (undefined: nothing to wait for). */
  deliveriesIdle?: () => Promise<void> | undefined;
}

/** CONTRACT §4 order simulation controls and the §15 order list; orders are addressed by reference across environments. */
export function registerOrderControlRoutes(api: Api, deps: OrderControlDeps): void {
  const { orders, partners } = deps;
  /** The partner and environment that own an order: who a /v1 step is taken for. */
  const ownerOf = (reference: string) => {
    const order = orders.find(reference);
    return { order, caller: { partner: partners.require(order.clientId), env: order.env } };
  };

  api.route(sandboxListOrdersSpec, ({ query: q }) => {
    const matching = orders.store.list({
      ...(q.client_id ? { clientId: q.client_id } : {}),
      ...(q.environment ? { env: q.environment } : {}),
      ...(q.status ? { status: q.status } : {}),
      ...(q.type ? { type: q.type } : {}),
    });
    const { data, meta } = paginate(matching, q.page, q.per_page);
    return { page: data.map((o) => ({ ...orders.summary(o), client_id: o.clientId, environment: o.env })), meta };
  });
  api.route(sandboxCreateOrderSpec, ({ body }) => {
    const env = body.environment ?? 'test';
    return orders.create({ partner: partners.require(body.client_id), env }, createOrderBody(deps.reference, env, body));
  });
  api.route(sandboxGetOrderSpec, ({ params }) => orders.detail(params.reference));
  api.route(sandboxOrderLifecycleSpec, ({ params }) => {
    const order = orders.find(params.reference);
    const reachable = orders.reachable(params.reference);
    return {
      reference: order.reference,
      client_id: order.clientId,
      environment: order.env,
      status: order.status,
      path: order.timeline.filter((t) => t.group === 'status').map((t) => t.event as (typeof ORDER_STATUSES)[number]),
      actions: availableActions(orders.machines[order.type], order.status, order.context),
      reachable: ORDER_STATUSES.filter((s) => reachable.has(s)),
      graph: lifecycleGraph(order.type, orders.timings),
    };
  });
  api.route(simulatePayinSpec, ({ params, body }) => orders.simulatePayin(params.reference, body));
  api.route(sandboxFulfilOrderSpec, ({ params, body }) => {
    const { order, caller } = ownerOf(params.reference);
    const seen = order.payinRefs.at(-1);
    if (!orders.can(order, { type: 'CONFIRM' }) || seen === undefined) {
      throw badRequest(
        `Order ${params.reference} has no pay-in awaiting confirmation (status ${order.status}); fulfil confirms a pay-in that was seen but not confirmed`,
      );
    }
    const proof =
      order.payin.kind === 'fiat'
        ? { reference: body.reference ?? seen, institution: body.institution ?? order.payin.institution_code }
        : { tx_hash: body.tx_hash ?? seen };
    return orders.fulfil(caller, params.reference, proof, ALL_INCLUDES);
  });
  api.route(sandboxCancelOrderSpec, ({ params, body }) => orders.cancel(ownerOf(params.reference).caller, params.reference, body.reason));
  api.route(decidePayoutSpec, ({ params, body }) => orders.decidePayout(params.reference, body));
  api.route(simulateOrderSpec, async ({ params, body }) => {
    // The first attempt of each delivery a step started is done before the next step, so the
    // partner's receiver gets the webhooks in the order the steps happened.
    const path = await orders.simulate(params.reference, body.status, {
      ...(body.reason === undefined ? {} : { reason: body.reason }),
      afterStep: deps.deliveriesIdle ?? (() => undefined),
    });
    return { ...orders.detail(params.reference), path };
  });
  api.route(expireOrderSpec, ({ params }) => orders.expire(params.reference));
}
