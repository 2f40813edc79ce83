/**
 * The dashboard, round two (issue 20), in Chromium: a first visit's signed curl run in a shell,
 * the 150th delivery and a delivery reached from an order's timeline, the main flow by keyboard
 * alone, axe-core on every screen, the page at 390 px, and SIGTERM with a tab open. Set up as
 * dashboard.test.ts is (test/support/dashboard.ts); screens are saved under screenshots/ (ignored
 * by git) as there.
 */
import { execFile, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchPersistentChromium } from '../support/browser';
import { openDashboard, SHOTS, type Dashboard } from '../support/dashboard';
import { createOrder } from '../support/orders';
import type { Receiver } from '../support/receiver';
import type { TestServer } from '../support/server';
import { spawnTs } from '../support/spawn';

const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');
const SERVE = new URL('../../src/cli/serve.ts', import.meta.url).pathname;

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: Array<{ target: string[] }>;
}

describe('dashboard, round two (issue 20)', () => {
  let dashboard: Dashboard | undefined;
  let s: TestServer;
  let receiver: Receiver;
  let page: Page;
  let pageErrors: string[];
  const orderStatus = (status: string) => dashboard!.orderStatus(status);
  const shot = (name: string) => dashboard!.shot(name);
  const open = (hash: string) => dashboard!.open(hash);
  /** Presses Tab (or Shift+Tab) until the focused element matches `selector`; the presses taken. */
  const tabTo = async (selector: string, { back = false, max = 120 } = {}) => {
    for (let presses = 0; presses <= max; presses++) {
      // Page expressions are strings: the test program has no DOM types (tsconfig), the page has the DOM.
      if (await page.evaluate<boolean>(`document.activeElement?.matches(${JSON.stringify(selector)}) ?? false`)) return presses;
      await page.keyboard.press(back ? 'Shift+Tab' : 'Tab');
    }
    throw new Error(`${max} presses of ${back ? 'Shift+Tab' : 'Tab'} never reached ${selector}`);
  };
  /** The focused element as `tag[data-action=…]#id`. */
  const focused = () =>
    page.evaluate<string>(`(() => {
      const el = document.activeElement;
      if (!el) return 'none';
      const action = el.getAttribute('data-action');
      return el.tagName.toLowerCase() + (action ? '[data-action=' + action + ']' : '') + (el.id ? '#' + el.id : '');
    })()`);

  beforeAll(async () => {
    dashboard = await openDashboard({ viewport: { width: 1440, height: 900 }, permissions: ['clipboard-read', 'clipboard-write'] });
    ({ s, receiver, page, pageErrors } = dashboard);
  }, 60_000);

  afterAll(async () => {
    await dashboard?.close();
  });

  it('greets a first visit with Get started, whose signed curl answers 200 when pasted into a shell', async () => {
    await open('#/orders');
    const start = page.locator('#get-started');
    await start.waitFor();
    await page.locator('[data-testid="empty"]', { hasText: 'No orders yet' }).waitFor();
    expect(await start.innerText()).toContain(s.demo.clientId);
    expect(await start.innerText()).toContain(s.url);

    await start.locator('[data-action="reveal-keys"]').click();
    await start.locator('[data-testid="demo-keys"]', { hasText: s.demo.keys.test.secret_key }).waitFor();
    await start.locator('[data-action="make-curl"]').click();
    await start.locator('[data-testid="curl"]').waitFor();
    await start.locator('button[aria-label="Copy the signed curl"]').click();
    await start.locator('button[aria-label="Copy the signed curl"]', { hasText: 'Copied' }).waitFor();
    const copied = await page.evaluate<string>('navigator.clipboard.readText()');
    expect(copied).toBe(await start.locator('[data-testid="curl"]').innerText());
    const { stdout } = await new Promise<{ stdout: string }>((resolve, reject) =>
      execFile('sh', ['-c', copied], { timeout: 15_000 }, (error, out, err) =>
        error ? reject(new Error(`${error.message}\n${err}`)) : resolve({ stdout: out }),
      ),
    );
    expect(stdout).toMatch(/^HTTP\/1\.1 200/);
    expect(stdout).toContain('"status":true');
    expect(await s.sandbox.requests.list({ q: '/v1/orders' })[0]).toMatchObject({
      status: 200,
      auth: 'secret',
      client_id: s.demo.clientId,
    });

    // The demo partner has no webhook URL: the panel asks for one, and then says where they go.
    await start.locator('input[name="start_webhook_url"]').fill(receiver.url);
    await start.locator('form.webhook-url button[type="submit"]').click();
    await start.locator('text=Webhooks go to').waitFor();
    expect(s.sandbox.demoPartner.webhook_url).toBe(receiver.url);
    await shot('20-get-started');
  }, 60_000);

  it('reaches the 150th delivery through the pager (kept in the URL), by search, and from an order’s timeline', async () => {
    const order = await createOrder(s, 'onramp');
    for (let i = 0; i < 160; i++) {
      const res = await s.control('POST', '/sandbox/webhooks/send', {
        client_id: s.demo.clientId,
        event: 'order.created',
        data: { reference: `ORDBULK${i}` },
      });
      expect(res.status, res.text).toBe(200);
    }
    const all = (await s.control('GET', '/sandbox/webhooks/deliveries?per_page=500')).body.data as Array<{ id: string }>;
    const target = all[149]!.id;

    await open('#/deliveries');
    await page.locator('[data-testid="pager-range"]', { hasText: `of ${all.length}` }).waitFor();
    await page.locator('[data-action="page-older"]').click();
    await page.locator('[data-testid="pager-range"]', { hasText: `51–100 of ${all.length}` }).waitFor();
    await page.locator('[data-action="page-older"]').click();
    await page.locator('[data-testid="pager-range"]', { hasText: `101–150 of ${all.length}` }).waitFor();
    expect(page.url()).toMatch(/#\/deliveries\?page=3$/);
    // The page survives a reload.
    await page.reload();
    await page.locator('[data-testid="pager-range"]', { hasText: `101–150 of ${all.length}` }).waitFor();
    await page.locator(`[data-testid="deliveries"] tr[data-delivery="${target}"]`).waitFor();
    expect(await page.locator('[data-testid="deliveries"] tr.delivery').nth(49).getAttribute('data-delivery')).toBe(target);

    // Found by its id, and opened from the list.
    await page.fill('input[name="q"]', target);
    await page.locator('[data-testid="pager-range"]', { hasText: '1–1 of 1' }).waitFor();
    expect(page.url()).toContain(`q=${target}`);
    await page.locator(`[data-testid="deliveries"] a:has-text("${target}")`).click();
    await page.locator(`[data-testid="delivery"][data-delivery="${target}"] h1`).waitFor();
    await shot('21-delivery');

    // An order's timeline links to its own delivery.
    await open(`#/orders/${order.reference}`);
    const first = page.locator('[data-testid="timeline"] a[href^="#/deliveries/dlv_"]').first();
    const id = (await first.innerText()).trim();
    await first.click();
    await page.locator(`[data-testid="delivery"][data-delivery="${id}"] dl.kv`).waitFor();
    expect(await page.locator('[data-testid="delivery"]').innerText()).toContain(order.reference);
    expect(await page.title()).toContain(id);
  }, 90_000);

  it('finds requests by id and pages them with the total, kept in the URL', async () => {
    const all = (await s.control('GET', '/sandbox/requests?per_page=1000')).body;
    const one = all.data[0].id as string;
    await open(`#/requests?q=${one}`);
    await page.locator('[data-testid="requests"] tr.req').first().waitFor();
    expect(await page.locator('[data-testid="requests"] tr.req').count()).toBe(1);
    await page.locator(`[data-testid="requests"] a:has-text("${one}")`).click();
    await page.locator(`[data-testid="request"][data-request="${one}"] h1`).waitFor();
    await page.goBack();
    // Back on the list, as the URL has it (goBack resolves before the page has re-rendered the
    // list: typing earlier would be overwritten by the search the URL holds).
    await page.locator(`[data-testid="requests"] a:has-text("${one}")`).waitFor();
    await page.waitForFunction(`document.querySelector('input[name="q"]')?.value === ${JSON.stringify(one)}`);
    await page.fill('input[name="q"]', 'nothing-matches-this');
    await page.locator('[data-testid="empty"]', { hasText: 'nothing-matches-this' }).waitFor();
    await page.click('[data-action="clear-filters"]');
    await page.locator('[data-testid="pager-range"]', { hasText: `of ${all.meta.total}` }).waitFor();
  }, 60_000);

  it('does the main flow by keyboard alone: create an order, pay it in, advance to completed, retry its delivery', async () => {
    receiver.behave(() => '500');
    await s.control('PATCH', `/sandbox/partners/${s.demo.clientId}`, { webhook_url: receiver.url });
    await open('#/orders');
    let presses = 0;
    presses += await tabTo('[data-action="open-new-order"]');
    await page.keyboard.press('Enter');
    await page.locator('#new-order select').first().waitFor();
    // As a keyboard user would: the button takes Enter once the partner list has come.
    await page.locator('[data-testid="partners-loading"]').waitFor({ state: 'detached' });
    presses += await tabTo('[data-action="create-order"]');
    await page.keyboard.press('Enter');
    const created = page.locator('[data-testid="created"] a');
    await created.waitFor();
    const reference = (await created.innerText()).trim();
    // Focus comes back to the button pressed.
    await page.waitForFunction(`document.activeElement?.getAttribute('data-action') === 'create-order'`);
    presses += await tabTo('[data-testid="created"] a');
    await page.keyboard.press('Enter');
    await orderStatus('awaiting_user_payment');

    presses += await tabTo('[data-action="payin-exact"]');
    await page.keyboard.press('Enter');
    await orderStatus('processing');
    await page.locator('[data-testid="announcer"]', { hasText: 'paid' }).waitFor();
    // The pay-in buttons are gone: focus goes to the Actions panel's heading, not lost on the page.
    await page.waitForFunction('document.activeElement?.id === "actions-title"');

    presses += await tabTo('[data-action="advance-30m"]', { back: true });
    await page.keyboard.press('Enter');
    await orderStatus('completed');
    await page.waitForFunction(`document.activeElement?.getAttribute('data-action') === 'advance-30m'`);

    // The order's delivery, from its timeline, retried: the page says what the attempt got.
    presses += await tabTo('[data-testid="timeline"] a[href^="#/deliveries/"]');
    await page.keyboard.press('Enter');
    await page.locator('[data-testid="delivery"] h1').waitFor();
    receiver.behave(() => 'ok');
    presses += await tabTo('[data-testid="delivery"] [data-action="retry"]');
    await page.keyboard.press('Enter');
    await page.locator('[data-testid="action-result"]', { hasText: '→ HTTP 200' }).waitFor();
    await page.locator('[data-testid="announcer"]', { hasText: '→ HTTP 200' }).waitFor();
    expect(await page.locator('[data-testid="action-result"]').innerText()).toMatch(/attempt \d+ → HTTP 200/);
    await page.waitForFunction(`document.activeElement?.getAttribute('data-action') === 'retry'`);
    expect(await focused()).toBe('button[data-action=retry]');
    expect(reference).toMatch(/^ORD/);
    // A bound on the path, not a timing: the issue counted 103 presses for the main flow before.
    expect(presses).toBeLessThan(103);
  }, 90_000);

  it('moves focus in the render itself, not a frame later: to a new screen’s content, and into the New order form', async () => {
    // Focus moved after the next frame could land after the user's next keys on a slow machine:
    // CI once saw "Create order" pressed, and then focus taken to the form's first field. Each
    // check below reads the focus where the render's DOM changes are delivered to a
    // MutationObserver: the microtask right after the render (preact renders in a microtask, and
    // its layout effects run in that same render), before any other task, let alone a frame.
    // Not a setTimeout after the change: under load, other tasks (a fetch answered, a message)
    // run first, and whether the focus read came before or after them was luck.
    /** A page expression: resolves with `read()` at the first mutation after which `rendered()` holds. */
    const focusWhenRendered = (change: string, rendered: string, read: string) => `new Promise((resolve) => {
      const observer = new MutationObserver(() => {
        if (!(${rendered})) return;
        observer.disconnect();
        const el = document.activeElement;
        resolve(${read});
      });
      observer.observe(document.body, { subtree: true, childList: true, attributes: true });
      ${change}
    })`;
    await open('#/requests');
    const onScreenChange = await page.evaluate<string>(
      focusWhenRendered(
        `location.hash = '#/orders';`,
        // the App's render for the new route: the nav marks Orders current in it
        `document.querySelector('nav a[aria-current="page"]')?.getAttribute('href') === '#/orders'`,
        `el?.id || el?.tagName || 'none'`,
      ),
    );
    expect(onScreenChange).toBe('main');
    await page.locator('[data-action="open-new-order"]').waitFor();
    const onOpen = await page.evaluate<string>(
      focusWhenRendered(
        `const button = document.querySelector('[data-action="open-new-order"]');
        button.focus();
        button.click();`,
        // the form's render: its first field is in the document
        `document.querySelector('form select[name="partner"]') !== null`,
        `el?.getAttribute('name') || el?.tagName || 'none'`,
      ),
    );
    expect(onOpen).toBe('partner');
    // And it stays where the user takes it: no focus move is still to come. (The button takes
    // focus once the partner list has come: until then it is disabled, and focus() on it does
    // nothing. On a busy machine the list comes late: wait for it, not for time.)
    await page.locator('[data-action="create-order"]:not([disabled])').waitFor();
    await page.focus('[data-action="create-order"]');
    await page.evaluate('new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(resolve, 100))))');
    expect(await focused()).toBe('button[data-action=create-order]');
  }, 60_000);

  it('holds "Create order" until the partner list has come, then creates for the partner shown (no 422 naming client_id)', async () => {
    // The partner list held back until the test lets it through: a slow sandbox, made certain.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    await page.route('**/sandbox/partners', async (route) => {
      await held;
      // (After the test, a route already dropped by unroute is nobody's to answer.)
      await route.continue().catch(() => undefined);
    });
    const posts: string[] = [];
    const onRequest = (request: { method(): string; url(): string }) => {
      if (request.method() === 'POST' && request.url().endsWith('/sandbox/orders')) posts.push(request.url());
    };
    page.on('request', onRequest);
    try {
      await open('#/orders');
      await page.click('[data-action="open-new-order"]');
      const button = page.locator('[data-action="create-order"]');
      await page.locator('[data-testid="partners-loading"]').waitFor();
      expect(await button.isDisabled()).toBe(true);
      // Enter in a field (the form's implicit submission) sends nothing either.
      await page.locator('input[name="from_amount"]').press('Enter');
      await page
        .locator('input[name="from_amount"]')
        .evaluate('(el) => el.form.requestSubmit()')
        .catch(() => undefined);
      expect(posts).toEqual([]);
      await shot('24-create-waits-for-partners');

      release();
      await page.locator('[data-testid="partners-loading"]').waitFor({ state: 'detached' });
      // The partner it creates for is the one the select shows (it showed none: its value was '').
      expect(await page.locator('#new-order select[name="partner"]').inputValue()).toBe(s.demo.clientId);
      await button.click();
      const created = page.locator('[data-testid="created"] a');
      await created.waitFor();
      expect(posts).toHaveLength(1);
      expect(await page.locator('#new-order [role="alert"]').count()).toBe(0);
      const newest = (await s.control('GET', '/sandbox/orders?per_page=1')).body.data[0];
      expect(newest.reference).toBe((await created.innerText()).trim());
      expect(newest.client_id).toBe(s.demo.clientId);
    } finally {
      release();
      page.off('request', onRequest);
      await page.unroute('**/sandbox/partners');
    }
  }, 60_000);

  it('takes an order to a status it can reach from its page, with a reason (CONTRACT §16)', async () => {
    const order = await createOrder(s, 'offramp');
    await open(`#/orders/${order.reference}`);
    await orderStatus('awaiting_user_payment');
    const offered = await page.locator('select[name="simulate_status"] option').allInnerTexts();
    expect(offered).toContain('refunded');
    expect(offered).not.toContain('awaiting_user_payment');
    await page.selectOption('select[name="simulate_status"]', 'refunded');
    await page.fill('input[name="simulate_reason"]', 'bank rejected the account');
    await page.click('[data-action="simulate"]');
    await orderStatus('refunded');
    const result = await page.locator('[data-testid="simulate-result"]').innerText();
    expect(result).toMatch(new RegExp(`^Took ${order.reference} to refunded: awaiting_user_payment → .*failed → refunded$`));
    expect(await page.locator('[data-testid="timeline"]').innerText()).toContain('bank rejected the account');
    // A final status reaches nothing more: the control is gone.
    expect(await page.locator('select[name="simulate_status"]').count()).toBe(0);
    await shot('23-take-it-to');
  }, 60_000);

  it('has no serious or critical axe-core violation on any screen, at 1440 and 390 px', async () => {
    await s.control('POST', '/sandbox/faults', { path: '/v1/networks', error: { status: 503 } });
    await s.pub('GET', '/v1/networks');
    const order = (await s.control('GET', '/sandbox/orders?per_page=1')).body.data[0].reference;
    const delivery = (await s.control('GET', '/sandbox/webhooks/deliveries?per_page=1')).body.data[0].id;
    const request = (await s.control('GET', '/sandbox/requests?per_page=1')).body.data[0].id;
    const screens = [
      '#/orders',
      `#/orders/${order}`,
      '#/deliveries',
      `#/deliveries/${delivery}`,
      '#/requests',
      `#/requests/${request}`,
      '#/partners',
      '#/start',
    ];
    const found: string[] = [];
    for (const width of [1440, 390]) {
      await page.setViewportSize({ width, height: 900 });
      for (const hash of screens) {
        await open(hash);
        await page.locator('main h1').first().waitFor();
        await page.locator('.loading').first().waitFor({ state: 'detached' });
        await page.addScriptTag({ path: AXE });
        const violations = await page.evaluate<AxeViolation[]>(
          `axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations)`,
        );
        for (const v of violations.filter((x) => x.impact === 'serious' || x.impact === 'critical')) {
          found.push(
            `${width}px ${hash}: ${v.impact} ${v.id} (${v.help}) at ${v.nodes
              .slice(0, 3)
              .map((n) => n.target.join(' '))
              .join(', ')}`,
          );
        }
      }
    }
    await page.setViewportSize({ width: 1440, height: 900 });
    await s.control('DELETE', '/sandbox/faults');
    expect(found).toEqual([]);
  }, 120_000);

  it('fits 390 px: every tab visible, no sideways scroll, the clock bar sticky', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    try {
      for (const hash of ['#/orders', '#/deliveries', '#/requests', '#/partners']) {
        await open(hash);
        await page.locator('main h1').first().waitFor();
        const tabs = page.locator('nav[aria-label="Screens"] a');
        expect(await tabs.count()).toBe(4);
        for (let i = 0; i < 4; i++) {
          const box = (await tabs.nth(i).boundingBox())!;
          expect(await tabs.nth(i).isVisible()).toBe(true);
          expect(box.x).toBeGreaterThanOrEqual(0);
          expect(box.x + box.width).toBeLessThanOrEqual(390);
        }
        expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
      }
      await open('#/requests');
      await page.screenshot({ path: join(SHOTS, '22-narrow-390.png') });
      await page.evaluate('window.scrollTo(0, 1200)');
      await page.waitForFunction('window.scrollY > 0');
      const top = await page.evaluate<number>(`document.querySelector('[data-testid="clock"]').getBoundingClientRect().top`);
      expect(top).toBe(0);
    } finally {
      await page.setViewportSize({ width: 1440, height: 900 });
    }
    expect(pageErrors).toEqual([]);
  }, 60_000);
});

