import { callFor, expectReply } from '../script/failure';
import type { StepHandler } from './context';

/** `order`: POST /v1/orders with the step's body; `quote: q` stands for `quote_id: ${q.quote_id}`. */
export const order: StepHandler<'order'> = async (step, ctx) => {
  const body = { ...(await ctx.resolve(step.args)) };
  if (body.quote !== undefined) {
    const named = typeof step.args.quote === 'string' && ctx.scope.has(step.args.quote) ? ctx.scope.get(step.args.quote) : body.quote;
    body.quote_id = (named as { quote_id?: unknown })?.quote_id ?? named;
    delete body.quote;
  }
  const data = expectReply(step, await ctx.api.createOrder(body, callFor(step)));
  if (data?.reference) {
    ctx.orders.push(data.reference);
    if (step.as) ctx.scope.set(step.as, data);
  }
};
