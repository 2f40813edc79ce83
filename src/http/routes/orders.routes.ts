import type Router from '@koa/router';
import type { Context } from 'koa';
import { ok } from '../../shared/envelope';
import { parseOrThrow } from '../../shared/validation';
import { CancelBodySchema, IncludeQuerySchema, type OrderService } from '../../orders';
import { authOf, requireAuth, type AuthDeps } from '../middleware/authenticate';

const caller = (ctx: Context) => {
  const auth = authOf(ctx);
  return { partner: auth.partner, env: auth.env };
};

/** Spec §4.1 order routes, plus the list route of CONTRACT §7. All need the secret key. */
export function registerOrderRoutes(router: Router, deps: AuthDeps & { orders: OrderService }): void {
  const secret = requireAuth(deps, 'secret');
  const { orders } = deps;

  router.post('/v1/orders/quote', secret, (ctx) => {
    ctx.body = ok('Quote created', orders.quote(caller(ctx), ctx.request.body));
  });
  router.post('/v1/orders', secret, (ctx) => {
    ctx.body = ok('Order created', orders.create(caller(ctx), ctx.request.body));
  });
  router.get('/v1/orders', secret, (ctx) => {
    const { data, meta } = orders.list(caller(ctx), ctx.query);
    ctx.body = ok('Orders retrieved', data, meta);
  });
  // spec §8: get order costs 2 tokens
  router.get('/v1/orders/:reference', requireAuth(deps, 'secret', 2), (ctx) => {
    const { include } = parseOrThrow(IncludeQuerySchema, ctx.query);
    ctx.set('Content-Type', 'application/json; charset=utf-8');
    ctx.body = `{"status":true,"message":"Order retrieved","data":${orders.detailJson(caller(ctx), ctx.params.reference!, include)}}`;
  });
  router.patch('/v1/orders/:reference/cancel', secret, (ctx) => {
    const { reason } = parseOrThrow(CancelBodySchema, ctx.request.body);
    ctx.body = ok('Order cancelled', orders.cancel(caller(ctx), ctx.params.reference!, reason));
  });
  router.post('/v1/orders/:reference/fulfill', secret, (ctx) => {
    const { include } = parseOrThrow(IncludeQuerySchema, ctx.query);
    ctx.body = ok('Pay-in proof received', orders.fulfil(caller(ctx), ctx.params.reference!, ctx.request.body, include));
  });
}
