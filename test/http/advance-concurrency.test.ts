import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createOrder } from '../support/orders';
import { startReceiver } from '../support/receiver';
import { startTestServer, T0, type TestServer } from '../support/server';

// CONTRACT §9: a reset stops an advance under way; attempts due at one instant run concurrently.
const cleanup: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

async function server(timeoutMs: number): Promise<TestServer> {
  const s = await startTestServer({ webhookTimeoutMs: timeoutMs });
  cleanup.push(() => s.close());
  return s;
}

describe('reset during an advance (nothing from before the reset survives)', () => {
  it('stops the advance, keeps the clock at its start and lets no old retry fire', async () => {
    const s = await server(1_000);
    const r = await startReceiver();
    cleanup.push(() => r.close());
    // The first attempt fails, so retry 2 is due inside the advance; it hangs until the timeout.
    r.behave((_, i) => (i === 0 ? '500' : 'hang'));
    const p = await s.createPartner({ webhook_url: r.url, events: ['order.created'] });
    await createOrder(s, 'onramp', {}, { as: p });
    await s.sandbox.dispatcher.idle();

    const advancing = s.control('POST', '/sandbox/clock/advance', { duration: '28h' });
    while (r.received.length < 2) await new Promise((res) => setTimeout(res, 10)); // mid-advance: retry 2 hangs
    const reset = await s.control('POST', '/sandbox/reset');
    expect(reset.status).toBe(200);

    const advanced = await advancing;
    expect(advanced.status, advanced.text).toBe(409);
    expect(advanced.body.message).toMatch(/stopped by POST \/sandbox\/reset/);
    const clock = (await s.control('GET', '/sandbox/clock')).body.data;
    expect(clock.now).toBe(new Date(T0).toISOString());
    expect(clock.pending_timers).toBe(0);
    expect((await s.control('GET', '/sandbox/webhooks/deliveries')).body.data).toEqual([]);

    // The clock is free again and nothing from before fires on the next advance.
    const again = await s.control('POST', '/sandbox/clock/advance', { duration: '28h' });
    expect(again.status, again.text).toBe(200);
    expect(again.body.data.fired_count).toBe(0);
    expect(r.received).toHaveLength(2);
    expect((await s.control('GET', '/sandbox/webhooks/deliveries')).body.data).toEqual([]);
  });

  it('answers 409 to a second advance while one is under way, naming the cause', async () => {
    const s = await server(2_000);
    const r = await startReceiver();
    cleanup.push(() => r.close());
    r.behave((_, i) => (i === 0 ? '500' : 'slow'));
    const p = await s.createPartner({ webhook_url: r.url, events: ['order.created'] });
    await createOrder(s, 'onramp', {}, { as: p });
    await s.sandbox.dispatcher.idle();
    const first = s.control('POST', '/sandbox/clock/advance', { duration: '1m' });
    while (r.received.length < 2) await new Promise((res) => setTimeout(res, 5));
    const second = await s.control('POST', '/sandbox/clock/advance', { duration: '1m' });
    expect(second.status).toBe(409);
    expect(second.body.message).toMatch(/already being advanced/);
    expect((await first).status).toBe(200);
  });
});

