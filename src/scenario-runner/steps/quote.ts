import { callFor, expectReply } from '../script/failure';
import type { StepHandler } from './context';

/** `quote`: POST /v1/orders/quote; `as:` names the quote. */
export const quote: StepHandler<'quote'> = async (step, ctx) => {
  const data = expectReply(step, await ctx.api.quote(await ctx.resolve(step.args), callFor(step)));
  if (step.as && data) ctx.scope.set(step.as, data);
};
