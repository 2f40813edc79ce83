import type Router from '@koa/router';
import { z } from 'zod';
import type { PartnerRegistry } from '../auth';
import { ENVIRONMENTS } from '../reference';
import type { OrderService } from '../orders';
import { badRequest, notFound } from '../shared/errors';
import { ok, paginate } from '../shared/envelope';
import { WEBHOOK_EVENTS } from '../shared/events';
import { parseOrThrow } from '../shared/validation';
import { deliveryView, type Dispatcher } from '../webhooks';

const page = (name: string, max: number, fallback: number) =>
  z
    .string()
    .regex(/^\d+$/, `${name} must be a positive integer`)
    .transform(Number)
    .refine((n) => n >= 1 && n <= max, `${name} must be from 1 to ${max}`)
    .optional()
    .transform((n) => n ?? fallback);

const ListQuerySchema = z.object({
  client_id: z.string().optional(),
  order: z.string().optional(),
  event: z.enum(WEBHOOK_EVENTS).optional(),
  status: z.enum(['pending', 'succeeded', 'retrying', 'failed']).optional(),
  page: page('page', 1_000_000, 1),
  per_page: page('per_page', 500, 50),
});

const SendBodySchema = z.object({
  client_id: z.string().min(1),
  event: z.enum(WEBHOOK_EVENTS),
  order: z.string().min(1).optional(),
  data: z.record(z.string(), z.unknown()).optional(),
  url: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).optional(),
  environment: z.enum(ENVIRONMENTS).optional(),
});

/** CONTRACT §4 webhook routes: the delivery log, manual retry, and signed sends on demand. */
export function registerWebhookRoutes(
  router: Router,
  deps: { dispatcher: Dispatcher; partners: PartnerRegistry; orders: OrderService },
): void {
  const { dispatcher, partners, orders } = deps;

  router.get('/sandbox/webhooks/deliveries', (ctx) => {
    const q = parseOrThrow(ListQuerySchema, ctx.query);
    const matching = dispatcher
      .list()
      .filter(
        (d) =>
          (!q.client_id || d.client_id === q.client_id) &&
          (!q.order || d.order === q.order) &&
          (!q.event || d.event === q.event) &&
          (!q.status || d.status === q.status),
      )
      .reverse();
    const { data, meta } = paginate(matching, q.page, q.per_page);
    ctx.body = ok('Deliveries retrieved', data.map(deliveryView), meta);
  });

  router.get('/sandbox/webhooks/deliveries/:id', (ctx) => {
    const d = dispatcher.get(ctx.params.id!);
    if (!d) throw notFound(`Delivery ${ctx.params.id} not found`);
    ctx.body = ok('Delivery retrieved', deliveryView(d));
  });

  router.post('/sandbox/webhooks/deliveries/:id/retry', async (ctx) => {
    const d = await dispatcher.retry(ctx.params.id!);
    if (!d) throw notFound(`Delivery ${ctx.params.id} not found`);
    ctx.body = ok('Delivery sent again', deliveryView(d));
  });

  router.post('/sandbox/webhooks/send', async (ctx) => {
    const body = parseOrThrow(SendBodySchema, ctx.request.body);
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
    ctx.body = ok('Delivery sent', deliveryView(delivery));
  });
}
