import { WEBHOOK_EVENTS } from '../shared/events';
import type { PartnerIdentity, SandboxClient } from './partner/client';
import { StepFailure } from './script/failure';
import type { Scenario } from './script/schema';

/**
 * The scenario's partner: a fresh one, or `identity` (--partner) provisioned with exactly its
 * keys, or reused when a sandbox already holds it with those keys.
 */
export async function setupPartner(
  scenario: Scenario,
  client: SandboxClient,
  options: { targetUrl: string; identity?: PartnerIdentity },
): Promise<PartnerIdentity> {
  const settings = {
    events: scenario.partner.events ?? [...WEBHOOK_EVENTS],
    kyb_status: scenario.partner.kyb_status ?? 'approved',
    webhook_url: scenario.partner.webhook ? options.targetUrl : null,
  };
  const { identity } = options;
  if (!identity) {
    const created = await client.createPartner({ name: `scenario ${scenario.name}`, ...settings });
    if (!created.ok) throw new StepFailure(`could not create a partner: ${created.error.status} ${created.error.message}`);
    return { client_id: created.data.client_id, keys: created.data.keys };
  }
  const created = await client.createPartner({ client_id: identity.client_id, keys: identity.keys, name: scenario.name, ...settings });
  if (!created.ok && created.error.status === 409) {
    // Reuse: it must hold exactly these keys, which only a signed call can prove.
    const probe = await client.as(identity, scenario.environment).listOrders({ page: 1, per_page: 1 });
    if (probe.status === 401)
      throw new StepFailure(`partner ${identity.client_id} exists on this sandbox with other keys (${probe.body?.message ?? probe.text})`);
    if (probe.status !== 200)
      throw new StepFailure(`could not reuse partner ${identity.client_id}: ${probe.status} ${probe.body?.message ?? probe.text}`);
    const patched = await client.updatePartner(identity.client_id, settings);
    if (!patched.ok) throw new StepFailure(`could not set the partner up: ${patched.error.status} ${patched.error.message}`);
  } else if (!created.ok) {
    throw new StepFailure(`could not provision partner ${identity.client_id}: ${created.error.status} ${created.error.message}`);
  }
  return identity;
}