// CONTRACT §9 (issue 22 items 7, 8): an advance with no attempt in flight yields every few tens
// of ms of work, so requests are answered while it runs; a restore stops it and says so.
describe('an advance shares the event loop (CONTRACT §9: it yields every few tens of ms of work)', () => {
  /** `n` paid orders made in process (quick): each fires five lifecycle timers on the way to final. */
  function paidOrders(s: TestServer, n: number): void {
    const caller = { partner: s.sandbox.demoPartner, env: 'test' as const };
    const body = {
      from: { currency: 'NGN', amount: 50_000 },
      to: { currency: 'USDT', network: 'base-sepolia' },
      recipient: { address: `0x${'5'.repeat(40)}` },
      customer: { reference: 'cus_1', name: 'Ada Obi', email: 'ada@example.com' },
    };
    for (let i = 0; i < n; i++) s.sandbox.orders.create(caller, body);
    for (const reference of [...s.sandbox.orders.store.orders.keys()]) s.sandbox.orders.simulatePayin(reference, {});
  }

  /** Starts an advance of 1 day and waits until a request is answered in the middle of it. */
  async function midAdvance(s: TestServer) {
    const state = { done: false };
    const advancing = s.control('POST', '/sandbox/clock/advance', { duration: '1d' }).finally(() => (state.done = true));
    const target = T0 + 86_400_000;
    for (;;) {
      const [health, clock] = await Promise.all([s.request('GET', '/health'), s.control('GET', '/sandbox/clock')]);
      expect(health.status).toBe(200);
      const nowMs = clock.body.data.now_ms;
      // Time stands at an instant being fired: past the start, short of the target. Once the
      // advance has returned, an answer proves nothing (and it would be at the target anyway).
      const midway = nowMs > T0 && nowMs < target;
      if (midway || state.done) {
        return { advancing, answeredMidAdvance: midway && !state.done, health: health.body.data, clock: clock.body.data, state };
      }
    }
  }

  it('answers GET /health and GET /sandbox/clock while an advance over 20,000 timers is still running', async () => {
    const s = await server(1_000);
    paidOrders(s, 4_000);
    const mid = await midAdvance(s);
    expect(mid.answeredMidAdvance, 'a request was answered only after the advance returned').toBe(true);
    expect(mid.state.done).toBe(false);
    // Both saw now() pinned at the instant being fired (not the target, not a moving value).
    expect(Date.parse(mid.health.clock.now)).toBeGreaterThan(T0);
    expect(mid.clock.pending_timers).toBeGreaterThan(0);

    const advanced = await mid.advancing;
    expect(advanced.status, advanced.text).toBe(200);
    expect(advanced.body.data.fired_count).toBe(20_000);
    expect(advanced.body.data.clock.now_ms).toBe(T0 + 86_400_000);
    expect(advanced.body.data.clock.pending_timers).toBe(0);
    const statuses = new Set([...s.sandbox.orders.store.orders.values()].map((o) => o.status));
    expect([...statuses]).toEqual(['completed']);
  });

  it('fires an order created in the middle of the advance, in time order, within the same advance', async () => {
    const s = await server(1_000);
    paidOrders(s, 4_000);
    const mid = await midAdvance(s);
    expect(mid.answeredMidAdvance).toBe(true);
    const created = await createOrder(s, 'onramp');
    expect(mid.state.done).toBe(false);
    // created at an instant being fired (time mid-advance), never before what was already seen
    const createdAt = Date.parse(created.created_at);
    expect(createdAt).toBeGreaterThanOrEqual(mid.clock.now_ms);
    expect(createdAt).toBeLessThan(T0 + 86_400_000);
    const advanced = await mid.advancing;
    expect(advanced.status, advanced.text).toBe(200);
    // its pay-in window (well under a day) ran out inside the advance, at its own due time
    const order = (await s.signed('GET', `/v1/orders/${created.reference}?include=timeline`)).body.data;
    expect(order.status).toBe('expired');
    const expired = order.timeline.find((t: any) => t.group === 'status' && t.event === 'expired');
    expect(expired.created_at).toBe(created.payin.expires_at);
    expect(Date.parse(created.payin.expires_at)).toBeGreaterThan(createdAt);
  });

  it('PUT /sandbox/state during an advance stops it with a 409 naming PUT /sandbox/state', async () => {
    const s = await server(1_000);
    const saved = (await s.control('GET', '/sandbox/state')).body.data;
    paidOrders(s, 4_000);
    const mid = await midAdvance(s);
    expect(mid.answeredMidAdvance).toBe(true);
    const put = await s.control('PUT', '/sandbox/state', saved);
    expect(put.status, put.text).toBe(200);

    const advanced = await mid.advancing;
    expect(advanced.status, advanced.text).toBe(409);
    expect(advanced.body.message).toMatch(/stopped by PUT \/sandbox\/state/);
    expect(advanced.body.message).not.toMatch(/reset/);
    const clock = (await s.control('GET', '/sandbox/clock')).body.data;
    expect(clock.now_ms).toBe(saved.clock.now_ms);
    expect(clock.pending_timers).toBe(0);
    expect(s.sandbox.orders.store.orders.size).toBe(0);
    const again = await s.control('POST', '/sandbox/clock/advance', { duration: '1h' });
    expect(again.status, again.text).toBe(200);
    expect(again.body.data.fired_count).toBe(0);
  });

  it('POST /sandbox/reset during an advance with no attempt in flight stops it with a 409 naming the reset', async () => {
    const s = await server(1_000);
    paidOrders(s, 4_000);
    const mid = await midAdvance(s);
    expect(mid.answeredMidAdvance).toBe(true);
    expect((await s.control('POST', '/sandbox/reset')).status).toBe(200);
    const advanced = await mid.advancing;
    expect(advanced.status, advanced.text).toBe(409);
    expect(advanced.body.message).toMatch(/stopped by POST \/sandbox\/reset/);
    const clock = (await s.control('GET', '/sandbox/clock')).body.data;
    expect(clock.now_ms).toBe(T0);
    expect(clock.pending_timers).toBe(0);
  });
});

describe('attempts due at the same instant run concurrently', () => {
  it('sends the retries of three dead receivers together, not one timeout after another', async () => {
    // A receiver that holds every request until three are open at once, then answers all 500.
    // Sent one after another, the first would time out waiting for the others.
    const open: ServerResponse[] = [];
    const seen: number[] = [];
    const barrier = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        seen.push(Number(req.headers['svc-attempt']));
        open.push(res);
        if (open.length === 3) for (const o of open.splice(0)) o.writeHead(500).end('down');
      });
    });
    await new Promise<void>((res) => barrier.listen(0, '127.0.0.1', res));
    cleanup.push(
      () =>
        new Promise((res) => {
          barrier.closeAllConnections();
          barrier.close(res);
        }),
    );
    const url = `http://127.0.0.1:${(barrier.address() as AddressInfo).port}/hook`;

    const s = await server(3_000);
    for (let i = 0; i < 3; i++) {
      const p = await s.createPartner({ webhook_url: url, events: ['order.created'] });
      await createOrder(s, 'onramp', {}, { as: p });
    }
    await s.sandbox.dispatcher.idle();
    const res = await s.control('POST', '/sandbox/clock/advance', { duration: '28h' });
    expect(res.status, res.text).toBe(200);

    const log = (await s.control('GET', '/sandbox/webhooks/deliveries?event=order.created')).body.data;
    expect(log).toHaveLength(3);
    for (const d of log) {
      expect(d.status).toBe('failed');
      expect(d.attempts.map((a: any) => a.http_status)).toEqual(Array(8).fill(500));
    }
    expect(seen).toHaveLength(24);
  });
});
