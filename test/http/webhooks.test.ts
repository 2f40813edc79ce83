import { createServer as createHttpServer } from 'node:http';
import { type AddressInfo, createServer } from 'node:net';
import fc from 'fast-check';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { verifyWebhook, type WebhookVerificationError } from '../../src';
import { WEBHOOK_EVENTS } from '../../src/shared/events';
import { advance, createOrder, eventsOf, getOrder, type OrderType } from '../support/orders';
import { closedUrl, startReceiver, verifies, type Receiver } from '../support/receiver';
import { startTestServer, type Caller, type TestServer } from '../support/server';
import { seeded } from '../support/property';

let s: TestServer;
const receivers: Receiver[] = [];

beforeAll(async () => {
  // Short, for the timeout case below; long enough for a receiver that answers on a loaded machine.
  s = await startTestServer({ webhookTimeoutMs: 1_000 });
});
afterAll(() => s.close());
afterEach(async () => {
  await s.sandbox.dispatcher.idle();
  await Promise.all(receivers.splice(0).map((r) => r.close()));
});

async function receiver(path?: string) {
  const r = await startReceiver(path);
  receivers.push(r);
  return r;
}

async function partnerWith(r: Receiver | string | null, extra: Record<string, unknown> = {}) {
  return s.createPartner({ webhook_url: typeof r === 'string' || r === null ? r : r.url, ...extra });
}

const idle = () => s.sandbox.dispatcher.idle();
const deliveries = async (query: string) => (await s.control('GET', `/sandbox/webhooks/deliveries?${query}`)).body.data;

async function runOrder(p: Caller, type: OrderType = 'onramp') {
  const o = await createOrder(s, type, {}, { as: p });
  await s.control('POST', `/sandbox/orders/${o.reference}/payin`, {});
  await advance(s, '1h');
  await idle();
  return o.reference as string;
}

describe('delivery (spec §6, CONTRACT §5)', () => {
  it('delivers each event, signed per spec §6.4 over the exact bytes sent, with the extra headers', async () => {
    const r = await receiver();
    const p = await partnerWith(r);
    const ref = await runOrder(p, 'offramp');
    const mine = r.received.filter((x) => x.body?.data?.reference === ref);
    expect(mine.map((x) => x.body.event)).toEqual([
      'order.created',
      'order.asset_locked',
      'order.assigned',
      'order.fiat_sent',
      'order.settled',
    ]);
    for (const x of mine) {
      expect(verifies(x, p.clientId, p.keys.test.encryption_key)).toBe(true);
      expect(x.path).toBe('/hooks/ramp?src=sandbox');
      expect(x.headers['content-type']).toBe('application/json');
      expect(x.headers['svc-event']).toBe(x.body.event);
      expect(x.headers['svc-delivery-id']).toMatch(/^dlv_/);
      expect(x.headers['svc-attempt']).toBe('1');
      expect(Math.abs(Number(x.headers['svc-timestamp']) - Date.now())).toBeLessThan(60_000); // wall clock, ms
      expect(Object.keys(x.body).sort()).toEqual(['data', 'event']);
      expect(x.body.data.payin).toBeUndefined();
      expect(x.body.data.payout).toBeUndefined();
      expect(x.body.data).toMatchObject({ reference: ref, type: 'offramp' });
    }
    expect(mine[0]!.body.data.status).toBe('awaiting_user_payment'); // spec §6.2
    const log = await deliveries(`order=${ref}`);
    expect(log).toHaveLength(5);
    expect(log.every((d: any) => d.status === 'succeeded' && d.attempts.length === 1 && d.attempts[0].http_status === 200)).toBe(true);
    const order = await getOrder(s, ref, { as: p });
    const webhookEntries = order.timeline.filter((t: any) => t.group === 'webhook');
    expect(webhookEntries.every((t: any) => /^dlv_/.test(t.details.delivery_id))).toBe(true);
  });

  it('signs with the enc_* key of the order environment', async () => {
    const r = await receiver();
    const p = await partnerWith(r);
    const live = await s.signed(
      'POST',
      '/v1/orders',
      {
        from: { currency: 'NGN', amount: 50_000 },
        to: { currency: 'USDT', network: 'base' },
        recipient: { address: `0x${'7'.repeat(40)}` },
        customer: { reference: 'c', name: 'A B', email: 'a@b.co' },
      },
      { as: p, env: 'live' },
    );
    expect(live.status).toBe(200);
    await idle();
    const got = r.received.find((x) => x.body.data.reference === live.body.data.reference)!;
    expect(verifies(got, p.clientId, p.keys.live.encryption_key)).toBe(true);
    expect(verifies(got, p.clientId, p.keys.test.encryption_key)).toBe(false);
  });
});

