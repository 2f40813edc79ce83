/**
 * The dashboard's fault banner (CONTRACT §15, §22) in Chromium: every fault in force with what it
 * does and its window of virtual time, marked waiting, active or over against the virtual clock,
 * and moving on when the clock is advanced. The screen is saved as screenshots/30-fault-banner.png.
 */
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDashboard, type Dashboard } from '../support/dashboard';
import { T0, type TestServer } from '../support/server';

const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');

describe('the fault banner shows each fault with its window (CONTRACT §22)', () => {
  let dashboard: Dashboard | undefined;
  let s: TestServer;
  let page: Page;

  beforeAll(async () => {
    dashboard = await openDashboard({ viewport: { width: 1280, height: 800 } });
    ({ s, page } = dashboard);
  }, 60_000);

  afterAll(async () => {
    await dashboard?.close();
  });

  /** The banner's serious or critical axe-core violations: its pills (active, not yet, over) must stay readable. */
  const seriousInBanner = async () => {
    await page.addScriptTag({ path: AXE });
    const violations = await page.evaluate<Array<{ id: string; impact: string | null }>>(
      `axe.run(document.querySelector('[data-testid="fault-banner"]'), { resultTypes: ['violations'] }).then((r) => r.violations)`,
    );
    return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id);
  };
  const item = (id: string) => page.locator(`[data-testid="fault-banner"] li[data-fault="${id}"]`);

  it('lists each fault, what it does and its window, and follows the virtual clock', async () => {
    const add = async (body: Record<string, unknown>) => (await s.control('POST', '/sandbox/faults', body)).body.data.id as string;
    const always = await add({ method: 'POST', path: '/v1/orders', error: { status: 503 }, skip: 2 });
    const outage = await add({ path: '/v1/**', reset: 1, window: { from: '5m', to: '10m' } });
    const proxy = await add({ path: '/v1/networks', truncate: 10, malformed: 0.5, window: { to: '5m' } });
    await dashboard!.open('#/orders');
    const banner = page.locator('[data-testid="fault-banner"]');
    await banner.waitFor();
    expect(await banner.locator('strong').first().innerText()).toBe('3 faults in force on /v1, 2 active now');
    expect(await item(always).getAttribute('data-state')).toBe('active');
    expect(await item(always).innerText()).toMatch(/^flt_\d+ POST \/v1\/orders: HTTP 503; always, skips 2 \(0 so far\)\s+active$/);
    expect(await item(outage).getAttribute('data-state')).toBe('waiting');
    const at = (ms: number) => new Date(T0 + ms).toISOString().replace('T', ' ').replace('.000Z', 'Z');
    expect(await item(outage).innerText()).toMatch(
      new RegExp(`^flt_\\d+ \\* /v1/\\*\\*: reset 1; from ${at(5 * 60_000)} to ${at(10 * 60_000)}\\s+not yet$`),
    );
    expect(await item(proxy).innerText()).toMatch(
      new RegExp(`^flt_\\d+ \\* /v1/networks: cut after 10 B, non-JSON 0.5; until ${at(5 * 60_000)}\\s+active$`),
    );
    await dashboard!.shot('30-fault-banner');
    expect(await seriousInBanner()).toEqual([]);

    // The clock moves (the dashboard hears it on its live feed): the outage opens, the proxy's window is over.
    expect((await s.control('POST', '/sandbox/clock/advance', { duration: '5m' })).status).toBe(200);
    await page.locator(`[data-testid="fault-banner"] li[data-fault="${outage}"][data-state="active"]`).waitFor({ timeout: 5_000 });
    expect(await item(proxy).getAttribute('data-state')).toBe('over');
    expect(await banner.locator('strong').first().innerText()).toBe('3 faults in force on /v1, 2 active now');
    await dashboard!.shot('31-fault-banner-after-advance');
    expect(await seriousInBanner()).toEqual([]);
    // The faults table of the requests screen says the same
    await dashboard!.open('#/requests');
    const row = page.locator('[data-testid="faults"] tr', { hasText: outage });
    expect(await row.locator('[data-label="Does"]').innerText()).toBe('reset 1');
    expect(await row.locator('[data-label="When"]').innerText()).toBe(`from ${at(5 * 60_000)} to ${at(10 * 60_000)}`);
    await dashboard!.shot('32-faults-table');
    await s.control('DELETE', '/sandbox/faults');
    expect(dashboard!.pageErrors).toEqual([]);
  }, 60_000);
});
