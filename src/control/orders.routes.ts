import { ControlPayinSchema, ControlPayoutSchema, OrderDetailSchema, ReferenceParamsSchema, type OrderService } from '../orders';
import type { Api } from '../http/api';

const admin = { auth: 'admin', tag: 'sandbox', params: ReferenceParamsSchema, data: OrderDetailSchema } as const;

/** CONTRACT §4 order simulation controls; orders are addressed by reference across environments. */
export function registerOrderControlRoutes(api: Api, deps: { orders: OrderService }): void {
  const { orders } = deps;
  api.route(
    { ...admin, method: 'GET', path: '/sandbox/orders/{reference}', operationId: 'sandboxGetOrder', summary: 'Any order’s detail, with payout and timeline', message: 'Order retrieved', errors: [404] },
    ({ params }) => orders.detail(params.reference),
  );
  api.route(
    { ...admin, method: 'POST', path: '/sandbox/orders/{reference}/payin', operationId: 'simulatePayin', summary: 'Simulate a pay-in arriving (exact by default; partial, over, unconfirmed)', body: ControlPayinSchema, message: 'Pay-in simulated', errors: [400, 404] },
    ({ params, body }) => orders.simulatePayin(params.reference, body),
  );
  api.route(
    { ...admin, method: 'POST', path: '/sandbox/orders/{reference}/payout', operationId: 'decidePayout', summary: 'Decide how the payout ends: success, fail, revert, partial', body: ControlPayoutSchema, message: 'Payout outcome set', errors: [400, 404] },
    ({ params, body }) => orders.decidePayout(params.reference, body),
  );
  api.route(
    { ...admin, method: 'POST', path: '/sandbox/orders/{reference}/expire', operationId: 'expireOrder', summary: 'End the pay-in window now', message: 'Pay-in window ended', errors: [400, 404] },
    ({ params }) => orders.expire(params.reference),
  );
}