describe('retries on the virtual clock', () => {
  it('retries a 500 after 5 s and 5 min, each attempt freshly signed, until the receiver recovers', async () => {
    const r = await receiver();
    const p = await partnerWith(r, { events: ['order.created'] });
    r.behave((_req, i) => (i < 2 ? '500' : 'ok'));
    const o = await createOrder(s, 'swap', {}, { as: p });
    await idle();
    let [d] = await deliveries(`order=${o.reference}`);
    expect(d).toMatchObject({ status: 'retrying', in_flight: false });
    expect(d.attempts[0]).toMatchObject({ number: 1, http_status: 500, error: 'HTTP 500', response_excerpt: 'receiver error' });
    expect(Date.parse(d.next_attempt_at) - Date.parse(d.attempts[0].virtual_at)).toBe(5_000);
    await advance(s, '5s');
    await idle();
    [d] = await deliveries(`order=${o.reference}`);
    expect(d.attempts).toHaveLength(2);
    expect(Date.parse(d.next_attempt_at) - Date.parse(d.attempts[1].virtual_at)).toBe(300_000);
    await advance(s, '5m');
    await idle();
    [d] = await deliveries(`order=${o.reference}`);
    expect(d.status).toBe('succeeded');
    expect(d.attempts.map((a: any) => a.http_status)).toEqual([500, 500, 200]);
    const got = r.received.filter((x) => x.body.data.reference === o.reference);
    expect(got.map((x) => x.headers['svc-attempt'])).toEqual(['1', '2', '3']);
    // the same data.reference + event arrives again: duplicates are possible (spec §6.5)
    expect(new Set(got.map((x) => `${x.body.data.reference}|${x.body.event}`)).size).toBe(1);
    expect(new Set(got.map((x) => x.rawBody)).size).toBe(1);
    expect(got.every((x) => verifies(x, p.clientId, p.keys.test.encryption_key))).toBe(true);
    expect(new Set(got.map((x) => x.headers['svc-signature'])).size).toBe(3);
  });

  it('treats timeouts, refused connections and resets as failures', async () => {
    const hang = await receiver();
    hang.behave(() => 'hang');
    const reset = await receiver();
    reset.behave(() => 'reset');
    const cases: Array<[string, RegExp]> = [
      [hang.url, /timed out after 1000 ms/],
      [await closedUrl(), /connection refused/],
      [reset.url, /reset|socket|fetch failed|other side closed/i],
    ];
    for (const [url, error] of cases) {
      const p = await partnerWith(url, { events: ['order.created'] });
      const o = await createOrder(s, 'onramp', {}, { as: p });
      await idle();
      const [d] = await deliveries(`order=${o.reference}`);
      expect(d.status, url).toBe('retrying');
      expect(d.attempts[0].http_status).toBeNull();
      expect(d.attempts[0].error).toMatch(error);
    }
  });

  it('takes a receiver that answers 101 Switching Protocols as a failed attempt, and the clock goes on', async () => {
    // Node emitted neither a response nor an error for it: the attempt stayed in flight for good,
    // and every later advance of the clock waited on it (409 for the next one).
    const upgrading = createServer((socket) => {
      socket.once('data', () => socket.write('HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n'));
      socket.on('error', () => {});
    });
    await new Promise<void>((resolve) => upgrading.listen(0, '127.0.0.1', resolve));
    try {
      const p = await partnerWith(`http://127.0.0.1:${(upgrading.address() as AddressInfo).port}/hooks`, { events: ['order.created'] });
      const o = await createOrder(s, 'onramp', {}, { as: p });
      await idle();
      let [d] = await deliveries(`order=${o.reference}`);
      expect(d.status).toBe('retrying');
      expect(d.attempts[0]).toMatchObject({ http_status: 101, error: 'HTTP 101' });
      await advance(s, '5s');
      await idle();
      [d] = await deliveries(`order=${o.reference}`);
      expect(d.attempts.map((a: { http_status: number }) => a.http_status)).toEqual([101, 101]);
    } finally {
      await new Promise((resolve) => upgrading.close(resolve));
    }
  });

  it('sends no more after a manual retry succeeds beside an attempt that failed (its retry is dropped)', async () => {
    // The first attempt fails while the manual retry is still waiting for its answer; the failure
    // scheduled a retry, and the success, ending last, left it: a third attempt of a delivered event.
    const seen: number[] = [];
    const staged = createHttpServer((req, res) => {
      const n = seen.push(Date.now());
      req.resume();
      setTimeout(() => res.writeHead(n === 1 ? 500 : 200).end(), n === 1 ? 300 : 700);
    });
    await new Promise<void>((resolve) => staged.listen(0, '127.0.0.1', resolve));
    try {
      const p = await partnerWith(`http://127.0.0.1:${(staged.address() as AddressInfo).port}/hooks`, { events: ['order.created'] });
      const o = await createOrder(s, 'onramp', {}, { as: p });
      await vi.waitFor(() => expect(seen).toHaveLength(1));
      const [inFlight] = await deliveries(`order=${o.reference}`);
      const manual = await s.control('POST', `/sandbox/webhooks/deliveries/${inFlight.id}/retry`);
      expect(manual.status, manual.text).toBe(200);
      await idle();
      let [d] = await deliveries(`order=${o.reference}`);
      expect(d.attempts.map((a: { http_status: number }) => a.http_status)).toEqual([500, 200]);
      expect([d.status, d.next_attempt_at]).toEqual(['succeeded', null]);
      await advance(s, '1h');
      await idle();
      [d] = await deliveries(`order=${o.reference}`);
      expect(d.attempts).toHaveLength(2);
      expect(seen).toHaveLength(2);
    } finally {
      staged.closeAllConnections();
      await new Promise((resolve) => staged.close(resolve));
    }
  });

  it('keeps one retry schedule when a manual retry runs beside an attempt in flight', async () => {
    // Each failing attempt scheduled the next and dropped the handle of the timer set before it:
    // two automatic attempts fired at the same instant, 9 in all, and the 5 m step was skipped.
    const r = await receiver();
    r.behave((_req, index) => (index === 0 ? 'hang' : '500'));
    const p = await partnerWith(r, { events: ['order.created'] });
    const o = await createOrder(s, 'onramp', {}, { as: p });
    await vi.waitFor(() => expect(r.received).toHaveLength(1));
    const [inFlight] = await deliveries(`order=${o.reference}`);
    const manual = await s.control('POST', `/sandbox/webhooks/deliveries/${inFlight.id}/retry`);
    expect(manual.status, manual.text).toBe(200);
    await idle(); // the first attempt times out (1 s)
    await advance(s, '28h');
    const [d] = await deliveries(`order=${o.reference}`);
    expect(d.status).toBe('failed');
    const automatic = d.attempts.filter((a: { manual: boolean }) => !a.manual);
    expect(automatic).toHaveLength(8);
    expect(d.attempts).toHaveLength(9);
    const gaps = automatic
      .slice(1)
      .map((a: { virtual_at: string }, i: number) => Date.parse(a.virtual_at) - Date.parse(automatic[i].virtual_at));
    expect(gaps).toEqual([5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000]);
  });

  it('marks a delivery failed after eight attempts over about 27.5 h, with every attempt logged', async () => {
    const r = await receiver();
    r.behave(() => '500');
    const p = await partnerWith(r, { events: ['order.created'] });
    const o = await createOrder(s, 'onramp', {}, { as: p });
    await idle();
    await advance(s, '28h'); // one jump runs the whole schedule
    const [d] = await deliveries(`order=${o.reference}`);
    expect(d.status).toBe('failed');
    expect(d.attempts).toHaveLength(8);
    expect(d.next_attempt_at).toBeNull();
    const span = Date.parse(d.attempts[7].virtual_at) - Date.parse(d.attempts[0].virtual_at);
    expect(span).toBe(5_000 + 300_000 + 1_800_000 + 7_200_000 + 18_000_000 + 36_000_000 + 36_000_000);
    await advance(s, '1d');
    await idle();
    expect(r.received.filter((x) => x.body.data.reference === o.reference)).toHaveLength(8);
  });

  it('sends later attempts to a webhook_url changed mid-retry', async () => {
    const first = await receiver();
    first.behave(() => '500');
    const second = await receiver('/new');
    const p = await partnerWith(first, { events: ['order.created'] });
    const o = await createOrder(s, 'onramp', {}, { as: p });
    await idle();
    await s.control('PATCH', `/sandbox/partners/${p.clientId}`, { webhook_url: second.url });
    await advance(s, '5s');
    await idle();
    const [d] = await deliveries(`order=${o.reference}`);
    expect(d.status).toBe('succeeded');
    expect(d.attempts.map((a: any) => a.url)).toEqual([first.url, second.url]);
    const got = second.received.find((x) => x.body.data.reference === o.reference)!;
    expect(got.path).toBe('/new');
    expect(verifies(got, p.clientId, p.keys.test.encryption_key)).toBe(true);
  });

  it('never lets one hanging receiver delay other partners', async () => {
    // The hung receiver's deliveries stay in flight for the whole timeout: long enough that the
    // others arrive inside it even on a loaded machine.
    const slow = await startTestServer({ webhookTimeoutMs: 5_000 });
    try {
      const hang = await receiver();
      hang.behave(() => 'hang');
      const hung = await slow.createPartner({ webhook_url: hang.url, events: ['order.created'] });
      const oks = await Promise.all(
        [1, 2, 3, 4].map(async () => {
          const r = await receiver();
          return { r, p: await slow.createPartner({ webhook_url: r.url, events: ['order.created'] }) };
        }),
      );
      for (let i = 0; i < 5; i++) await createOrder(slow, 'onramp', {}, { as: hung });
      for (const { p } of oks) await createOrder(slow, 'onramp', {}, { as: p });
      // Every other partner's delivery arrives while the five to the hung receiver are still in
      // flight (they end only at the timeout): none waited behind them.
      await vi.waitFor(
        () => {
          for (const { r } of oks) expect(r.received).toHaveLength(1);
        },
        { timeout: 4_000, interval: 20 },
      );
      const log = (await slow.control('GET', '/sandbox/webhooks/deliveries')).body.data;
      expect(log.filter((d: any) => d.status === 'succeeded')).toHaveLength(4);
      expect(log.filter((d: any) => d.client_id === hung.clientId && d.in_flight)).toHaveLength(5);
      await slow.sandbox.dispatcher.idle();
    } finally {
      await slow.close();
    }
  });
});

