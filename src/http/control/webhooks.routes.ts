import * as z from 'zod';
import { ControlPageQuery } from '../../shared/schemas';
import type { PartnerRegistry } from '../../auth';
import type { Api, AnyRouteSpec } from '../api/api';
import { ENVIRONMENTS } from '../../reference';
import { HTTP_URL_PATTERN } from '../../shared/documented';
import { eventSummary, type OrderService } from '../../orders';
import { badRequest, notFound, validationError } from '../../shared/errors';
import { paginate } from '../../shared/envelope';
import {
  DeliverySchema,
  DeliveryStatusSchema,
  WebhookEventSchema,
  WebhookVectorsSchema,
  deliveryView,
  webhookSignatureVectors,
  type Dispatcher,
  type WebhookVectors,
} from '../../webhooks';

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

/** The status every order.created carries (spec §6.2). */
const CREATED_STATUS = 'awaiting_user_payment';

/** CONTRACT §4 `POST /sandbox/webhooks/send` body. */
export const SendBodySchema = z
  .object({
    client_id: z
      .string()
      .min(1)
      .optional()
      .meta({ description: "the partner; default: the order's partner, or the demo partner when no order is given", example: 'ptr_acme' }),
    event: WebhookEventSchema,
    order: z
      .string()
      .min(1)
      .optional()
      .meta({ description: 'an order reference of the partner: its summary is the data', example: 'ORD4F7K2M9Q8X1B3' }),
    data: z
      .record(z.string(), z.unknown())
      .optional()
      .meta({ description: 'fields sent as given, over the order summary', example: { reference: 'ORD4F7K2M9Q8X1B3' } }),
    url: z
      .url({ protocol: /^https?$/, error: 'must be an http(s) URL' })
      .optional()
      .meta({
        pattern: HTTP_URL_PATTERN,
        description: "a fixed target; default: the partner's webhook_url",
        example: 'https://hooks.partner.example/ramp',
      }),
    environment: z.enum(ENVIRONMENTS).optional().meta({ description: "default: the order's, else test" }),
  })
  .meta({
    id: 'SendWebhookBody',
    description: '`order`, or `data`, or both (400 with neither); `url` when the partner has no webhook_url',
    anyOf: [{ required: ['order'] }, { required: ['data'] }],
    example: { client_id: 'ptr_acme', event: 'order.created', order: 'ORD4F7K2M9Q8X1B3' },
  });

const IdParamsSchema = z.object({ id: z.string().min(1).meta({ description: 'a delivery id', example: 'dlv_3kTq9ZbW1xY7cV2nM8pL' }) });
const admin = { auth: 'admin', tag: 'sandbox' } as const;

// The specs are exported so the control client (src/client/control-client.ts) is typed by them.
export const listDeliveriesSpec = {
  ...admin,
  method: 'GET',
  path: '/sandbox/webhooks/deliveries',
  operationId: 'listDeliveries',
  summary: 'The webhook delivery log, newest first',
  query: DeliveriesQuerySchema,
  data: DeliverySchema,
  paged: true,
  message: 'Deliveries retrieved',
} as const satisfies AnyRouteSpec;
export const getDeliverySpec = {
  ...admin,
  method: 'GET',
  path: '/sandbox/webhooks/deliveries/{id}',
  operationId: 'getDelivery',
  summary: 'One delivery with every attempt',
  params: IdParamsSchema,
  data: DeliverySchema,
  message: 'Delivery retrieved',
  errors: [404],
} as const satisfies AnyRouteSpec;
export const retryDeliverySpec = {
  ...admin,
  method: 'POST',
  path: '/sandbox/webhooks/deliveries/{id}/retry',
  operationId: 'retryDelivery',
  summary: 'Send a delivery again now (answers once the attempt is done)',
  params: IdParamsSchema,
  data: DeliverySchema,
  message: 'Delivery sent again',
  errors: [404, 409],
} as const satisfies AnyRouteSpec;
export const webhookVectorsSpec = {
  ...admin,
  method: 'GET',
  path: '/sandbox/webhooks/vectors',
  operationId: 'getWebhookVectors',
  summary: 'Webhook signature test vectors (CONTRACT §18): signed deliveries and known mistakes, each valid or not',
  description:
    'The same document as docs/webhook-signature-vectors.json and `ramp-sandbox vectors`: fixed keys and instants, so a verifier can be unit-tested offline.',
  data: WebhookVectorsSchema,
  message: 'Webhook signature vectors',
} as const satisfies AnyRouteSpec;
export const sendWebhookSpec = {
  ...admin,
  method: 'POST',
  path: '/sandbox/webhooks/send',
  operationId: 'sendWebhook',
  summary: 'Send one signed delivery of any event on demand',
  body: SendBodySchema,
  data: DeliverySchema,
  message: 'Delivery sent',
  errors: [400, 404, 409],
} as const satisfies AnyRouteSpec;

