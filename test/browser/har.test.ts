/**
 * The dashboard's "Download HAR" (CONTRACT §19) in a real browser: the requests screen's link
 * saves GET /sandbox/requests.har with the screen's filters, as a plain link without an admin
 * token, and through a fetch with the token when the sandbox has one. The file is taken from
 * playwright's download event and read as HAR.
 */
import { readFile } from 'node:fs/promises';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../support/browser';
import { harErrors } from '../support/har';
import { startTestServer, type TestServer } from '../support/server';

let browser: Browser;
beforeAll(async () => {
  browser = await launchChromium();
}, 60_000);
afterAll(async () => {
  await browser?.close();
});

/** A sandbox and a fresh browser context on its requests screen, each closed by `close`. */
async function open(
  options: { adminToken?: string } = {},
): Promise<{ s: TestServer; context: BrowserContext; page: Page; close(): Promise<void> }> {
  const s = await startTestServer(options);
  const context = await browser.newContext({ acceptDownloads: true });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  return {
    s,
    context,
    page,
    close: async () => {
      await context.close();
      await s.close();
      expect(errors).toEqual([]);
    },
  };
}

/** Clicks "Download HAR" and returns the saved file's name and its parsed contents. */
async function downloadHar(page: Page): Promise<{ name: string; har: any }> {
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('[data-testid="download-har"]')]);
  const path = await download.path();
  return { name: download.suggestedFilename(), har: JSON.parse(await readFile(path, 'utf8')) };
}

describe('Download HAR on the requests screen (CONTRACT §19)', () => {
  it('saves the listed requests, with the screen’s filters, as HAR', async () => {
    const { s, page, close } = await open();
    try {
      const body = JSON.stringify({ from: { currency: 'NGN', amount: 5000 }, to: { currency: 'USDT', network: 'base-sepolia' } });
      expect((await s.signed('POST', '/v1/orders/quote', body)).status).toBe(200);
      expect((await s.signed('GET', '/v1/orders/ORDNOPE')).status).toBe(404);
      await page.goto(`${s.url}/sandbox/dashboard#/requests`);
      await page.locator('[data-testid="requests"] tbody tr[data-request]').nth(1).waitFor();

      const all = await downloadHar(page);
      expect(all.name).toBe('ramp-sandbox-requests.har');
      expect(harErrors(all.har)).toEqual([]);
      const [quote, missing] = all.har.log.entries;
      expect(quote.request).toMatchObject({ method: 'POST', url: `${s.url}/v1/orders/quote`, postData: { text: body } });
      expect(quote.request.headers).toContainEqual({ name: 'svc-signature', value: 'sha256=****' });
      expect(quote.response.status).toBe(200);
      expect(missing.response.status).toBe(404);

      // The filter on the screen is the filter of the file.
      await page.fill('input[name="status"]', '4xx');
      await page.locator('[data-testid="requests"] tbody tr[data-request]').nth(1).waitFor({ state: 'detached' });
      const filtered = await downloadHar(page);
      expect(filtered.har.log.entries.map((e: any) => e.response.status)).toEqual([404]);
    } finally {
      await close();
    }
  }, 60_000);

  it('sends the admin token when the sandbox has one', async () => {
    const TOKEN = 'har-browser-token';
    const { s, page, close } = await open({ adminToken: TOKEN });
    try {
      expect((await s.signed('GET', '/v1/networks')).status).toBe(200);
      await page.goto(`${s.url}/sandbox/dashboard#/requests`);
      await page.fill('input[name="admin-token"]', TOKEN);
      await page.click('button[type="submit"]');
      await page.locator('[data-testid="requests"] tbody tr[data-request]').first().waitFor();

      const { name, har } = await downloadHar(page);
      expect(name).toBe('ramp-sandbox-requests.har');
      expect(harErrors(har)).toEqual([]);
      expect(har.log.entries.map((e: any) => [e.request.method, e.request.url, e.response.status])).toEqual([
        ['GET', `${s.url}/v1/networks`, 200],
      ]);
      // The token travelled as a header, never in a URL.
      expect(page.url()).not.toContain(TOKEN);
    } finally {
      await close();
    }
  }, 60_000);
});
