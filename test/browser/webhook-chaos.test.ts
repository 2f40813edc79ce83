/** The dashboard shows what webhook chaos did to a delivery (CONTRACT §22), in the log and on its page. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDashboard, type Dashboard } from '../support/dashboard';
import { createOrder } from '../support/orders';

describe('webhook chaos on the dashboard', () => {
  let dashboard: Dashboard | undefined;

  beforeAll(async () => {
    dashboard = await openDashboard({ viewport: { width: 1280, height: 800 } });
  }, 60_000);
  afterAll(async () => {
    await dashboard?.close();
  });

  it('marks a duplicate and a delayed delivery with pills, and links a duplicate to the delivery it repeats', async () => {
    const { s, receiver, page, pageErrors } = dashboard!;
    receiver.behave(() => 'ok');
    await s.controlApi.updatePartner({ params: { client_id: s.demo.clientId }, body: { webhook_url: receiver.url } });
    await s.controlApi.setWebhookChaos({
      params: { client_id: s.demo.clientId },
      body: { duplicate_rate: 1, delay: { min: '10s', max: '10s' } },
    });
    const order = await createOrder(s, 'onramp');
    const [twin, original] = (await s.controlApi.listDeliveries({ query: { order: order.reference } })).data;
    expect(twin).toMatchObject({ chaos: ['duplicate', 'delayed'], duplicate_of: original!.id });

    await dashboard!.open('#/deliveries');
    const row = page.locator(`[data-testid="deliveries"] tr[data-delivery="${twin!.id}"]`);
    await row.locator('[data-chaos="duplicate"]').waitFor();
    await row.locator('[data-chaos="delayed"]').waitFor();
    expect(await page.locator(`tr[data-delivery="${original!.id}"] [data-chaos="duplicate"]`).count()).toBe(0);
    await dashboard!.shot('chaos-01-deliveries');

    await dashboard!.open(`#/deliveries/${twin!.id}`);
    const chaos = page.locator('[data-testid="delivery-chaos"]');
    await chaos.locator(`a:has-text("${original!.id}")`).waitFor();
    expect(await chaos.textContent()).toContain('a duplicate of');
    await dashboard!.shot('chaos-02-delivery');
    expect(pageErrors).toEqual([]);
  }, 60_000);
});
