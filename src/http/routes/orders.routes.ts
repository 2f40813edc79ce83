import type { Context } from 'koa';
import {
  CancelBodySchema,
  CreateOrderBodySchema,
  FulfilBodySchema,
  IncludeQuerySchema,
  ListQuerySchema,
  OrderDetailSchema,
  OrderSummarySchema,
  QuoteBodySchema,
  QuoteSchema,
  ReferenceParamsSchema,
  requireKyb,
  type OrderService,
} from '../../orders';
import { rawData, type Api } from '../api/api';
import { authOf } from '../edge/authenticate';

const caller = (ctx: Context) => {
  const auth = authOf(ctx);
  return { partner: auth.partner, env: auth.env };
};
const secret = { auth: 'secret', tag: 'Orders' } as const;
/** CONTRACT §8: a partner that is not KYB-approved is refused (403) before its body is read. */
const approved = { ...secret, authorize: (ctx: Context) => requireKyb(authOf(ctx).partner) };

/** Spec §4.1 order routes, plus the list route of CONTRACT §7. All need the secret key. */
export function registerOrderRoutes(api: Api, deps: { orders: OrderService }): void {
  const { orders } = deps;

  api.route(
    {
      ...approved,
      method: 'POST',
      path: '/v1/orders/quote',
      operationId: 'createQuote',
      summary: 'Create a quote (locks pricing for ttl_in_seconds)',
      body: QuoteBodySchema,
      data: QuoteSchema,
      message: 'Quote created',
      errors: [400],
    },
    ({ ctx, body }) => orders.quote(caller(ctx), body),
  );
  api.route(
    {
      ...approved,
      method: 'POST',
      path: '/v1/orders',
      operationId: 'createOrder',
      summary: 'Create an order from a quote or from legs',
      body: CreateOrderBodySchema,
      data: OrderDetailSchema,
      message: 'Order created',
      errors: [400, 404, 409],
    },
    ({ ctx, body }) => orders.create(caller(ctx), body),
  );
  api.route(
    {
      ...secret,
      method: 'GET',
      path: '/v1/orders',
      operationId: 'listOrders',
      summary: 'List orders, newest first (CONTRACT §7)',
      query: ListQuerySchema,
      data: OrderSummarySchema,
      paged: true,
      message: 'Orders retrieved',
    },
    ({ ctx, query }) => {
      const { data, meta } = orders.list(caller(ctx), query);
      return { page: data, meta };
    },
  );
  api.route(
    // spec §8: get order costs 2 tokens
    {
      ...secret,
      cost: 2,
      method: 'GET',
      path: '/v1/orders/{reference}',
      operationId: 'getOrder',
      summary: 'Get an order (payout and timeline with include)',
      params: ReferenceParamsSchema,
      query: IncludeQuerySchema,
      data: OrderDetailSchema,
      message: 'Order retrieved',
      errors: [404],
    },
    ({ ctx, params, query }) => rawData(orders.detailJson(caller(ctx), params.reference, query.include)),
  );
  api.route(
    {
      ...secret,
      method: 'PATCH',
      path: '/v1/orders/{reference}/cancel',
      operationId: 'cancelOrder',
      summary: 'Cancel an order that has not been paid',
      params: ReferenceParamsSchema,
      body: CancelBodySchema,
      data: OrderDetailSchema,
      message: 'Order cancelled',
      errors: [400, 404],
    },
    ({ ctx, params, body }) => orders.cancel(caller(ctx), params.reference, body.reason),
  );
  api.route(
    {
      ...secret,
      method: 'POST',
      path: '/v1/orders/{reference}/fulfill',
      operationId: 'fulfillOrder',
      summary: 'Submit pay-in proof when confirmation is delayed',
      description:
        'The body depends on the pay-in kind: fiat (onramp) `reference` + `institution`, crypto (offramp, swap) `tx_hash`; it is checked against the order’s kind.',
      params: ReferenceParamsSchema,
      query: IncludeQuerySchema,
      body: FulfilBodySchema,
      bodyCheckedBy: 'handler',
      data: OrderDetailSchema,
      message: 'Pay-in proof received',
      errors: [400, 404],
    },
    ({ ctx, params, query }) => orders.fulfil(caller(ctx), params.reference, ctx.request.body, query.include),
  );
}
