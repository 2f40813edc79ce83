import { callFor, expectReply } from '../script/failure';
import type { StepHandler } from './context';

/** `fulfil`: POST /v1/orders/{ref}/fulfill, by default with the pending pay-in's details. */
export const fulfil: StepHandler<'fulfil'> = async (step, ctx) => {
  const reference = await ctx.referenceOf(step.args.order);
  const order = await ctx.readOrder(reference);
  const a = await ctx.resolve(step.args);
  const body =
    order.type === 'onramp'
      ? {
          reference: a.reference ?? order.payin.tx_reference.at(-1) ?? ctx.fake.reference(),
          institution: a.institution ?? order.payin.institution_code,
        }
      : { tx_hash: a.tx_hash ?? order.payin.tx_hash.at(-1) ?? (await ctx.fake.tx_hash(order.payin.network)) };
  expectReply(step, await ctx.api.fulfil(reference, body, callFor(step)));
};
