import { capturedLogger } from '../support/log-sink';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { advance, createOrder, customer, EVM_ADDRESS, legs } from '../support/orders';
import { startReceiver, type Receiver } from '../support/receiver';
import { startTestServer, type Caller, type TestServer } from '../support/server';

// CONTRACT §9: --max-orders bounds memory by evicting the oldest orders in a final status, and
// refuses a create (409) when the store is full of orders still running.
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
    // Room is made before the new order is stored: 9 kept, then the create makes 10.
    expect(JSON.parse(evictionLines.at(-1)!)).toMatchObject({ evicted: 1, evictedTotal: 5, kept: 9, maxOrders: 10 });
  });

  it('refuses a create (409) rather than evict an order still running or grow past the bound', async () => {
    // Now 4 running + 1 completed + 5 awaiting payment: one more evicts the last completed one,
    // the next finds nothing final and is refused.
    await createOrder(s, 'onramp', {}, { as: p });
    expect((await health()).evicted_orders).toBe(6);
    const res = await s.signed('POST', '/v1/orders', { ...legs.onramp, recipient: { address: EVM_ADDRESS }, customer }, { as: p });
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('E_CONFLICT');
    expect((await health()).evicted_orders).toBe(6);
    expect(await total()).toBe(10);
  });

  it('counts from zero again after a reset', async () => {
    await s.control('POST', '/sandbox/reset');
    expect((await health()).evicted_orders).toBe(0);
  });
});

