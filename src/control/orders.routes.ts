import type Router from '@koa/router';
import { ok } from '../shared/envelope';
import type { OrderService } from '../orders';

/** CONTRACT §4 order simulation controls; orders are addressed by reference across environments. */
export function registerOrderControlRoutes(router: Router, deps: { orders: OrderService }): void {
  const { orders } = deps;
  router.get('/sandbox/orders/:reference', (ctx) => {
    ctx.body = ok('Order retrieved', orders.detail(ctx.params.reference!));
  });
  router.post('/sandbox/orders/:reference/payin', (ctx) => {
    ctx.body = ok('Pay-in simulated', orders.simulatePayin(ctx.params.reference!, ctx.request.body));
  });
  router.post('/sandbox/orders/:reference/payout', (ctx) => {
    ctx.body = ok('Payout outcome set', orders.decidePayout(ctx.params.reference!, ctx.request.body));
  });
  router.post('/sandbox/orders/:reference/expire', (ctx) => {
    ctx.body = ok('Pay-in window ended', orders.expire(ctx.params.reference!));
  });
}
