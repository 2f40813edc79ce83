import { expectReply } from '../script/failure';
import type { StepHandler } from './context';

/**
 * `rates`: scripts a pair's rate on the virtual clock (`POST /sandbox/rates`, CONTRACT §22), or
 * `{remove: PAIR}`. Rates are the sandbox's, not the partner's: a script the scenario leaves is
 * removed when it ends, so runs sharing a sandbox stay apart.
 */
export const rates: StepHandler<'rates'> = async (step, ctx) => {
  const a = await ctx.resolve(step.args);
  if ('remove' in a) {
    expectReply(step, await ctx.client.removeRateScript(a.remove));
    ctx.rates.delete(a.remove.toUpperCase());
    return;
  }
  const data = expectReply(step, await ctx.client.scriptRate(a));
  if (data) ctx.rates.add(data.pair);
};

/** `webhook_chaos`: the scenario's partner's webhook chaos (CONTRACT §22), or `{remove: true}`; removed when the scenario ends. */
export const webhookChaos: StepHandler<'webhook_chaos'> = async (step, ctx) => {
  const a = await ctx.resolve(step.args);
  if ('remove' in a) {
    expectReply(step, await ctx.client.removeWebhookChaos(ctx.partner.client_id));
    ctx.chaos.set = false;
    return;
  }
  if (expectReply(step, await ctx.client.setWebhookChaos(ctx.partner.client_id, a))) ctx.chaos.set = true;
};
