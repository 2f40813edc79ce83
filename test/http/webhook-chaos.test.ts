import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrder, advance } from '../support/orders';
import { startReceiver, type Receiver } from '../support/receiver';
import { startTestServer, type TestServer } from '../support/server';

// CONTRACT §22 webhook chaos per partner: duplicates, reordering, delayed first attempts; seeded,
// marked in the delivery log.
let r: Receiver;
const servers: TestServer[] = [];
beforeAll(async () => {
  r = await startReceiver();
});
afterAll(async () => {
  for (const s of servers) await s.close();
  await r.close();
});
async function server(seed = 3) {
  const s = await startTestServer({ seed, webhookTimeoutMs: 2_000 });
  servers.push(s);
  await s.controlApi.updatePartner({ params: { client_id: s.demo.clientId }, body: { webhook_url: r.url } });
  return s;
}

const chaos = { duplicate_rate: 0.5, reorder_window: '2m', delay: { min: '1s', max: '20s' } };

/** The same traffic: orders created, paid in and completed, deliveries let run. */
async function traffic(s: TestServer) {
  for (let i = 0; i < 4; i++) {
    const o = await createOrder(s, 'onramp', { merchant_reference: `chaos-${i}` });
    await s.controlApi.simulatePayin({ params: { reference: o.reference }, body: {} });
    await advance(s, '30s');
  }
  await advance(s, '2h');
  await s.sandbox.dispatcher.idle();
  const all = (await s.controlApi.listDeliveries({ query: { per_page: 500 } })).data;
  // what a run decides, without its transport (wall) times
  return all.map((d) => ({ ...d, attempts: d.attempts.map(({ wall_at: _w, duration_ms: _d, ...a }) => a) }));
}

