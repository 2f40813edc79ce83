import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uiDirCandidates } from '../../src/dashboard/assets';
import { packagePath } from '../../src/shared/package-root';
import { createOrder, legs } from '../support/orders';
import { startReceiver, type Receiver } from '../support/receiver';
import { startTestServer, type TestServer } from '../support/server';

/** Reads server-sent events from a fetch() response until `until` says stop (or `ms` pass). */
async function readEvents(res: Response, until: (events: Array<{ event: string; data: any }>) => boolean, ms = 3000) {
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  const events: Array<{ event: string; data: any }> = [];
  let buffer = '';
  const deadline = Date.now() + ms;
  while (!until(events) && Date.now() < deadline) {
    const chunk = await Promise.race([reader.read(), new Promise<null>((r) => setTimeout(() => r(null), deadline - Date.now()))]);
    if (!chunk || chunk.done) break;
    buffer += decoder.decode(chunk.value, { stream: true });
    let end: number;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const event = /^event: (.*)$/m.exec(block)?.[1];
      const data = /^data: (.*)$/m.exec(block)?.[1];
      if (event && data) events.push({ event, data: JSON.parse(data) });
    }
  }
  await reader.cancel();
  return events;
}

describe('dashboard page and assets (CONTRACT §15)', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer({ adminToken: 'tok' });
  });
  afterAll(() => s.close());

  it('serves the page and its assets without the admin token, and nothing else', async () => {
    const page = await s.request('GET', '/sandbox/dashboard');
    expect(page.status).toBe(200);
    expect(page.text).toContain('<script type="importmap">');
    expect(page.text).not.toMatch(/https?:\/\//); // every asset local: no CDN
    for (const name of ['app.js', 'style.css', 'preact.js', 'preact-hooks.js', 'htm.js']) {
      const res = await s.request('GET', `/sandbox/dashboard/assets/${name}`);
      expect(res.status, name).toBe(200);
      expect(res.headers.get('content-type')).toMatch(name.endsWith('.css') ? /text\/css/ : /text\/javascript/);
    }
    expect((await s.request('GET', '/sandbox/dashboard/assets/nothing.js')).status).toBe(404);
    expect((await s.request('GET', '/sandbox/orders')).status).toBe(401);
    expect((await s.request('GET', '/sandbox/events')).status).toBe(401);
    // the token is never taken from a URL
    expect((await s.request('GET', '/sandbox/clock?token=tok')).status).toBe(401);
    expect((await s.request('GET', '/sandbox/dashboard?token=tok')).text).not.toContain('tok');
  });

  it('serves the UI of the code it runs: the source tree’s from source, even beside a built dist/', async () => {
    const served = await s.request('GET', '/sandbox/dashboard/assets/order-detail.js');
    expect(served.text).toBe(readFileSync(packagePath('src/dashboard/ui/order-detail.js'), 'utf8'));
    expect(uiDirCandidates('file:///p/src/dashboard/assets.ts')).toEqual([
      packagePath('src/dashboard/ui'),
      packagePath('dist/dashboard/ui'),
    ]);
    expect(uiDirCandidates('file:///p/dist/index.js')).toEqual([packagePath('dist/dashboard/ui'), packagePath('src/dashboard/ui')]);
    expect(uiDirCandidates('file:///p/dist/cli/bin.js')[0]).toBe(packagePath('dist/dashboard/ui'));
  });

  it('redirects / to the dashboard', async () => {
    const res = await fetch(`${s.url}/`, { redirect: 'manual' });
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe('/sandbox/dashboard');
  });
});

