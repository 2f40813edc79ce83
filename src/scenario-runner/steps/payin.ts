import { expectReply } from '../script/failure';
import type { StepHandler } from './context';

/** `payin`: POST /sandbox/orders/{ref}/payin; `amount` may be a percentage of what is due. */
export const payin: StepHandler<'payin'> = async (step, ctx) => {
  const reference = await ctx.referenceOf(step.args.order);
  const body: Record<string, unknown> = {};
  const amount = await ctx.resolve(step.args.amount);
  if (typeof amount === 'string' && amount.endsWith('%')) {
    const order = await ctx.readOrder(reference);
    body.amount = (order.from.amount * Number(amount.slice(0, -1))) / 100;
  } else if (amount !== undefined) body.amount = amount;
  if (step.args.confirmed !== undefined) body.confirmed = step.args.confirmed;
  if (step.args.tx_hash) body.tx_hash = await ctx.resolve(step.args.tx_hash);
  if (step.args.tx_reference) body.tx_reference = await ctx.resolve(step.args.tx_reference);
  expectReply(step, await ctx.client.payin(reference, body));
};
