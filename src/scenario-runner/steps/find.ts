import type { OrderSummary } from '../../orders';
import { dataOf, expectReply, StepFailure } from '../script/failure';
import type { StepHandler } from './context';

/**
 * `find`: the partner's orders (GET /v1/orders, every page) matching `merchant_reference`,
 * `customer_reference` and `status`; fails unless exactly `count` match (default 1). `as:`
 * names the newest match, which later steps use like a created order. With `expect_error`, the
 * first page's read must fail that way.
 */
export const find: StepHandler<'find'> = async (step, ctx) => {
  const { count, ...filter } = await ctx.resolve(step.args);
  const found: OrderSummary[] = [];
  for (let page = 1; ; page++) {
    const res = await ctx.api.listOrders({ page, per_page: 100, status: filter.status });
    if (step.expect_error) {
      // The read is expected to fail (a fault's error, drop, reset, truncate or malformed: CONTRACT
      // §12, §22): the step passes on exactly that failure and finds nothing.
      expectReply(step, res);
      return;
    }
    for (const o of dataOf('GET /v1/orders', res)) {
      if (filter.merchant_reference !== undefined && o.merchant_reference !== filter.merchant_reference) continue;
      if (filter.customer_reference !== undefined && o.customer_reference !== filter.customer_reference) continue;
      found.push(o);
    }
    if (page >= (res.body?.meta?.last_page ?? 1)) break;
  }
  if (found.length !== count)
    throw new StepFailure(
      `found ${found.length} orders matching ${JSON.stringify(filter)}`,
      count,
      found.map((o) => o.reference),
    );
  for (const o of found) if (!ctx.orders.includes(o.reference)) ctx.orders.push(o.reference);
  if (step.as && found[0]) ctx.scope.set(step.as, found[0]);
};
