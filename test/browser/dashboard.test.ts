/**
 * The dashboard in a real browser (CONTRACT §15): Chromium driven by playwright-core, against the
 * sandbox started in process (test/support/dashboard.ts). The browser is CHROMIUM_PATH, the
 * system's chromium, or else the one npm installed (test/support/browser.ts). Each screen is saved
 * under screenshots/ (ignored by git) so a person can look at what the test saw.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDashboard, type Dashboard } from '../support/dashboard';
import { createOrder } from '../support/orders';
import type { Receiver } from '../support/receiver';
import type { TestServer } from '../support/server';

const TOKEN = 'dashboard-admin-token';

describe('dashboard in a browser (CONTRACT §15)', () => {
  let dashboard: Dashboard | undefined;
  let s: TestServer;
  let receiver: Receiver;
  let page: Page;
  let pageErrors: string[];
  const admin = { authorization: `Bearer ${TOKEN}` };
  const shot = (name: string) => dashboard!.shot(name);
  /** Waits until the order screen shows `status`. */
  const orderStatus = (status: string) => dashboard!.orderStatus(status);

  beforeAll(async () => {
    dashboard = await openDashboard({ server: { adminToken: TOKEN }, viewport: { width: 1280, height: 800 } });
    ({ s, receiver, page, pageErrors } = dashboard);
    const patched = await s.control('PATCH', `/sandbox/partners/${s.demo.clientId}`, { webhook_url: receiver.url }, admin);
    expect(patched.status).toBe(200);
  }, 60_000);

  afterAll(async () => {
    await dashboard?.close();
  });

  it('asks for the admin token once, then shows an order created through /v1 live', async () => {
    await page.goto(`${s.url}/`);
    await page.locator('input[name="admin-token"]').waitFor();
    await shot('01-token');
    // A refused token says so (issue 20), and the form asks again.
    await page.fill('input[name="admin-token"]', 'not-the-token');
    await page.click('button[type="submit"]');
    await page.locator('[data-testid="token-refused"]', { hasText: 'did not accept' }).waitFor();
    expect(await page.locator('input[name="admin-token"]').getAttribute('aria-invalid')).toBe('true');
    await page.fill('input[name="admin-token"]', TOKEN);
    await page.click('button[type="submit"]');
    await page.locator('[data-testid="connection"][data-state="connected"]', { hasText: 'connected' }).waitFor();
    await page.locator('text=No orders').waitFor();
    // The token is kept for the tab, never put in the URL.
    expect(page.url()).not.toContain(TOKEN);
    expect(await page.evaluate<string[]>('Object.values(sessionStorage)')).toContain(TOKEN);

    const order = await createOrder(s, 'onramp');
    await page.locator(`[data-testid="orders"] a:has-text("${order.reference}")`).waitFor({ timeout: 5_000 });
    await createOrder(s, 'offramp');
    await page.locator('[data-testid="orders"] tbody tr').nth(1).waitFor();
    await shot('02-orders');
  }, 60_000);

  it('opens the order, pays it in and advances the clock from the page until it completes', async () => {
    await page.locator('[data-testid="orders"] a:has-text("ORD")').last().click();
    await orderStatus('awaiting_user_payment');
    await page.locator('[data-testid="diagram"] g.current[data-status="awaiting_user_payment"]').waitFor();
    // Only what the machine allows now: no fulfil before an unconfirmed pay-in.
    expect(await page.locator('[data-action="fulfil"]').count()).toBe(0);
    await shot('03-order-new');

    await page.click('[data-action="payin-exact"]');
    await orderStatus('processing');
    expect(await page.locator('[data-action="cancel"]').count()).toBe(0);
    await page.click('button:has-text("+30m")');
    await orderStatus('completed');
    await page.locator('[data-testid="diagram"] g.current[data-status="completed"]').waitFor();
    const timeline = await page.locator('[data-testid="timeline"]').innerText();
    for (const status of ['awaiting_user_payment', 'processing', 'routing', 'executing', 'settled', 'completed'])
      expect(timeline).toContain(status);
    expect(await page.locator('[data-testid="diagram"] path.edge.taken').count()).toBeGreaterThanOrEqual(6);
    expect(await page.locator('[data-testid="actions"] button').count()).toBe(0);
    await shot('04-order-completed');
  }, 60_000);

  it('shows an action’s error message from the API in the page', async () => {
    const order = await createOrder(s, 'swap');
    await page.goto(`${s.url}/sandbox/dashboard#/orders/${order.reference}`);
    await orderStatus('awaiting_user_payment');
    await page.fill('input[name="partial"]', '0.0000000001');
    await page.click('[data-action="payin-partial"]');
    await page.locator('[role="alert"]', { hasText: 'decimal places' }).waitFor();
    await page.click('[data-action="cancel"]');
    await orderStatus('cancelled');
  }, 60_000);

  it('takes orders of each type to every other outcome from the page alone', async () => {
    /** Creates an order with the page's New order form and opens it. */
    const fromPage = async (type: 'onramp' | 'offramp' | 'swap') => {
      await page.click('nav >> text=Orders');
      // The form stays open between orders: wait for the page to show either, then open it if closed.
      await page.locator('button:has-text("New order"), button:has-text("Create order")').first().waitFor();
      const opener = page.locator('button:has-text("New order")');
      if (await opener.count()) await opener.click();
      await page.selectOption('select[name="type"]', type);
      await page.click('button:has-text("Create order")');
      const created = page.locator('.form-actions a.mono');
      await created.waitFor();
      const reference = await created.innerText();
      await created.click();
      await orderStatus('awaiting_user_payment');
      return reference;
    };
    const decide = async (outcome: string) => {
      await page.selectOption('select[name="outcome"]', outcome);
      if (outcome === 'partial') await page.fill('input[name="percentage"]', '40');
      await page.click('[data-action="payout"]');
      await page.locator('[role="status"]', { hasText: `payout ${outcome}` }).waitFor();
    };
    const advance = () => page.click('button:has-text("+30m")');

    await fromPage('offramp');
    await decide('fail');
    await page.click('[data-action="payin-exact"]');
    await orderStatus('processing');
    await advance();
    await orderStatus('refunded');
    expect(await page.locator('[data-testid="diagram"] g.visited[data-status="failed"]').count()).toBe(1);
    await shot('08-failed-refunded');

    await fromPage('swap');
    await decide('revert');
    await page.click('[data-action="payin-exact"]');
    await advance();
    await orderStatus('refunded');
    expect(await page.locator('[data-testid="diagram"] g.visited[data-status="reverted"]').count()).toBe(1);

    await fromPage('onramp');
    await page.click('[data-action="payin-partial"]');
    await page.locator('[role="status"]', { hasText: 'paid in part' }).waitFor();
    await page.click('[data-action="expire"]');
    await orderStatus('processing');
    await advance();
    await orderStatus('partially_completed');

    await fromPage('swap');
    await decide('partial');
    await page.click('[data-action="payin-over"]');
    await advance();
    await orderStatus('partially_completed');

    await fromPage('offramp');
    await page.click('[data-action="payin-unconfirmed"]');
    await orderStatus('pending');
    await page.click('[data-action="fulfil"]');
    await orderStatus('processing');

    await fromPage('onramp');
    await page.click('[data-action="expire"]');
    await orderStatus('expired');
    await page.locator('text=a late pay-in is refunded').waitFor();
  }, 90_000);

  it('retries a failed delivery from the page', async () => {
    await page.click('nav >> text=Webhook deliveries');
    const first = page.locator('[data-testid="deliveries"] tr.st-row-retrying').first();
    await first.waitFor();
    const id = await first.getAttribute('data-delivery');
    // Pinned by its id: `.first()` is looked up again at every use, and the live feed may reorder
    // the rows in between (it did: the retry went to another delivery).
    const retrying = page.locator(`[data-testid="deliveries"] tr[data-delivery="${id}"]`);
    receiver.behave(() => 'ok');
    await retrying.locator('button.icon').click();
    await retrying.locator('[data-action="retry"]').click();
    await page.locator(`tr[data-delivery="${id}"].st-row-succeeded`).waitFor();
    expect(receiver.received.at(-1)!.headers['svc-delivery-id']).toBe(id);
    await page.locator(`tr[data-delivery="${id}"] button.icon`).click();
    await page.locator('text=receiver error').first().waitFor();
    await shot('05-deliveries');
  }, 60_000);

  it('adds a fault and shows the faulted request, and a signature hint, in the inspector', async () => {
    await page.click('nav >> text=Requests & faults');
    await page.fill('input[name="fault_path"]', '/v1/networks');
    await page.selectOption('select[name="fault_status"]', '503');
    await page.click('button:has-text("Add fault")');
    await page.locator('[data-testid="faults"] td', { hasText: '/v1/networks' }).waitFor();

    expect((await s.pub('GET', '/v1/networks')).status).toBe(503);
    const bad = await s.request('GET', '/v1/orders', {
      headers: {
        'svc-client-id': s.demo.clientId,
        authorization: `Bearer ${s.demo.keys.test.secret_key}`,
        'svc-timestamp': String(Date.now()),
        'svc-signature': 'sha256=00',
      },
    });
    expect(bad.status).toBe(401);
    await page.locator('[data-testid="requests"] .pill.fault').first().waitFor({ timeout: 5_000 });
    await page.locator('[data-testid="hint"]').first().waitFor({ timeout: 5_000 });
    expect(await page.locator('[data-testid="hint"]').first().innerText()).toContain(`${s.demo.clientId}|`);
    await shot('06-inspector');

    await page.click('[data-testid="faults"] button:has-text("Remove")');
    await page.locator('text=No faults').waitFor();
  }, 60_000);

  it('creates a partner and rotates its keys from the page', async () => {
    await page.click('nav >> text=Partners');
    await page.click('button:has-text("New partner")');
    await page.fill('input[name="name"]', 'Browser Co');
    await page.click('button:has-text("Create partner")');
    await page.locator('[data-testid="new-keys"]').waitFor();
    await page.locator('[data-testid="partners"] td', { hasText: 'Browser Co' }).waitFor();
    // Rotation asks first (issue 20).
    page.once('dialog', (dialog) => void dialog.accept());
    await page.click('button:has-text("Rotate test keys")');
    await page.locator('[data-testid="new-keys"]', { hasText: 'previous set no longer works' }).waitFor();
    await shot('07-partners');
    expect(pageErrors).toEqual([]);
  }, 60_000);
});
