import { expectReply } from '../script/failure';
import { downUrl } from '../partner/receiver';
import type { StepHandler } from './context';

/** `partner`: changes the partner's settings mid-scenario (`target`, `down` or a URL for webhooks). */
export const partner: StepHandler<'partner'> = async (step, ctx) => {
  const a = step.args;
  const patch: Record<string, unknown> = { ...a };
  if (a.webhook_url === 'target') patch.webhook_url = ctx.targetUrl;
  if (a.webhook_url === 'down') patch.webhook_url = await downUrl();
  expectReply(step, await ctx.client.updatePartner(ctx.partner.client_id, patch));
};