describe('subscriptions', () => {
  it('delivers only subscribed events, and records the others on the timeline', async () => {
    const r = await receiver();
    const p = await partnerWith(r, { events: ['order.created', 'order.settled'] });
    const ref = await runOrder(p, 'swap');
    expect(r.received.filter((x) => x.body.data.reference === ref).map((x) => x.body.event)).toEqual(['order.created', 'order.settled']);
    expect(await deliveries(`order=${ref}`)).toHaveLength(2);
    const order = await getOrder(s, ref, { as: p });
    expect(eventsOf(order)).toHaveLength(5);
    const skipped = order.timeline.filter((t: any) => t.group === 'webhook' && t.details.delivery === 'skipped: event not subscribed');
    expect(skipped.map((t: any) => t.event)).toEqual(['order.asset_locked', 'order.assigned', 'order.asset_released']);
  });

  it('queues nothing without a webhook_url, but keeps the events on the timeline', async () => {
    const p = await partnerWith(null);
    const ref = await runOrder(p, 'onramp');
    expect(await deliveries(`order=${ref}`)).toHaveLength(0);
    const order = await getOrder(s, ref, { as: p });
    expect(eventsOf(order)).toHaveLength(5);
    expect(
      order.timeline.filter((t: any) => t.group === 'webhook').every((t: any) => t.details.delivery === 'skipped: no webhook_url'),
    ).toBe(true);
  });
});

