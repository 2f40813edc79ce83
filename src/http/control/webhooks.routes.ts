import { z } from 'zod';
import { ControlPageQuery } from '../../shared/schemas';
import type { PartnerRegistry } from '../../auth';
import type { Api, AnyRouteSpec } from '../api';
import { ENVIRONMENTS } from '../../reference';
import type { OrderService } from '../../orders';
import { badRequest, notFound } from '../../shared/errors';
import { paginate } from '../../shared/envelope';
import { DeliverySchema, DeliveryStatusSchema, WebhookEventSchema, deliveryView, type Dispatcher } from '../../webhooks';


/** CONTRACT §4 delivery log filters (query strings). */
export const DeliveriesQuerySchema = z.object({
  client_id: z.string().optional(),
  order: z.string().optional(),
  event: WebhookEventSchema.optional(),
  status: DeliveryStatusSchema.optional(),
  q: z
    .string()
    .max(200, 'must be at most 200 characters')
    .optional()
    .meta({ description: 'text in the delivery id or the order reference (case-insensitive)' }),
  ...ControlPageQuery,
});

/** CONTRACT §4 `POST /sandbox/webhooks/send` body. */
export const SendBodySchema = z.object({
  client_id: z.string().min(1),
  event: WebhookEventSchema,
  order: z.string().min(1).optional(),
  data: z.record(z.string(), z.unknown()).optional(),
  url: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).optional(),
  environment: z.enum(ENVIRONMENTS).optional(),
});

const IdParamsSchema = z.object({ id: z.string() });
const admin = { auth: 'admin', tag: 'sandbox' } as const;

// The specs are exported so the control client (src/client/control-client.ts) is typed by them.
export const listDeliveriesSpec = { ...admin, method: 'GET', path: '/sandbox/webhooks/deliveries', operationId: 'listDeliveries', summary: 'The webhook delivery log, newest first', query: DeliveriesQuerySchema, data: DeliverySchema, paged: true, message: 'Deliveries retrieved' } as const satisfies AnyRouteSpec;
export const getDeliverySpec = { ...admin, method: 'GET', path: '/sandbox/webhooks/deliveries/{id}', operationId: 'getDelivery', summary: 'One delivery with every attempt', params: IdParamsSchema, data: DeliverySchema, message: 'Delivery retrieved', errors: [404] } as const satisfies AnyRouteSpec;
export const retryDeliverySpec = { ...admin, method: 'POST', path: '/sandbox/webhooks/deliveries/{id}/retry', operationId: 'retryDelivery', summary: 'Send a delivery again now (answers once the attempt is done)', params: IdParamsSchema, data: DeliverySchema, message: 'Delivery sent again', errors: [404] } as const satisfies AnyRouteSpec;
export const sendWebhookSpec = { ...admin, method: 'POST', path: '/sandbox/webhooks/send', operationId: 'sendWebhook', summary: 'Send one signed delivery of any event on demand', body: SendBodySchema, data: DeliverySchema, message: 'Delivery sent', errors: [400, 404] } as const satisfies AnyRouteSpec;

/** CONTRACT §4 webhook routes: the delivery log, manual retry, and signed sends on demand. */
export function registerWebhookRoutes(api: Api, deps: { dispatcher: Dispatcher; partners: PartnerRegistry; orders: OrderService }): void {
  const { dispatcher, partners, orders } = deps;

  api.route(
    listDeliveriesSpec,
    ({ query: q }) => {
      const needle = q.q?.trim().toLowerCase() || undefined;
      const matching = dispatcher
        .list()
        .filter(
          (d) =>
            (!q.client_id || d.client_id === q.client_id) &&
            (!q.order || d.order === q.order) &&
            (!q.event || d.event === q.event) &&
            (!q.status || d.status === q.status) &&
            (!needle || d.id.toLowerCase().includes(needle) || (d.order ?? '').toLowerCase().includes(needle)),
        )
        .reverse();
      const { data, meta } = paginate(matching, q.page, q.per_page);
      return { page: data.map(deliveryView), meta };
    },
  );

  api.route(
    getDeliverySpec,
    ({ params }) => {
      const d = dispatcher.get(params.id);
      if (!d) throw notFound(`Delivery ${params.id} not found`);
      return deliveryView(d);
    },
  );

  api.route(
    retryDeliverySpec,
    async ({ params }) => {
      const d = await dispatcher.retry(params.id);
      if (!d) throw notFound(`Delivery ${params.id} not found`);
      return deliveryView(d);
    },
  );

  api.route(
    sendWebhookSpec,
    async ({ body }) => {
      const partner = partners.require(body.client_id);
      let environment = body.environment ?? 'test';
      let data: Record<string, unknown> = {};
      if (body.order) {
        const order = orders.find(body.order);
        if (order.clientId !== partner.client_id) throw badRequest(`order: ${body.order} belongs to another partner`);
        if (body.environment && body.environment !== order.env) throw badRequest(`environment: order ${body.order} is a ${order.env} order`);
        environment = order.env;
        data = { ...orders.summary(order) };
      } else if (!body.data) {
        throw badRequest('order: give an order reference, or data to send');
      }
      if (!body.url && !partner.webhook_url) throw badRequest('url: the partner has no webhook_url; give url');
      const delivery = await dispatcher.send({
        partner,
        environment,
        order: body.order ?? (typeof body.data?.reference === 'string' ? body.data.reference : null),
        event: body.event,
        data: { ...data, ...body.data },
        url: body.url ?? null,
        source: 'manual',
      });
      return deliveryView(delivery);
    },
  );
}
