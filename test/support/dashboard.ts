/**
 * The dashboard's browser tests' set-up (test/browser/dashboard*.test.ts): the sandbox in process,
 * a webhook receiver that answers 500 until told otherwise, and Chromium (./browser.ts) on a
 * profile of its own, its page's errors collected. Screens are saved under
 * test/browser/screenshots/ (ignored by git) so a person can look at what the test saw.
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import type { SandboxOverrides } from '../../src/sandbox/sandbox';
import { launchPersistentChromium } from './browser';
import { startReceiver, type Receiver } from './receiver';
import { startTestServer, type TestServer } from './server';

/** Where the browser tests save their screens. */
export const SHOTS = join(import.meta.dirname, '../browser/screenshots');

export interface DashboardOptions {
  /** The sandbox's settings (an admin token, say). */
  server?: SandboxOverrides;
  viewport: { width: number; height: number };
  /** Browser permissions granted to the sandbox's origin (the clipboard, say). */
  permissions?: string[];
}

export interface Dashboard {
  s: TestServer;
  receiver: Receiver;
  context: BrowserContext;
  page: Page;
  /** The page's errors, and its console's but for the answers the tests provoke (4xx, 5xx). */
  pageErrors: string[];
  /** Saves the whole page as screenshots/<name>.png. */
  shot(name: string): Promise<Buffer>;
  /** Waits until the order screen shows `status`. */
  orderStatus(status: string): Promise<void>;
  /** Opens the dashboard at `hash`, a new page load, and waits until its live feed is connected. */
  open(hash: string): Promise<void>;
  /** Closes the browser, the sandbox and the receiver, and removes the profile. */
  close(): Promise<void>;
}

/** The sandbox, the receiver and Chromium for one describe: call in `beforeAll`, `close` in `afterAll`. */
export async function openDashboard(options: DashboardOptions): Promise<Dashboard> {
  let s: TestServer | undefined;
  let receiver: Receiver | undefined;
  let context: BrowserContext | undefined;
  let profile: string | undefined;
  const close = async () => {
    await context?.close();
    await s?.close();
    await receiver?.close();
    if (profile) await rm(profile, { recursive: true, force: true });
  };
  try {
    await mkdir(SHOTS, { recursive: true });
    receiver = await startReceiver();
    receiver.behave(() => '500');
    s = await startTestServer(options.server);
    profile = await mkdtemp(join(tmpdir(), 'ramp-dashboard-'));
    context = await launchPersistentChromium(profile, { viewport: options.viewport });
    if (options.permissions) await context.grantPermissions(options.permissions, { origin: s.url });
    const page = context.pages()[0] ?? (await context.newPage());
    const pageErrors: string[] = [];
    page.on('pageerror', (e) => pageErrors.push(String(e)));
    page.on('console', (m) => {
      if (m.type() === 'error' && !/status of (40[014]|422|50\d)/.test(m.text())) pageErrors.push(m.text());
    });
    const url = s.url;
    return {
      s,
      receiver,
      context,
      page,
      pageErrors,
      shot: (name) => page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true }),
      // The order and its lifecycle both read, of the same status: the page then shows that status whole.
      orderStatus: (status) =>
        page.locator(`[data-testid="order"][data-status="${status}"][data-lifecycle-status="${status}"]`).waitFor({ timeout: 10_000 }),
      open: async (hash) => {
        // Always a new document: a goto that changes only the hash stays in the page, with the
        // last test's screens and their state (an open form, a focus effect still to come).
        await page.goto('about:blank');
        await page.goto(`${url}/sandbox/dashboard${hash}`);
        await page.locator('[data-testid="connection"][data-state="connected"]').waitFor();
      },
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}