describe('delivery log and controls (CONTRACT §4)', () => {
  it('filters by partner, order, event and status, newest first', async () => {
    const r = await receiver();
    const p = await partnerWith(r);
    const ref = await runOrder(p, 'onramp');
    const byPartner = await deliveries(`client_id=${p.clientId}`);
    expect(byPartner).toHaveLength(5);
    expect(byPartner[0].event).toBe('order.settled');
    expect(await deliveries(`order=${ref}&event=order.assigned`)).toHaveLength(1);
    expect(await deliveries(`client_id=${p.clientId}&status=failed`)).toHaveLength(0);
    const one = await s.control('GET', `/sandbox/webhooks/deliveries/${byPartner[0].id}`);
    expect(one.body.data.raw_body).toBe(r.received.find((x) => x.body.event === 'order.settled' && x.body.data.reference === ref)!.rawBody);
    expect((await s.control('GET', '/sandbox/webhooks/deliveries?status=nope')).status).toBe(422);
    expect((await s.control('GET', '/sandbox/webhooks/deliveries/dlv_nope')).status).toBe(404);
  });

  it('retries by hand now, counting svc-attempt across manual attempts', async () => {
    const r = await receiver();
    r.behave((_req, i) => (i === 0 ? '500' : 'ok'));
    const p = await partnerWith(r, { events: ['order.created'] });
    const o = await createOrder(s, 'onramp', {}, { as: p });
    await idle();
    const [d] = await deliveries(`order=${o.reference}`);
    const res = await s.control('POST', `/sandbox/webhooks/deliveries/${d.id}/retry`);
    expect(res.body.data).toMatchObject({ status: 'succeeded', next_attempt_at: null });
    expect(res.body.data.attempts.map((a: any) => [a.number, a.manual])).toEqual([
      [1, false],
      [2, true],
    ]);
    expect(r.received.at(-1)!.headers['svc-attempt']).toBe('2');
    await advance(s, '1h');
    await idle();
    expect(r.received.filter((x) => x.body.data.reference === o.reference)).toHaveLength(2);
  });

  it('sends any signed event on demand, for an order or with overridden data, to another URL', async () => {
    const r = await receiver();
    const other = await receiver('/elsewhere');
    const p = await partnerWith(r);
    const o = await createOrder(s, 'offramp', {}, { as: p });
    await idle();
    const res = await s.control('POST', '/sandbox/webhooks/send', {
      client_id: p.clientId,
      event: 'order.expired',
      order: o.reference,
      data: { status: 'expired' },
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ status: 'succeeded', source: 'manual', event: 'order.expired' });
    const got = r.received.at(-1)!;
    expect(got.body).toMatchObject({ event: 'order.expired', data: { reference: o.reference, status: 'expired', type: 'offramp' } });
    expect(verifies(got, p.clientId, p.keys.test.encryption_key)).toBe(true);
    const away = await s.control('POST', '/sandbox/webhooks/send', {
      client_id: p.clientId,
      event: 'order.settled',
      data: { reference: 'ORDX' },
      url: other.url,
      environment: 'live',
    });
    expect(away.body.data.status).toBe('succeeded');
    expect(verifies(other.received[0]!, p.clientId, p.keys.live.encryption_key)).toBe(true);
    expect((await s.control('POST', '/sandbox/webhooks/send', { client_id: p.clientId, event: 'order.nope' })).status).toBe(422);
    expect((await s.control('POST', '/sandbox/webhooks/send', { client_id: p.clientId, event: 'order.settled' })).status).toBe(400);
    expect((await s.control('POST', '/sandbox/webhooks/send', { client_id: 'nobody', event: 'order.settled', data: {} })).status).toBe(404);
    expect(
      (await s.control('POST', '/sandbox/webhooks/send', { client_id: p.clientId, event: 'order.settled', order: 'ORDNOPE' })).status,
    ).toBe(404);
  });

  it('sends order.created on demand with status awaiting_user_payment, whatever status the order is in (spec §6.2)', async () => {
    const r = await receiver();
    const p = await partnerWith(r);
    const o = await createOrder(s, 'onramp', {}, { as: p });
    await s.control('POST', `/sandbox/orders/${o.reference}/payin`, {});
    await advance(s, '2h');
    await idle();
    expect((await s.control('GET', `/sandbox/orders/${o.reference}`)).body.data.status).toBe('completed');
    const res = await s.control('POST', '/sandbox/webhooks/send', { client_id: p.clientId, event: 'order.created', order: o.reference });
    expect(res.status).toBe(200);
    const got = r.received.at(-1)!;
    expect(got.body).toMatchObject({ event: 'order.created', data: { reference: o.reference, status: 'awaiting_user_payment' } });
    (await s.openapi()).checkWebhook(got.body);
    // every other event carries the order's status as it stands
    await s.control('POST', '/sandbox/webhooks/send', { client_id: p.clientId, event: 'order.settled', order: o.reference });
    expect(r.received.at(-1)!.body.data.status).toBe('completed');
  });

  it('keeps deliveries when partner settings change', async () => {
    const r = await receiver();
    const p = await partnerWith(r, { events: ['order.created'] });
    const o = await createOrder(s, 'onramp', {}, { as: p });
    await idle();
    await s.control('PATCH', `/sandbox/partners/${p.clientId}`, { events: [], webhook_url: null, kyb_status: 'rejected' });
    expect(await deliveries(`order=${o.reference}`)).toHaveLength(1);
  });
});

