import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrder, legs } from '../support/orders';
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
    const live = await s.control('POST', '/sandbox/orders', { client_id: s.demo.clientId, environment: 'live', from: { currency: 'NGN', amount: 50_000 }, to: { currency: 'USDT', network: 'tron' } });
    expect(live.status, live.text).toBe(200);
    expect((await s.control('POST', '/sandbox/orders', { client_id: 'ptr_nobody', ...legs.swap })).status).toBe(404);
    const bad = await s.control('POST', '/sandbox/orders', { client_id: s.demo.clientId, from: { currency: 'NGN', amount: 1 }, to: { currency: 'USDT', network: 'nowhere' } });
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
    const requestsSeen = (e: Array<{ event: string; data: any }>) => e.filter((x) => x.event === 'request').reduce((n, x) => n + x.data.count, 0);
    const events = await readEvents(res, (e) => e.some((x) => x.event === 'order') && e.filter((x) => x.event === 'clock').length >= 2 && requestsSeen(e) >= 21, 10_000);
    expect(events[0]!.event).toBe('clock');
    expect(events.find((e) => e.event === 'order')!.data.references).toContain(order.reference);
    const requests = events.filter((e) => e.event === 'request');
    expect(requestsSeen(events)).toBeGreaterThanOrEqual(21);
    expect(requests.length).toBeLessThan(12); // 20 requests at once and a few more: coalesced into fewer messages
    expect(events.filter((e) => e.event === 'clock').at(-1)!.data.now_ms).toBe(s.sandbox.clock.now());

    // An open stream does not hold the server open: closing ends it.
    const again = await fetch(`${s.url}/sandbox/events`, { headers: { authorization: 'Bearer tok' } });
    const ended = again.text().then(() => 'ended', () => 'ended');
    await s.close();
    await expect(ended).resolves.toBe('ended');
  });
});
