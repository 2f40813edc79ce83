import { capturedLogger } from '../support/log-sink';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { advance, createOrder } from '../support/orders';
import { startReceiver, type Receiver } from '../support/receiver';
import { startTestServer, type Caller, type TestServer } from '../support/server';

// CONTRACT §9: --max-orders bounds memory by evicting the oldest orders in a final status.
const { logger, lines } = capturedLogger();
let s: TestServer;
let r: Receiver;
let p: Caller;
beforeAll(async () => {
  s = await startTestServer({ maxOrders: 10, logger });
  r = await startReceiver();
  p = await s.createPartner({ webhook_url: r.url });
});
afterAll(async () => {
  await s.close();
  await r.close();
});

const health = async () => (await s.request('GET', '/health')).body.data;
const total = async () => (await s.signed('GET', '/v1/orders?per_page=1', undefined, { as: p })).body.meta.total;
const deliveriesOf = async (ref: string) => (await s.control('GET', `/sandbox/webhooks/deliveries?order=${ref}`)).body.data;

describe('--max-orders', () => {
  it('evicts the oldest finished orders with their deliveries, never one still running, and counts them', async () => {
    // 4 oldest orders stay running (pending: an unconfirmed pay-in waits for its confirmation)
    const running: string[] = [];
    for (let i = 0; i < 4; i++) {
      const o = await createOrder(s, 'onramp', {}, { as: p });
      expect((await s.control('POST', `/sandbox/orders/${o.reference}/payin`, { confirmed: false })).status).toBe(200);
      running.push(o.reference);
    }
    // 6 next ones complete
    const done: string[] = [];
    for (let i = 0; i < 6; i++) {
      const o = await createOrder(s, 'onramp', {}, { as: p });
      await s.control('POST', `/sandbox/orders/${o.reference}/payin`, {});
      done.push(o.reference);
    }
    await advance(s, '2h');
    await s.sandbox.dispatcher.idle();
    for (const ref of done) expect((await s.control('GET', `/sandbox/orders/${ref}`)).body.data.status).toBe('completed');
    expect((await deliveriesOf(done[0]!)).length).toBeGreaterThan(0);
    expect(await total()).toBe(10);
    expect((await health()).evicted_orders).toBe(0);

    // 5 more: the 5 oldest completed orders go, the running ones stay although older
    const fresh: string[] = [];
    for (let i = 0; i < 5; i++) fresh.push((await createOrder(s, 'onramp', {}, { as: p })).reference);
    expect(await total()).toBe(10);
    expect((await health()).evicted_orders).toBe(5);
    for (const ref of done.slice(0, 5)) {
      const res = await s.signed('GET', `/v1/orders/${ref}`, undefined, { as: p });
      expect(res.status).toBe(404);
      expect(await deliveriesOf(ref)).toEqual([]);
    }
    for (const ref of [...running, done[5]!, ...fresh]) {
      expect((await s.signed('GET', `/v1/orders/${ref}`, undefined, { as: p })).status).toBe(200);
    }
    expect((await deliveriesOf(done[5]!)).length).toBeGreaterThan(0);
    const evictionLines = lines.filter((l) => l.includes('evicted the oldest finished orders'));
    expect(evictionLines).toHaveLength(5); // one batch per order at this size (1% of 10 rounds up to 1)
    expect(JSON.parse(evictionLines.at(-1)!)).toMatchObject({ evicted: 1, evictedTotal: 5, kept: 10, maxOrders: 10 });
  });

  it('lets the store grow past the bound rather than evict an order still running', async () => {
    // Now 4 running + 1 completed + 5 awaiting payment: one more evicts the last completed one,
    // the next finds nothing final and keeps everything.
    await createOrder(s, 'onramp', {}, { as: p });
    expect((await health()).evicted_orders).toBe(6);
    await createOrder(s, 'onramp', {}, { as: p });
    expect((await health()).evicted_orders).toBe(6);
    expect(await total()).toBe(11);
  });

  it('counts from zero again after a reset', async () => {
    await s.control('POST', '/sandbox/reset');
    expect((await health()).evicted_orders).toBe(0);
  });
});
