/**
 * A partner's readiness screen (CONTRACT §21, §15) in Chromium: a run opened over the control API,
 * signed /v1 traffic, the screen reached from the partner's page; its checks, an evidence link to
 * the request page, the coverage on the lifecycle diagram, the report following traffic while the
 * run is open, and Finish → the verdict. Set up as the other dashboard tests are
 * (test/support/dashboard.ts); screens are saved under screenshots/ (ignored by git). Every wait
 * is for a condition on the page, never a time.
 */
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDashboard, SHOTS, type Dashboard } from '../support/dashboard';
import { createOrder } from '../support/orders';
import type { TestServer } from '../support/server';

const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: Array<{ target: string[] }>;
}

describe('the readiness screen of a partner (CONTRACT §21)', () => {
  let dashboard: Dashboard | undefined;
  let s: TestServer;
  let page: Page;
  let pageErrors: string[];

  beforeAll(async () => {
    dashboard = await openDashboard({ viewport: { width: 1440, height: 900 } });
    ({ s, page, pageErrors } = dashboard);
    // The partner's receiver acknowledges: its orders' events count as acknowledged.
    dashboard.receiver.behave(() => 'ok');
    const patched = await s.control('PATCH', `/sandbox/partners/${s.demo.clientId}`, { webhook_url: dashboard.receiver.url });
    expect(patched.status, patched.text).toBe(200);
  }, 60_000);

  afterAll(async () => {
    await dashboard?.close();
  });

  it('shows the checks, links evidence to the request page, draws coverage, follows traffic, and finishes with a verdict', async () => {
    const opened = await s.control('POST', '/sandbox/readiness/runs', { client_id: s.demo.clientId, probes: false });
    expect(opened.status, opened.text).toBe(201);
    const runId = opened.body.data.id as string;

    // The partner's traffic: reference data, an order, a read; then a request whose signature
    // does not verify after signing had worked (`signing` fails, with that request as evidence).
    expect((await s.signed('GET', '/v1/networks')).status).toBe(200);
    expect((await s.signed('GET', '/v1/crypto-currencies')).status).toBe(200);
    const order = await createOrder(s, 'onramp');
    expect((await s.signed('GET', `/v1/orders/${order.reference}`)).status).toBe(200);
    const refused = await s.request('GET', '/v1/networks', {
      headers: {
        'svc-client-id': s.demo.clientId,
        authorization: `Bearer ${s.demo.keys.test.secret_key}`,
        'svc-timestamp': String(Date.now()),
        'svc-signature': `sha256=${'0'.repeat(64)}`,
      },
    });
    expect(refused.status).toBe(401);
    await s.sandbox.dispatcher.idle();
    const sofar = (await s.control('GET', `/sandbox/readiness/runs/${runId}`)).body.data;
    const signing = sofar.checks.find((c: { id: string }) => c.id === 'signing');
    expect(signing.status).toBe('fail');
    const evidence = signing.evidence.find((e: { request_id?: string }) => e.request_id)?.request_id as string;
    expect(evidence).toMatch(/^req_/);

    // From the partner's page to its readiness screen.
    await dashboard!.open(`#/partners/${s.demo.clientId}`);
    await page.locator('[data-testid="readiness-summary"] [data-testid="verdict"][data-verdict="not_ready"]').waitFor();
    await dashboard!.shot('29-partner-readiness');
    // Every partner of the list links to its readiness too.
    await page.locator(`[data-testid="partners"] a[href="#/readiness/${s.demo.clientId}"]`).waitFor();
    await page.locator('[data-testid="readiness-link"]').click();
    await page.locator(`[data-testid="readiness"][data-client="${s.demo.clientId}"] [data-testid="report"][data-run="${runId}"]`).waitFor();
    expect(await page.locator('main h1').innerText()).toBe('Readiness of Demo Partner');
    expect(await page.title()).toContain('Readiness');
    // The top bar marks Partners: a partner's readiness is under it.
    expect(await page.locator('nav a[aria-current="page"]').getAttribute('href')).toBe('#/partners');

    // Every check of the report, each with status, clause, title and fix; client and receiver apart.
    const rows = page.locator('tr.check-row');
    expect(await rows.count()).toBe(sofar.checks.length);
    for (const c of sofar.checks as Array<{ id: string; side: string; status: string; clause: string; title: string; fix: string }>) {
      const row = page.locator(`[data-testid="checks-${c.side}"] tr[data-check="${c.id}"]`);
      expect(await row.getAttribute('data-status'), c.id).toBe(c.status);
      const text = await row.innerText();
      for (const part of [c.clause, c.title, c.fix, c.status.replace('_', ' ')]) expect(text, c.id).toContain(part);
    }
    await page.locator('[data-testid="report"] [data-testid="verdict"][data-verdict="not_ready"]').waitFor();
    expect(await page.locator('[data-testid="verdict-why"]').innerText()).toContain('signing');

    // Coverage on the onramp diagram: the statuses reached highlighted, the rest dimmed, as the report says.
    const coverage = sofar.coverage.statuses.onramp as { reached: string[]; reachable: string[] };
    expect(coverage.reached.length).toBeGreaterThan(0);
    const diagram = page.locator('[data-testid="coverage"][data-type="onramp"] svg[data-testid="coverage-diagram"]');
    await diagram.waitFor();
    for (const status of coverage.reachable) {
      const node = diagram.locator(`g.node[data-status="${status}"]`);
      expect(await node.getAttribute('class'), status).toMatch(coverage.reached.includes(status) ? /\breached\b/ : /\bdim\b/);
    }
    expect(await diagram.getAttribute('aria-label')).toBe(
      `Coverage of onramp orders: ${coverage.reached.length} of ${coverage.reachable.length} statuses reached`,
    );
    await dashboard!.shot('30-readiness-open');

    // The evidence of `signing` opens the request page of the refused request.
    await page.locator(`tr[data-check="signing"] a[href="#/requests/${evidence}"]`).click();
    await page.locator(`[data-testid="request"][data-request="${evidence}"] h1`).waitFor();
    expect(await page.locator('[data-testid="request"] .code').innerText()).toBe('401');
    await page.goBack();
    await page.locator(`[data-testid="report"][data-run="${runId}"]`).waitFor();

    // While the run is open, the report follows the partner's traffic.
    const counted = sofar.counted.requests as number;
    await page.locator('[data-testid="counts"]', { hasText: `counted ${counted} requests` }).waitFor();
    expect((await s.signed('GET', '/v1/networks')).status).toBe(200);
    await page.locator('[data-testid="counts"]', { hasText: `counted ${counted + 1} requests` }).waitFor();

    // Finish: the final verdict, the run marked ended in the list, focus kept in the report.
    await page.locator('[data-action="finish-run"]').click();
    await page
      .locator(`[data-testid="report"][data-run="${runId}"][data-open="false"] [data-testid="verdict"][data-verdict="not_ready"]`)
      .waitFor();
    await page.locator('[data-testid="action-result"]', { hasText: `Finished ${runId}: not ready` }).waitFor();
    await page.locator(`[data-testid="runs"] tr[data-run="${runId}"] td[data-label="Ended"] time`, { hasText: 'finished' }).waitFor();
    expect(await page.locator('[data-action="finish-run"]').count()).toBe(0);
    expect(await page.evaluate<boolean>(`document.getElementById('readiness-report')?.contains(document.activeElement) ?? false`)).toBe(
      true,
    );
    const final = (await s.control('GET', `/sandbox/readiness/runs/${runId}`)).body.data;
    expect(final).toMatchObject({ verdict: 'not_ready', finished_at: expect.any(String) });
    await dashboard!.shot('31-readiness-finished');
    expect(pageErrors).toEqual([]);
  }, 90_000);

  it('opens a run from the page (receiver only, with probes) and shows it as the newest, open and incomplete', async () => {
    await dashboard!.open(`#/readiness/${s.demo.clientId}`);
    await page.locator('[data-testid="runs"] tr[data-run]').first().waitFor();
    const before = await page.locator('[data-testid="runs"] tr[data-run]').count();
    await page.locator('select[name="environment"]').selectOption('test');
    await page.locator('select[name="scope"]').selectOption('receiver');
    expect(await page.getByRole('checkbox', { name: /Probes/ }).isChecked()).toBe(true);
    await page.locator('[data-action="open-run"]').click();
    await page.locator('[data-testid="open-result"]', { hasText: /^Opened rdy_\d+: .+'s test traffic counts from now on$/ }).waitFor();
    const runs = (await s.control('GET', `/sandbox/readiness/runs?client_id=${s.demo.clientId}`)).body.data as Array<{
      id: string;
      finished_at?: string;
      scope: string;
      probes: unknown[];
    }>;
    expect(runs).toHaveLength(before + 1);
    const newest = runs[0]!;
    expect(newest).toMatchObject({ scope: 'receiver', probes: expect.any(Array) });
    expect(newest.probes.length).toBeGreaterThan(0);
    expect(newest.finished_at).toBeUndefined();
    await page.locator('[data-testid="report"] .pill', { hasText: 'receiver only' }).waitFor();
    await page
      .locator(`[data-testid="report"][data-run="${newest.id}"][data-open="true"] [data-testid="verdict"][data-verdict="incomplete"]`)
      .waitFor();
    expect(page.url()).toContain(`#/readiness/${s.demo.clientId}?run=${newest.id}`);
    await page.locator('[data-testid="runs"] tr.selected a', { hasText: newest.id }).waitFor();
    // Its probes are listed (a receiver-only run's are the adversarial deliveries); none has happened without traffic.
    await page.locator('[data-testid="probes"] tr[data-probe="bad_signature"] .status', { hasText: 'planned' }).waitFor();
    expect(await page.locator('[data-testid="probes"] tr[data-probe="lost_response"]').count()).toBe(0);
    await page.locator('[data-testid="coverage-empty"]').waitFor();
    await dashboard!.shot('32-readiness-new-run');
    await s.control('POST', `/sandbox/readiness/runs/${newest.id}/finish`);
  }, 60_000);

  it('has no serious or critical axe-core violation, at 1440 and 390 px, and fits 390 px', async () => {
    const found: string[] = [];
    const run = (await s.control('GET', `/sandbox/readiness/runs?client_id=${s.demo.clientId}`)).body.data.at(-1).id as string;
    for (const width of [1440, 390]) {
      await page.setViewportSize({ width, height: 900 });
      await dashboard!.open(`#/readiness/${s.demo.clientId}?run=${run}`);
      await page.locator(`[data-testid="report"][data-run="${run}"]`).waitFor();
      await page.locator('[data-testid="coverage-diagram"]').first().waitFor();
      await page.addScriptTag({ path: AXE });
      const violations = await page.evaluate<AxeViolation[]>(
        `axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations)`,
      );
      for (const v of violations.filter((x) => x.impact === 'serious' || x.impact === 'critical')) {
        found.push(
          `${width}px: ${v.impact} ${v.id} (${v.help}) at ${v.nodes
            .slice(0, 3)
            .map((n) => n.target.join(' '))
            .join(', ')}`,
        );
      }
      if (width === 390) {
        expect(await page.evaluate<boolean>('document.documentElement.scrollWidth <= window.innerWidth')).toBe(true);
        await page.screenshot({ path: join(SHOTS, '33-readiness-390.png') });
        await page.locator('#readiness-coverage').scrollIntoViewIfNeeded();
        await page.screenshot({ path: join(SHOTS, '34-readiness-390-coverage.png') });
      }
    }
    await page.setViewportSize({ width: 1440, height: 900 });
    expect(found).toEqual([]);
  }, 60_000);
});
