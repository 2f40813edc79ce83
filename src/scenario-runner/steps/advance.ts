import { ISO, parseDuration } from '../../clock';
import { dataOf, expectReply, StepFailure } from '../script/failure';
import type { StepHandler } from './context';

/** `advance`: a duration, or timer by timer until the order reaches a status within a bound. */
export const advance: StepHandler<'advance'> = async (step, ctx) => {
  const a = step.args;
  if ('duration' in a) {
    expectReply(step, await ctx.client.advance({ duration: a.duration }));
    return;
  }
  const reference = await ctx.referenceOf(a.until.order);
  const deadline = dataOf('GET /sandbox/clock', await ctx.client.clock()).now_ms + parseDuration(a.within)!;
  for (;;) {
    const order = await ctx.readOrder(reference);
    if (order.status === a.until.status) return;
    const now = dataOf('GET /sandbox/clock', await ctx.client.clock());
    const next = now.next_timer_at ? Date.parse(now.next_timer_at) : undefined;
    if (next === undefined || next > deadline) {
      if (now.now_ms < deadline) await ctx.client.advance({ to: ISO(deadline) });
      const last = await ctx.readOrder(reference);
      if (last.status === a.until.status) return;
      throw new StepFailure(
        `bound exceeded: order ${reference} did not reach ${a.until.status} within ${a.within}`,
        a.until.status,
        last.status,
      );
    }
    expectReply(step, await ctx.client.advance({ to: ISO(next) }));
  }
};