/** CONTRACT §4 webhook routes: the delivery log, manual retry, signed sends on demand; §18 the signature vectors. */
export function registerWebhookRoutes(
  api: Api,
  deps: { dispatcher: Dispatcher; partners: PartnerRegistry; orders: OrderService; demoClientId: string },
): void {
  const { dispatcher, partners, orders } = deps;
  let vectors: WebhookVectors | undefined;

  api.route(listDeliveriesSpec, ({ query: q }) => {
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
  });

  api.route(getDeliverySpec, ({ params }) => {
    const d = dispatcher.get(params.id);
    if (!d) throw notFound(`Delivery ${params.id} not found`);
    return deliveryView(d);
  });

  api.route(retryDeliverySpec, async ({ params }) => {
    const d = await dispatcher.retry(params.id);
    if (!d) throw notFound(`Delivery ${params.id} not found`);
    return deliveryView(d);
  });

  // The same every time: made on first use, then kept.
  api.route(webhookVectorsSpec, () => (vectors ??= webhookSignatureVectors()));

  api.route(sendWebhookSpec, async ({ body }) => {
    const order = body.order ? orders.find(body.order) : undefined;
    const partner = partners.require(body.client_id ?? order?.clientId ?? deps.demoClientId);
    let environment = body.environment ?? 'test';
    let data: Record<string, unknown> = {};
    if (order) {
      if (order.clientId !== partner.client_id) throw badRequest(`order: ${body.order} belongs to another partner`);
      if (body.environment && body.environment !== order.env) throw badRequest(`environment: order ${body.order} is a ${order.env} order`);
      environment = order.env;
      data = { ...eventSummary(body.event, orders.summary(order)) };
    } else if (!body.data) {
      throw badRequest('order: give an order reference, or data to send');
    }
    // A listener connected for the partner (CONTRACT §17 listen) receives it without a webhook_url.
    if (!body.url && !partner.webhook_url && !dispatcher.listening(partner.client_id, body.event)) {
      throw badRequest('url: the partner has no webhook_url and no listener; give url');
    }
    // order.created always carries status awaiting_user_payment (spec §6.2, CONTRACT §19), on
    // demand too: a data that says otherwise is refused, and one that says nothing gets it.
    if (body.event === 'order.created' && body.data && 'status' in body.data && body.data.status !== CREATED_STATUS) {
      throw validationError('data.status', `order.created always carries status ${CREATED_STATUS} (spec §6.2)`);
    }
    const sent = { ...data, ...body.data };
    if (body.event === 'order.created') sent.status = CREATED_STATUS;
    const delivery = await dispatcher.send({
      partner,
      environment,
      order: body.order ?? (typeof body.data?.reference === 'string' ? body.data.reference : null),
      event: body.event,
      data: sent,
      url: body.url ?? null,
      source: 'manual',
    });
    return deliveryView(delivery);
  });
}