describe('verifyWebhook (partner helper)', () => {
  it('accepts real deliveries and rejects tampered, stale, mis-pathed or unsigned ones', async () => {
    const r = await receiver();
    const p = await partnerWith(r, { events: ['order.created'] });
    await createOrder(s, 'onramp', {}, { as: p });
    await idle();
    const got = r.received.at(-1)!;
    const opts = { clientId: p.clientId, encryptionKey: p.keys.test.encryption_key, path: got.path };
    const ok = verifyWebhook(got.rawBody, got.headers, opts);
    expect(ok).toMatchObject({ event: 'order.created', deliveryId: got.headers['svc-delivery-id'], attempt: 1 });
    expect(verifyWebhook(Buffer.from(got.rawBody), new Headers(got.headers as Record<string, string>), opts).event).toBe('order.created');
    const reason = (f: () => unknown) => {
      try {
        f();
        return 'accepted';
      } catch (e) {
        return (e as WebhookVerificationError).reason;
      }
    };
    expect(reason(() => verifyWebhook(got.rawBody.replace('order.created', 'order.settled'), got.headers, opts))).toBe('bad_signature');
    expect(reason(() => verifyWebhook(JSON.stringify(JSON.parse(got.rawBody), null, 1), got.headers, opts))).toBe('bad_signature');
    expect(reason(() => verifyWebhook(got.rawBody, got.headers, { ...opts, path: '/hooks/ramp' }))).toBe('bad_signature');
    expect(reason(() => verifyWebhook(got.rawBody, got.headers, { ...opts, now: Date.now() + 600_000 }))).toBe('stale_timestamp');
    expect(reason(() => verifyWebhook(got.rawBody, { ...got.headers, 'svc-signature': undefined }, opts))).toBe('missing_signature');
    expect(reason(() => verifyWebhook(got.rawBody, got.headers, { ...opts, encryptionKey: p.keys.live.encryption_key }))).toBe(
      'bad_signature',
    );
  });
});