describe('--max-orders with a store full of orders still running', () => {
  // `full` holds at most 5 orders; `twin` (same seed, never full) shows the references a sandbox
  // that refused nothing draws, so a refusal is seen to draw none.
  const { logger: fullLogger, lines: fullLines } = capturedLogger();
  let full: TestServer;
  let twin: TestServer;
  beforeAll(async () => {
    full = await startTestServer({ maxOrders: 5, logger: fullLogger });
    twin = await startTestServer({ maxOrders: 100 });
  });
  afterAll(async () => {
    await full.close();
    await twin.close();
  });

  const body = { ...legs.onramp, recipient: { address: EVM_ADDRESS }, customer };
  const countOf = async (srv: TestServer) => (await srv.control('GET', '/sandbox/orders?per_page=1')).body.meta.total;
  const evictedOf = async (srv: TestServer) => (await srv.request('GET', '/health')).body.data.evicted_orders;
  const warnings = () => fullLines.filter((l) => l.includes('over 90% of --max-orders')).map((l) => JSON.parse(l));
  const expectFull = (res: { status: number; body: any }) => {
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('E_CONFLICT');
    expect(res.body.message).toMatch(/holds 5 orders, its limit \(--max-orders 5\), and none can be evicted/);
    for (const way of [/advancing the clock/, /expiring/, /POST \/sandbox\/reset/, /larger --max-orders/])
      expect(res.body.message).toMatch(way);
  };
  let quoteId: string;
  let made: string[];

  it('refuses the 6th create with 409 naming the limit, storing nothing and drawing no id', async () => {
    made = [];
    for (let i = 0; i < 5; i++) made.push((await createOrder(full, 'onramp')).reference);
    quoteId = (await full.signed('POST', '/v1/orders/quote', legs.onramp)).body.data.quote_id;
    const before = (await full.control('GET', '/sandbox/state')).body.data;

    expectFull(await full.signed('POST', '/v1/orders', body));
    expectFull(await full.signed('POST', '/v1/orders', { quote_id: quoteId, recipient: { address: EVM_ADDRESS }, customer }));
    expectFull(await full.control('POST', '/sandbox/orders', { client_id: full.demo.clientId, ...legs.onramp }));
    expect(await countOf(full)).toBe(5);
    expect(await evictedOf(full)).toBe(0);
    // Nothing stored, no id drawn, the quote not spent.
    expect((await full.control('GET', '/sandbox/state')).body.data).toEqual(before);
  });

  it('checks authentication, shape and meaning before the bound (CONTRACT §8)', async () => {
    expect(
      (await full.request('POST', '/v1/orders', { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })).status,
    ).toBe(401);
    expect((await full.signed('POST', '/v1/orders', { ...body, customer: { name: 'Ada' } })).status).toBe(422);
    const meaning = await full.signed('POST', '/v1/orders', { ...body, to: { currency: 'USDT', network: 'ethereum' } });
    expect(meaning.status).toBe(400);
    expect(meaning.body.message).toMatch(/unknown network/);
  });

  it('takes a create once an order is final, with the reference a sandbox that refused nothing draws 6th', async () => {
    const expected: string[] = [];
    for (let i = 0; i < 5; i++) expected.push((await createOrder(twin, 'onramp')).reference);
    const twinQuote = (await twin.signed('POST', '/v1/orders/quote', legs.onramp)).body.data.quote_id;
    expect(made).toEqual(expected);
    expect(quoteId).toBe(twinQuote);
    const twinSixth = await twin.signed('POST', '/v1/orders', { quote_id: twinQuote, recipient: { address: EVM_ADDRESS }, customer });
    expect(twinSixth.status).toBe(200);

    // Expiring the oldest makes it evictable: nothing is evicted until a create needs the room.
    expect((await full.control('POST', `/sandbox/orders/${made[0]}/expire`)).status).toBe(200);
    expect(await countOf(full)).toBe(5);
    const sixth = await full.signed('POST', '/v1/orders', { quote_id: quoteId, recipient: { address: EVM_ADDRESS }, customer });
    expect(sixth.status).toBe(200);
    expect(sixth.body.data.reference).toBe(twinSixth.body.data.reference);
    expect(await countOf(full)).toBe(5);
    expect(await evictedOf(full)).toBe(1);
    expect((await full.signed('GET', `/v1/orders/${made[0]}`)).status).toBe(404);

    // Full of running orders again; past the pay-in window they all expire, and creates go on.
    expectFull(await full.signed('POST', '/v1/orders', body));
    await advance(full, '31m');
    expect(await countOf(full)).toBe(5);
    for (let i = 0; i < 5; i++) await createOrder(full, 'onramp');
    expect(await countOf(full)).toBe(5);
    expect(await evictedOf(full)).toBe(6);
    expectFull(await full.signed('POST', '/v1/orders', body));
  });

  it('warns once when the store passes 90% of the limit, and again only after a reset', async () => {
    expect(warnings()).toHaveLength(1);
    expect(warnings()[0]).toMatchObject({ level: 40, orders: 5, maxOrders: 5, unfinished: 5 });
    await full.control('POST', '/sandbox/reset');
    for (let i = 0; i < 4; i++) await createOrder(full, 'onramp');
    expect(warnings()).toHaveLength(1);
    await createOrder(full, 'onramp');
    expect(warnings()).toHaveLength(2);
  });

  it('evicts as soon as orders finish when a restored store is over the bound: no create needed', async () => {
    // 12 paid orders, restored into a sandbox that keeps 5: all running, so nothing goes yet.
    await twin.control('POST', '/sandbox/reset');
    for (let i = 0; i < 12; i++) {
      const o = await createOrder(twin, 'onramp');
      expect((await twin.control('POST', `/sandbox/orders/${o.reference}/payin`, {})).status).toBe(200);
    }
    const doc = (await twin.control('GET', '/sandbox/state')).body.data;
    expect((await full.control('PUT', '/sandbox/state', doc)).status).toBe(200);
    expect(await countOf(full)).toBe(12);
    const refused = await full.signed('POST', '/v1/orders', body);
    expect(refused.status).toBe(409);
    expect(refused.body.message).toMatch(/holds 12 orders, its limit \(--max-orders 5\), and none can be evicted/);

    // The advance completes all 12: each one that finishes while the store is over 5 goes at once.
    await advance(full, '2h');
    expect(await countOf(full)).toBe(5);
    expect(await evictedOf(full)).toBe(7);
    const kept = (await full.control('GET', '/sandbox/orders?per_page=100')).body.data;
    expect(kept.map((o: any) => o.status)).toEqual(Array(5).fill('completed'));
    await createOrder(full, 'onramp');
    expect(await countOf(full)).toBe(5);
  });
});
