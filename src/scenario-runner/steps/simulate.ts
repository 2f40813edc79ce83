import { expectReply } from '../script/failure';
import type { StepHandler } from './context';

/** `simulate`: POST /sandbox/orders/{ref}/simulate, the order taken to a status in one call (CONTRACT §16). */
export const simulate: StepHandler<'simulate'> = async (step, ctx) => {
  const reference = await ctx.referenceOf(step.args.order);
  const { order: _, ...body } = step.args;
  expectReply(step, await ctx.client.simulate(reference, body));
};