describe('order controls for the dashboard (CONTRACT §4, §15)', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer();
  });
  afterAll(() => s.close());

  it('creates an order of each type for a partner, filling in customer and recipient', async () => {
    for (const type of ['onramp', 'offramp', 'swap'] as const) {
      const res = await s.control('POST', '/sandbox/orders', { client_id: s.demo.clientId, ...legs[type] });
      expect(res.status, res.text).toBe(200);
      expect(res.body.data).toMatchObject({ type, status: 'awaiting_user_payment' });
    }
    const live = await s.control('POST', '/sandbox/orders', {
      client_id: s.demo.clientId,
      environment: 'live',
      from: { currency: 'NGN', amount: 50_000 },
      to: { currency: 'USDT', network: 'tron' },
    });
    expect(live.status, live.text).toBe(200);
    expect((await s.control('POST', '/sandbox/orders', { client_id: 'ptr_nobody', ...legs.swap })).status).toBe(404);
    const bad = await s.control('POST', '/sandbox/orders', {
      client_id: s.demo.clientId,
      from: { currency: 'NGN', amount: 1 },
      to: { currency: 'USDT', network: 'nowhere' },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toMatch(/to.network: unknown network/);
  });

  it('lists orders across partners, filtered by partner, environment, status and type', async () => {
    const other = await s.createPartner({ name: 'Other' });
    const mine = await createOrder(s, 'offramp');
    const liveSwap = { from: { currency: 'USDC', network: 'base', amount: 100 }, to: { currency: 'ETH', network: 'base' } };
    const theirs = await createOrder(s, 'swap', liveSwap, { as: other, env: 'live' });
    const all = await s.control('GET', '/sandbox/orders?per_page=500');
    expect(all.body.data[0]).toMatchObject({ reference: theirs.reference, client_id: other.clientId, environment: 'live' });
    const refs = async (q: string) => (await s.control('GET', `/sandbox/orders?${q}`)).body.data.map((o: any) => o.reference);
    expect(await refs(`client_id=${other.clientId}`)).toEqual([theirs.reference]);
    expect(await refs('environment=live')).toContain(theirs.reference);
    expect(await refs('environment=live')).not.toContain(mine.reference);
    expect(await refs('type=offramp')).toContain(mine.reference);
    expect(await refs('type=offramp')).not.toContain(theirs.reference);
    expect(await refs('status=completed')).toEqual([]);
    expect((await s.control('GET', '/sandbox/orders?type=bank')).status).toBe(422);
  });

  it('shows the lifecycle of the order type from the machine, the path taken and the steps allowed now', async () => {
    const swap = await createOrder(s, 'swap');
    const res = await s.control('GET', `/sandbox/orders/${swap.reference}/lifecycle`);
    expect(res.status).toBe(200);
    const { graph, path, actions } = res.body.data;
    const states = graph.states.map((st: any) => st.id);
    expect(states).toContain('executing');
    expect(states).not.toContain('awaiting_lp_payment'); // a swap never waits for an LP
    expect(graph.states.find((st: any) => st.id === 'completed').final).toBe(true);
    expect(graph.edges).toContainEqual(expect.objectContaining({ from: 'awaiting_user_payment', to: 'expired' }));
    expect(path).toEqual(['initiated', 'awaiting_user_payment']);
    expect(actions).toEqual({ payin: true, payin_unconfirmed: true, fulfil: false, cancel: true, expire: true, payout: true });

    await s.control('POST', `/sandbox/orders/${swap.reference}/payin`, { confirmed: false });
    const pending = (await s.control('GET', `/sandbox/orders/${swap.reference}/lifecycle`)).body.data;
    expect(pending.status).toBe('pending');
    expect(pending.actions).toMatchObject({ fulfil: true, cancel: false, expire: false });
  });

  it('fulfils a pending pay-in and cancels an unpaid order on the partner’s behalf', async () => {
    for (const type of ['onramp', 'offramp'] as const) {
      const o = await createOrder(s, type);
      expect((await s.control('POST', `/sandbox/orders/${o.reference}/fulfil`, {})).status).toBe(400);
      await s.control('POST', `/sandbox/orders/${o.reference}/payin`, { confirmed: false });
      const done = await s.control('POST', `/sandbox/orders/${o.reference}/fulfil`, {});
      expect(done.status, done.text).toBe(200);
      expect(done.body.data.status).toBe('processing');
    }
    const o = await createOrder(s, 'onramp');
    const cancelled = await s.control('POST', `/sandbox/orders/${o.reference}/cancel`, { reason: 'changed my mind' });
    expect(cancelled.body.data.status).toBe('cancelled');
    const again = await s.control('POST', `/sandbox/orders/${o.reference}/cancel`, {});
    expect(again.status).toBe(400);
    expect(again.body.message).toMatch(/already cancelled/);
  });
});