describe('nothing lost (property)', () => {
  it('logs every emitted subscribed event as succeeded or failed with all its attempts, whatever the faults', async () => {
    const behaviours = ['ok', '500', 'reset', 'hang', 'slow'] as const;
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.constantFrom(...behaviours), { minLength: 1, maxLength: 12 }),
        fc.subarray([...WEBHOOK_EVENTS], { minLength: 1 }),
        fc.array(
          fc.record({
            type: fc.constantFrom<OrderType>('onramp', 'offramp', 'swap'),
            path: fc.constantFrom('happy', 'expire', 'cancel', 'fail'),
          }),
          { minLength: 1, maxLength: 3 },
        ),
        async (faults, events, plans) => {
          const t = await startTestServer({ webhookTimeoutMs: 100 });
          const r = await startReceiver();
          try {
            r.behave((_req, i) => faults[i % faults.length]!);
            const p = await t.createPartner({ webhook_url: r.url, events });
            const refs: string[] = [];
            for (const plan of plans) {
              const o = await createOrder(t, plan.type, {}, { as: p });
              refs.push(o.reference);
              if (plan.path === 'happy') await t.control('POST', `/sandbox/orders/${o.reference}/payin`, {});
              if (plan.path === 'cancel') await t.signed('PATCH', `/v1/orders/${o.reference}/cancel`, {}, { as: p });
              if (plan.path === 'fail') {
                await t.control('POST', `/sandbox/orders/${o.reference}/payout`, { outcome: 'fail' });
                await t.control('POST', `/sandbox/orders/${o.reference}/payin`, {});
              }
            }
            // One jump past the whole retry schedule: attempts finish at their own virtual time.
            await t.sandbox.dispatcher.idle();
            const jump = await t.control('POST', '/sandbox/clock/advance', { duration: '2d' });
            expect(jump.status).toBe(200);
            await t.sandbox.dispatcher.idle();
            const log = t.sandbox.dispatcher.list();
            let emitted = 0;
            for (const ref of refs) {
              const order = t.sandbox.orders.detail(ref);
              const subscribed = order.timeline!.filter((e) => e.group === 'webhook' && events.includes(e.event as never));
              emitted += subscribed.length;
              for (const e of subscribed) {
                const matches = log.filter((d) => d.order === ref && d.event === e.event);
                expect(matches).toHaveLength(1);
                const d = matches[0]!;
                expect(['succeeded', 'failed']).toContain(d.status);
                if (d.status === 'failed') expect(d.attempts).toHaveLength(8);
                if (d.status === 'succeeded') expect(d.attempts.at(-1)!.http_status).toBe(200);
                expect(d.attempts.slice(0, -1).every((a) => a.error !== null)).toBe(true);
              }
            }
            expect(log).toHaveLength(emitted);
            // every attempt reached the receiver, except refused ones (none here)
            expect(r.received.length).toBe(log.reduce((n, d) => n + d.attempts.length, 0));
          } finally {
            await r.close();
            await t.close();
          }
        },
      ),
      seeded({ numRuns: 12 }),
    );
  }, 120_000);
});
