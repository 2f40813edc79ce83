import { expectReply } from '../script/failure';
import type { StepHandler } from './context';

/** `payout`: POST /sandbox/orders/{ref}/payout with the outcome. */
export const payout: StepHandler<'payout'> = async (step, ctx) => {
  const reference = await ctx.referenceOf(step.args.order);
  const { order: _, ...body } = step.args;
  expectReply(step, await ctx.client.payout(reference, body));
};