describe('webhook chaos per partner', () => {
  it('gives the same deliveries, byte for byte, for the same seed and traffic, marked; another seed differs', async () => {
    const runs: string[] = [];
    let first: Awaited<ReturnType<typeof traffic>> = [];
    for (const seed of [3, 3, 4]) {
      const s = await server(seed);
      expect(await s.controlApi.setWebhookChaos({ params: { client_id: s.demo.clientId }, body: chaos })).toEqual({
        client_id: s.demo.clientId,
        ...chaos,
      });
      const log = await traffic(s);
      if (runs.length === 0) first = log;
      runs.push(JSON.stringify(log));
    }
    expect(runs[1]).toBe(runs[0]);
    expect(runs[2]).not.toBe(runs[0]);

    const marks = (m: string) => first.filter((d) => d.chaos?.includes(m as 'duplicate'));
    expect(marks('duplicate').length).toBeGreaterThan(0);
    expect(marks('delayed').length).toBeGreaterThan(0);
    expect(marks('reordered').length).toBeGreaterThan(0);
    // A duplicate repeats another delivery's body; every delivery still got through.
    for (const d of marks('duplicate')) {
      const original = first.find((x) => x.id === d.duplicate_of)!;
      expect(original.raw_body).toBe(d.raw_body);
      expect(original.chaos ?? []).not.toContain('duplicate');
    }
    expect(first.every((d) => d.status === 'succeeded')).toBe(true);
    // Delayed: its first attempt came after it was made, within the delay and the window.
    for (const d of marks('delayed')) {
      const held = Date.parse(d.attempts[0]!.virtual_at) - Date.parse(d.created_at);
      expect(held).toBeGreaterThan(0);
      expect(held).toBeLessThanOrEqual(20_000 + 120_000);
    }
    // Reordered: a later event of its order had its first attempt before it.
    for (const d of marks('reordered')) {
      const mine = Date.parse(d.attempts[0]!.virtual_at);
      const overtaken = first.some(
        (x) =>
          x.order === d.order &&
          x.id !== d.id &&
          Date.parse(x.created_at) >= Date.parse(d.created_at) &&
          x.attempts.length > 0 &&
          Date.parse(x.attempts[0]!.virtual_at) < mine,
      );
      expect(overtaken, d.id).toBe(true);
    }
  }, 30_000);

  it('leaves deliveries unmarked without chaos, and stops when removed', async () => {
    const s = await server();
    const log = await traffic(s);
    expect(log.some((d) => 'chaos' in d || 'duplicate_of' in d)).toBe(false);
    await s.controlApi.setWebhookChaos({ params: { client_id: s.demo.clientId }, body: { duplicate_rate: 1 } });
    const removed = await s.controlApi.removeWebhookChaos({ params: { client_id: s.demo.clientId } });
    expect(removed).toEqual({ client_id: s.demo.clientId, duplicate_rate: 1 });
    const res = await s.control('GET', `/sandbox/partners/${s.demo.clientId}/webhook-chaos`);
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ status: false, code: 'E_NOTFOUND' });
    const o = await createOrder(s, 'onramp');
    await s.sandbox.dispatcher.idle();
    expect((await s.controlApi.listDeliveries({ query: { order: o.reference } })).data.map((d) => d.chaos)).toEqual([undefined]);
  });

  it('keeps a held first attempt at its time when a manual retry of it fails (it was marked failed, never sent)', async () => {
    const s = await server();
    const failing = await startReceiver();
    failing.behave(() => '500');
    try {
      await s.controlApi.updatePartner({ params: { client_id: s.demo.clientId }, body: { webhook_url: failing.url } });
      await s.controlApi.setWebhookChaos({ params: { client_id: s.demo.clientId }, body: { delay: { min: '1m', max: '1m' } } });
      const o = await createOrder(s, 'onramp');
      const [held] = (await s.controlApi.listDeliveries({ query: { order: o.reference } })).data;
      const manual = await s.controlApi.retryDelivery({ params: { id: held!.id } });
      expect(manual).toMatchObject({ status: 'pending', next_attempt_at: '2026-01-15T12:01:00.000Z' });
      await advance(s, '1m');
      await s.sandbox.dispatcher.idle();
      const after = await s.controlApi.getDelivery({ params: { id: held!.id } });
      expect(after.attempts.map((a) => [a.manual, a.http_status])).toEqual([
        [true, 500],
        [false, 500],
      ]);
      expect(after).toMatchObject({ status: 'retrying', next_attempt_at: '2026-01-15T12:01:05.000Z' });
    } finally {
      await failing.close();
    }
  });

  it('survives snapshot and restore (a held first attempt too), and goes with a reset', async () => {
    const s = await server();
    await s.controlApi.setWebhookChaos({ params: { client_id: s.demo.clientId }, body: { delay: { min: '1m', max: '1m' } } });
    const o = await createOrder(s, 'onramp');
    const [held] = (await s.controlApi.listDeliveries({ query: { order: o.reference } })).data;
    expect(held).toMatchObject({ status: 'pending', attempts: [], chaos: ['delayed'], next_attempt_at: '2026-01-15T12:01:00.000Z' });
    const doc = (await s.control('GET', '/sandbox/state')).body.data;
    expect(doc.webhook_chaos).toEqual([{ client_id: s.demo.clientId, delay: { min: '1m', max: '1m' } }]);
    expect(JSON.stringify(doc)).toBe(JSON.stringify(s.sandbox.exportState()));

    const t = await server();
    expect((await t.control('PUT', '/sandbox/state', doc)).status).toBe(200);
    expect(await t.controlApi.getWebhookChaos({ params: { client_id: s.demo.clientId } })).toEqual(doc.webhook_chaos[0]);
    await advance(t, '59s');
    expect((await t.controlApi.getDelivery({ params: { id: held!.id } })).attempts).toEqual([]);
    await advance(t, '1s');
    await t.sandbox.dispatcher.idle();
    const sent = await t.controlApi.getDelivery({ params: { id: held!.id } });
    expect(sent.attempts.map((a) => a.virtual_at)).toEqual(['2026-01-15T12:01:00.000Z']);
    expect(sent.status).toBe('succeeded');

    expect((await t.control('POST', '/sandbox/reset')).status).toBe(200);
    expect((await t.control('GET', `/sandbox/partners/${s.demo.clientId}/webhook-chaos`)).status).toBe(404);
  });

  it('refuses bad input in the error envelope and changes nothing', async () => {
    const s = await server();
    const path = `/sandbox/partners/${s.demo.clientId}/webhook-chaos`;
    const cases: Array<[string, unknown, number, string]> = [
      [path, {}, 422, 'duplicate_rate: give at least one of duplicate_rate, reorder_window or delay'],
      [path, { duplicate_rate: 1.5 }, 422, 'duplicate_rate'],
      [path, { duplicate_rate: '0.5' }, 422, 'duplicate_rate'],
      [path, { reorder_window: 'soon' }, 422, 'reorder_window: must be a duration'],
      [path, { delay: { min: '2m', max: '1m' } }, 422, 'delay.min: min must not exceed max'],
      [path, { delay: { min: '1m' } }, 422, 'delay.max'],
      ['/sandbox/partners/ptr_nobody/webhook-chaos', { duplicate_rate: 0.5 }, 404, 'ptr_nobody'],
    ];
    for (const [url, body, status, message] of cases) {
      const res = await s.control('PUT', url, body);
      expect({ body, status: res.status, envelope: res.body.status }).toEqual({ body, status, envelope: false });
      expect(res.body.message).toContain(message);
    }
    expect((await s.control('GET', path)).status).toBe(404);
    expect((await s.control('DELETE', path)).status).toBe(404);
  });

  it('answers every duration it takes within its own document (decimals, any order, up to 3650d), spaces dropped', async () => {
    // These were echoed as given, and the answers failed the document's duration pattern.
    const s = await server();
    const path = `/sandbox/partners/${s.demo.clientId}/webhook-chaos`;
    for (const [given, shown] of [
      ['3650d', '3650d'],
      ['87600h', '87600h'],
      ['1.5h', '1.5h'],
      ['1m1h', '1m1h'],
      ['1d1d', '1d1d'],
      [' 5m ', '5m'],
    ]) {
      // s.control checks each answer against GET /openapi.json
      const set = await s.control('PUT', path, { reorder_window: given, delay: { min: given, max: given } });
      expect(set.status, given).toBe(200);
      expect(set.body.data).toEqual({ client_id: s.demo.clientId, reorder_window: shown, delay: { min: shown, max: shown } });
      expect((await s.control('GET', path)).body.data).toEqual(set.body.data);
    }
    expect((await s.control('PUT', path, { reorder_window: '3651d' })).body.message).toBe(
      'reorder_window: must be at most 10 years (3650d)',
    );
  });
});
