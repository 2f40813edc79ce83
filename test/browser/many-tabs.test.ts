/**
 * Many tabs of the dashboard in one browser. A browser keeps at most 6 HTTP/1.1 connections to a
 * host, and each tab's live stream held one for as long as the tab was open: the 6th tab showed
 * "connected" over an empty list, and the 7th never loaded. The tabs now share one stream (one
 * tab holds it, the others hear it), and another takes it over when that tab closes.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDashboard, type Dashboard } from '../support/dashboard';
import { createOrder } from '../support/orders';

const TABS = 8;

describe('the dashboard in many tabs of one browser', () => {
  let dashboard: Dashboard | undefined;
  const streams: string[] = [];
  beforeAll(async () => {
    dashboard = await openDashboard({ viewport: { width: 1200, height: 800 } });
    dashboard.context.on('request', (request) => {
      if (new URL(request.url()).pathname === '/sandbox/events') streams.push(request.url());
    });
  }, 60_000);
  afterAll(() => dashboard?.close());

  it(`loads and updates live in ${TABS} tabs at once, over one stream, and goes on when the tab holding it closes`, async () => {
    const { context, page, s } = dashboard!;
    const tabs: Page[] = [page];
    while (tabs.length < TABS) tabs.push(await context.newPage());
    const first = await createOrder(s, 'onramp');
    for (const tab of tabs) {
      // Each tab loads while the ones before it are open: the 7th used to time out here.
      await tab.goto(`${s.url}/sandbox/dashboard#/orders`, { timeout: 15_000 });
      await tab.locator('[data-testid="connection"][data-state="connected"]').waitFor({ timeout: 15_000 });
      await tab.locator(`[data-testid="orders"] a:has-text("${first.reference}")`).waitFor({ timeout: 15_000 });
    }
    expect(streams).toHaveLength(1);

    // An order made outside the page shows in every tab, the ones that hold no stream included.
    const second = await createOrder(s, 'offramp');
    for (const tab of tabs) await tab.locator(`[data-testid="orders"] a:has-text("${second.reference}")`).waitFor({ timeout: 10_000 });

    // The tab that holds the stream closes: another opens it, and the rest keep updating.
    await tabs.shift()!.close();
    const third = await createOrder(s, 'swap');
    for (const tab of tabs) {
      await tab.locator(`[data-testid="orders"] a:has-text("${third.reference}")`).waitFor({ timeout: 15_000 });
      await tab.locator('[data-testid="connection"][data-state="connected"]').waitFor({ timeout: 15_000 });
    }
    expect(streams).toHaveLength(2);
    expect(dashboard!.pageErrors).toEqual([]);
  }, 120_000);
});
