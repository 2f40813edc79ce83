import { expectReply } from '../script/failure';
import type { StepHandler } from './context';

/** `expire`: ends the pay-in window now. */
export const expire: StepHandler<'expire'> = async (step, ctx) => {
  const reference = await ctx.referenceOf(step.args.order);
  expectReply(step, await ctx.client.expire(reference));
};
