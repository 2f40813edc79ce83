import { callFor, expectReply } from '../script/failure';
import type { StepHandler } from './context';

/** `cancel`: PATCH /v1/orders/{ref}/cancel. */
export const cancel: StepHandler<'cancel'> = async (step, ctx) => {
  const reference = await ctx.referenceOf(step.args.order);
  expectReply(step, await ctx.api.cancel(reference, step.args.reason ? { reason: step.args.reason } : {}, callFor(step)));
};