describe('stopping the sandbox with a dashboard tab open (issue 20)', () => {
  let child: ChildProcess | undefined;
  let context: BrowserContext | undefined;
  let profile: string | undefined;
  afterAll(async () => {
    await context?.close();
    child?.kill('SIGKILL');
    if (profile) await rm(profile, { recursive: true, force: true });
  });

  it('exits within 2 s of SIGTERM, and the tab then says it is not connected', async () => {
    const proc = spawnTs(SERVE, ['--port', '0', '--clock', 'manual', '--log-level', 'info'], { stdio: ['ignore', 'pipe', 'pipe'] });
    child = proc;
    const exited = new Promise<number | null>((resolve) => proc.on('exit', (code) => resolve(code)));
    const url = await new Promise<string>((resolve, reject) => {
      let out = '';
      proc.stdout!.on('data', (chunk) => {
        out += String(chunk);
        const found = /listening on (http:\S+)/.exec(out)?.[1];
        if (found) resolve(found);
      });
      proc.stderr!.on('data', (chunk) => (out += String(chunk)));
      proc.on('exit', () => reject(new Error(`the sandbox exited before listening: ${out}`)));
    });
    profile = await mkdtemp(join(tmpdir(), 'ramp-dashboard-'));
    context = await launchPersistentChromium(profile, { viewport: { width: 1280, height: 800 } });
    const tab = context.pages()[0] ?? (await context.newPage());
    await tab.goto(`${url}/sandbox/dashboard`);
    await tab.locator('[data-testid="connection"][data-state="connected"]').waitFor();

    const signalled = Date.now();
    proc.kill('SIGTERM');
    expect(await exited).toBe(0);
    // The one timed bound of these tests (issue 20): the open event stream no longer holds the stop.
    expect(Date.now() - signalled).toBeLessThan(2_000);
    await tab.locator('[data-testid="connection"]:not([data-state="connected"])').waitFor();
    expect(await tab.locator('[data-testid="connection"]').innerText()).toMatch(/reconnecting|offline/);
  }, 60_000);
});
