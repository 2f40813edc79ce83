import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { advance, createOrder, getOrder } from '../support/orders';
import { startReceiver, type Receiver } from '../support/receiver';
import { startTestServer, type TestServer } from '../support/server';

/**
 * Finished orders (a final status, no timer pending) are written again now and then: a webhook's
 * outcome noted, a simulated failure's reason. Every read answers what it did, every write after
 * the order finished is kept, and a state export and restore give the same document
 * (docs/decisions/028-plain-order-store.md replaced the packing these tests first guarded).
 */
let s: TestServer;
const receivers: Receiver[] = [];
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s.close());
afterEach(async () => {
  await s.sandbox.dispatcher.idle();
  await Promise.all(receivers.splice(0).map((r) => r.close()));
});

const stored = (server: TestServer, reference: string) => server.sandbox.orders.store.get(reference)!;

/** An order of a partner with a receiver, taken to completed and its webhooks delivered. */
async function completed(type: 'onramp' | 'offramp' | 'swap') {
  const r = await startReceiver();
  receivers.push(r);
  const p = await s.createPartner({ webhook_url: r.url });
  const o = await createOrder(s, type, {}, { as: p });
  await s.control('POST', `/sandbox/orders/${o.reference}/payin`, {});
  await advance(s, '1h');
  await s.sandbox.dispatcher.idle();
  return { reference: o.reference as string, partner: p };
}

describe('finished orders', () => {
  it('keeps every webhook outcome noted on a finished order, and renders it', async () => {
    for (const type of ['onramp', 'offramp', 'swap'] as const) {
      const { reference, partner } = await completed(type);
      const order = stored(s, reference);
      expect(order.status).toBe('completed');
      const detail = await getOrder(s, reference, { as: partner });
      const hooks = detail.timeline.filter((e: { group: string }) => e.group === 'webhook');
      expect(hooks.length).toBeGreaterThan(2);
      for (const e of hooks) expect(e.details.delivery_id).toMatch(/^dlv_/);
      // What the route renders is what the store holds (the render cache is bypassed).
      expect(JSON.stringify(s.sandbox.orders.detail(reference))).toBe(JSON.stringify(s.sandbox.orders.detail(reference)));
      expect(detail.timeline.length).toBe(order.timeline.length);
    }
  });

  it('keeps a webhook outcome noted on a finished order and shows it at the next GET', async () => {
    const { reference, partner } = await completed('offramp');
    const before = await getOrder(s, reference, { as: partner });
    const entry = before.timeline.findIndex((e: { group: string }) => e.group === 'webhook');
    expect(s.sandbox.orders.noteDelivery(reference, entry, { delivery_id: 'dlv_late', attempts: 3 })).toBe(true);
    const after = await getOrder(s, reference, { as: partner });
    expect(after.timeline[entry].details).toStrictEqual({ delivery_id: 'dlv_late', attempts: 3 });
    expect(after.timeline.length).toBe(before.timeline.length);
    expect(s.sandbox.orders.noteDelivery(reference, 10_000, { delivery_id: 'dlv_nowhere' })).toBe(false);
  });

  it("keeps a simulated failure's reason on an order that ends finished", async () => {
    const o = await createOrder(s, 'offramp');
    const res = await s.control('POST', `/sandbox/orders/${o.reference}/simulate`, { status: 'refunded', reason: 'payout bank down' });
    expect(res.status).toBe(200);
    await advance(s, '1h');
    const order = stored(s, o.reference);
    expect(order.status).toBe('refunded');
    const detail = await getOrder(s, o.reference);
    expect(detail.timeline.some((e: { details: { reason?: string } | null }) => e.details?.reason === 'payout bank down')).toBe(true);
  });

  it('exports finished orders; export, restore, export gives the same document', async () => {
    await completed('swap');
    const doc = (await s.control('GET', '/sandbox/state')).body.data;
    const b = await startTestServer();
    try {
      expect((await b.control('PUT', '/sandbox/state', doc)).status).toBe(200);
      const finals = doc.orders.filter((o: { status: string }) =>
        ['completed', 'refunded', 'cancelled', 'expired', 'failed'].includes(o.status),
      );
      expect(finals.length).toBeGreaterThan(0);
      for (const o of finals) expect(stored(b, o.reference).status).toBe(o.status);
      expect((await b.control('GET', '/sandbox/state')).body.data).toStrictEqual(doc);
    } finally {
      await b.close();
    }
  });
  it('restores many finished orders: reads, state export and late writes are as they were', async () => {
    const { reference, partner } = await completed('offramp');
    const doc = (await s.control('GET', '/sandbox/state')).body.data;
    const entry = doc.orders.find((o: { reference: string }) => o.reference === reference);
    // The same finished order many times over, each its own reference: more than the move's delay.
    const copies = Array.from({ length: 500 }, (_, i) => ({
      ...entry,
      reference: `${reference.slice(0, -6)}${String(i).padStart(6, '0')}`,
    }));
    const big = { ...doc, orders: [...doc.orders, ...copies] };
    const b = await startTestServer();
    try {
      const put = await b.control('PUT', '/sandbox/state', big);
      expect(put.status, JSON.stringify(put.body).slice(0, 500)).toBe(200);
      const first = copies[0]!.reference as string;
      expect((await b.control('GET', '/sandbox/state')).body.data).toStrictEqual(big);
      const view = await getOrder(b, first, { as: partner });
      const original = await getOrder(s, reference, { as: partner });
      expect({ ...view, reference: original.reference }).toStrictEqual(original);
      const at = view.timeline.findIndex((e: { group: string }) => e.group === 'webhook');
      expect(b.sandbox.orders.noteDelivery(first, at, { delivery_id: 'dlv_late' })).toBe(true);
      expect((await getOrder(b, first, { as: partner })).timeline[at].details).toStrictEqual({ delivery_id: 'dlv_late' });
    } finally {
      await b.close();
    }
  });
});