describe('GET /sandbox/events (CONTRACT §15)', () => {
  it('pushes order, request and clock changes, coalesced, and ends when the server closes', async () => {
    const s = await startTestServer({ adminToken: 'tok' });
    const res = await fetch(`${s.url}/sandbox/events`, { headers: { authorization: 'Bearer tok' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    (await s.openapi()).check('GET', '/sandbox/events', res.status, res.headers.get('content-type'), '');
    const order = await createOrder(s, 'onramp');
    await Promise.all(Array.from({ length: 20 }, () => s.pub('GET', '/v1/networks')));
    await s.control('POST', '/sandbox/clock/advance', { duration: '1m' }, { authorization: 'Bearer tok' });
    const requestsSeen = (e: Array<{ event: string; data: any }>) =>
      e.filter((x) => x.event === 'request').reduce((n, x) => n + x.data.count, 0);
    const events = await readEvents(
      res,
      (e) => e.some((x) => x.event === 'order') && e.filter((x) => x.event === 'clock').length >= 2 && requestsSeen(e) >= 21,
      10_000,
    );
    expect(events[0]!.event).toBe('clock');
    expect(events.find((e) => e.event === 'order')!.data.references).toContain(order.reference);
    const requests = events.filter((e) => e.event === 'request');
    expect(requestsSeen(events)).toBeGreaterThanOrEqual(21);
    expect(requests.length).toBeLessThan(12); // 20 requests at once and a few more: coalesced into fewer messages
    expect(events.filter((e) => e.event === 'clock').at(-1)!.data.now_ms).toBe(s.sandbox.clock.now());

    // An open stream does not hold the server open: closing ends it.
    const again = await fetch(`${s.url}/sandbox/events`, { headers: { authorization: 'Bearer tok' } });
    const ended = again.text().then(
      () => 'ended',
      () => 'ended',
    );
    await s.close();
    await expect(ended).resolves.toBe('ended');
  });
});

describe('what the dashboard reads, round two (issue 20, CONTRACT §15)', () => {
  let s: TestServer;
  let receiver: Receiver;
  beforeAll(async () => {
    receiver = await startReceiver();
    s = await startTestServer();
  });
  afterAll(async () => {
    await s.close();
    await receiver.close();
  });

  it('gives the page its vocabularies and the demo partner in the HTML, and a favicon', async () => {
    const page = await s.request('GET', '/sandbox/dashboard');
    const boot = JSON.parse(/<script type="application\/json" id="bootstrap">(.*?)<\/script>/.exec(page.text)![1]!);
    expect(boot.demo_client_id).toBe(s.demo.clientId);
    expect(boot.vocabulary.statuses).toContain('awaiting_user_payment');
    expect(boot.vocabulary.events).toContain('order.created');
    expect(boot.vocabulary).toMatchObject({
      types: ['onramp', 'offramp', 'swap'],
      environments: ['test', 'live'],
      kyb: ['approved', 'pending', 'rejected'],
    });
    expect(page.text).toContain('rel="icon" href="/sandbox/dashboard/assets/favicon.svg"');
    const icon = await s.request('GET', '/sandbox/dashboard/assets/favicon.svg');
    expect(icon.status).toBe(200);
    expect(icon.headers.get('content-type')).toMatch(/^image\/svg\+xml/);
    const readme = await s.request('GET', '/sandbox/dashboard/assets/README.md');
    expect(readme.status).toBe(200);
    expect(readme.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(readme.text).toContain('ramp-sandbox');
  });

  it("gives the page every order type's lifecycle graph, with the sandbox's timings (the readiness coverage, CONTRACT §21)", async () => {
    // Timings of its own, so a graph made with the defaults would differ from the lifecycle route's.
    const own = await startTestServer({ lifecycleDelays: { processing: 45_000 } });
    try {
      const page = await own.request('GET', '/sandbox/dashboard');
      const boot = JSON.parse(/<script type="application\/json" id="bootstrap">(.*?)<\/script>/.exec(page.text)![1]!);
      expect(Object.keys(boot.lifecycles)).toEqual(['onramp', 'offramp', 'swap']);
      for (const type of ['onramp', 'offramp', 'swap'] as const) {
        const order = await createOrder(own, type);
        const lifecycle = (await own.control('GET', `/sandbox/orders/${order.reference}/lifecycle`)).body.data;
        expect(boot.lifecycles[type], type).toEqual(lifecycle.graph);
      }
      expect(JSON.stringify(boot.lifecycles.onramp)).toContain('45 s');
    } finally {
      await own.close();
    }
  });

  it('serves assets with no-cache and an ETag, and a 304 when it still matches', async () => {
    const first = await s.request('GET', '/sandbox/dashboard/assets/app.js');
    expect(first.headers.get('cache-control')).toBe('no-cache');
    const etag = first.headers.get('etag')!;
    expect(etag).toMatch(/^"[\w-]+"$/);
    // As a browser revalidates (fetch() alone would add cache-control: no-cache, which forces a 200).
    const again = await s.request('GET', '/sandbox/dashboard/assets/app.js', {
      headers: { 'if-none-match': etag, 'cache-control': 'max-age=0' },
    });
    expect(again.status).toBe(304);
    expect(again.text).toBe('');
    const changed = await s.request('GET', '/sandbox/dashboard/assets/app.js', { headers: { 'if-none-match': '"other"' } });
    expect(changed.status).toBe(200);
    expect((await s.request('GET', '/sandbox/dashboard/assets/..%2Fpackage.json')).status).toBe(422);
  });

  it('reveals a partner’s keys in full on demand, and 404 for an unknown partner', async () => {
    const res = await s.control('GET', `/sandbox/partners/${s.demo.clientId}/keys`);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ client_id: s.demo.clientId, keys: { test: s.demo.keys.test, live: s.demo.keys.live } });
    const missing = await s.control('GET', '/sandbox/partners/ptr_nobody/keys');
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ status: false, code: 'E_NOTFOUND' });
  });

  it('pages the requests with a total, and finds one by id or by text in its path or bodies', async () => {
    await s.control('DELETE', '/sandbox/requests');
    const order = await createOrder(s, 'onramp');
    for (let i = 0; i < 7; i++) await s.pub('GET', '/v1/networks');
    const page = await s.control('GET', '/sandbox/requests?per_page=3&page=2');
    expect(page.status).toBe(200);
    expect(page.body.meta).toEqual({ total: 8, per_page: 3, current_page: 2, last_page: 3 });
    expect(page.body.data).toHaveLength(3);
    const all = (await s.control('GET', '/sandbox/requests?per_page=100')).body.data;
    expect(page.body.data.map((r: any) => r.id)).toEqual(all.slice(3, 6).map((r: any) => r.id));
    // limit is still the page size
    expect((await s.control('GET', '/sandbox/requests?limit=2')).body.data).toHaveLength(2);
    const byId = await s.control('GET', `/sandbox/requests?q=${all[4].id}`);
    expect(byId.body.data.map((r: any) => r.id)).toEqual([all[4].id]);
    const byOrder = await s.control('GET', `/sandbox/requests?q=${order.reference.toLowerCase()}`);
    expect(byOrder.body.meta.total).toBe(1);
    expect(byOrder.body.data[0].path).toBe('/v1/orders');
    for (const bad of ['page=0', 'per_page=1001', 'per_page=x', `q=${'x'.repeat(201)}`]) {
      const res = await s.control('GET', `/sandbox/requests?${bad}`);
      expect(res.status, bad).toBe(422);
      expect(res.body).toMatchObject({ status: false, code: 'E_VALIDATION_ERROR' });
    }
  });

  it('finds deliveries by id or order reference, with the total', async () => {
    const order = await createOrder(s, 'offramp');
    const sent = [];
    for (let i = 0; i < 3; i++) {
      const res = await s.control('POST', '/sandbox/webhooks/send', {
        client_id: s.demo.clientId,
        event: 'order.created',
        order: order.reference,
        url: receiver.url,
      });
      expect(res.status, res.text).toBe(200);
      sent.push(res.body.data.id);
    }
    const byOrder = await s.control('GET', `/sandbox/webhooks/deliveries?q=${order.reference}&per_page=2`);
    expect(byOrder.body.meta).toMatchObject({ total: 3, last_page: 2 });
    const byId = await s.control('GET', `/sandbox/webhooks/deliveries?q=${sent[1]}`);
    expect(byId.body.data.map((d: any) => d.id)).toEqual([sent[1]]);
    expect((await s.control('GET', `/sandbox/webhooks/deliveries?q=${'x'.repeat(201)}`)).status).toBe(422);
  });

  it('ends open event streams at once on a graceful stop, and opens none after', async () => {
    const t = await startTestServer();
    const res = await fetch(`${t.url}/sandbox/events`);
    const ended = res.text();
    const started = Date.now();
    const report = await t.shutdown();
    await ended;
    expect(report.requestsCut).toBe(0);
    expect(Date.now() - started).toBeLessThan(2_000);
  });
});
