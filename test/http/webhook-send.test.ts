import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startReceiver, type Receiver } from '../support/receiver';
import { startTestServer, type TestServer } from '../support/server';

// POST /sandbox/webhooks/send: client_id may be left out (what `ramp-sandbox trigger` relies on).
let s: TestServer;
let receiver: Receiver;
beforeAll(async () => {
  [s, receiver] = await Promise.all([startTestServer(), startReceiver()]);
});
afterAll(async () => {
  await Promise.all([s?.close(), receiver?.close()]);
});

describe('POST /sandbox/webhooks/send without client_id', () => {
  it("sends for the order's partner when an order is named", async () => {
    const partner = await s.createPartner({ webhook_url: receiver.url });
    const order = await s.controlApi.sandboxCreateOrder({
      body: { client_id: partner.clientId, from: { currency: 'NGN', amount: 50_000 }, to: { currency: 'USDT', network: 'base-sepolia' } },
    });
    const delivery = await s.controlApi.sendWebhook({ body: { event: 'order.created', order: order.reference } });
    expect(delivery).toMatchObject({ client_id: partner.clientId, order: order.reference, status: 'succeeded' });
  });

  it('sends for the demo partner when no order is named', async () => {
    const delivery = await s.controlApi.sendWebhook({ body: { event: 'order.expired', data: { reference: 'ORDX' }, url: receiver.url } });
    expect(delivery).toMatchObject({ client_id: s.demo.clientId, order: 'ORDX', status: 'succeeded' });
  });

  it('refuses a delivery sent to the control API itself, so a webhook_url at /sandbox/webhooks/send is no loop', async () => {
    // Each delivery's body is a valid send request: every delivery made another, until the
    // process ran out of file descriptors (thousands a second).
    const partner = await s.createPartner({ webhook_url: `${s.url}/sandbox/webhooks/send` });
    const before = (await s.control('GET', '/sandbox/webhooks/deliveries')).body.meta.total;
    const sent = await s.control('POST', '/sandbox/webhooks/send', {
      client_id: partner.clientId,
      event: 'order.expired',
      data: { reference: 'ORDLOOP' },
    });
    expect(sent.status, sent.text).toBe(200);
    expect(sent.body.data).toMatchObject({ status: 'retrying' });
    expect(sent.body.data.attempts[0]).toMatchObject({ http_status: 403 });
    expect(sent.body.data.attempts[0].response_excerpt).toMatch(
      /A webhook delivery \(svc-delivery-id dlv_\w+\) may not call the control API/,
    );
    await s.sandbox.dispatcher.idle();
    expect((await s.control('GET', '/sandbox/webhooks/deliveries')).body.meta.total).toBe(before + 1);
  });

  it('answers 409, not "Delivery sent", when a reset drops the delivery while its attempt runs (a retry too)', async () => {
    // A sandbox of its own, whose attempts time out after 1 s.
    const t = await startTestServer({ webhookTimeoutMs: 1_000 });
    const hanging = await startReceiver();
    hanging.behave(() => 'hang');
    try {
      const sending = t.control('POST', '/sandbox/webhooks/send', {
        event: 'order.expired',
        data: { reference: 'ORDGONE' },
        url: hanging.url,
      });
      await vi.waitFor(() => expect(hanging.received).toHaveLength(1));
      expect((await t.control('POST', '/sandbox/reset')).status).toBe(200);
      const sent = await sending; // the attempt times out (1 s) after the reset
      expect([sent.status, sent.body.code]).toEqual([409, 'E_CONFLICT']);
      expect(sent.body.message).toMatch(
        /^The delivery log was cleared \(POST \/sandbox\/reset, or PUT \/sandbox\/state\) while delivery dlv_\w+ was being sent: it is no longer in the log$/,
      );
      expect((await t.control('GET', '/sandbox/webhooks/deliveries')).body.meta.total).toBe(0);

      const logged = await t.controlApi.sendWebhook({
        body: { event: 'order.expired', data: { reference: 'ORDGONE' }, url: hanging.url },
      });
      const retrying = t.control('POST', `/sandbox/webhooks/deliveries/${logged.id}/retry`);
      await vi.waitFor(() => expect(hanging.received).toHaveLength(3));
      await t.control('POST', '/sandbox/reset');
      const retried = await retrying;
      expect([retried.status, retried.body.code]).toEqual([409, 'E_CONFLICT']);
    } finally {
      await Promise.all([hanging.close(), t.close()]);
    }
  });

  it('still refuses an empty client_id (422 naming the field) and an unknown order (404)', async () => {
    const empty = await s.control('POST', '/sandbox/webhooks/send', { client_id: '', event: 'order.created', data: {} });
    expect(empty.status).toBe(422);
    expect(empty.body.message).toMatch(/^client_id: /);
    const unknown = await s.control('POST', '/sandbox/webhooks/send', { event: 'order.created', order: 'ORDNOPE' });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ status: false, code: 'E_NOTFOUND' });
  });
});

describe('order.created on demand (CONTRACT §19: it always carries status awaiting_user_payment)', () => {
  it('refuses a data.status that says otherwise, with or without an order, and sends nothing', async () => {
    const order = await s.controlApi.sandboxCreateOrder({
      body: { client_id: s.demo.clientId, from: { currency: 'NGN', amount: 50_000 }, to: { currency: 'USDT', network: 'base-sepolia' } },
    });
    const before = receiver.received.length;
    for (const body of [
      { event: 'order.created', order: order.reference, url: receiver.url, data: { status: 'completed' } },
      { event: 'order.created', url: receiver.url, data: { reference: 'ORDX', status: 'completed' } },
    ]) {
      const res = await s.control('POST', '/sandbox/webhooks/send', body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body).toEqual({
        status: false,
        code: 'E_VALIDATION_ERROR',
        message: 'data.status: order.created always carries status awaiting_user_payment (spec §6.2)',
      });
    }
    expect(receiver.received.length).toBe(before);
  });

  it('gives a data without status that status, and keeps the other fields as given', async () => {
    const delivery = await s.controlApi.sendWebhook({
      body: { event: 'order.created', url: receiver.url, data: { reference: 'ORDY', amount: 5 } },
    });
    expect(delivery.status).toBe('succeeded');
    const sent = receiver.received.at(-1)!.body;
    expect(sent).toEqual({ event: 'order.created', data: { reference: 'ORDY', amount: 5, status: 'awaiting_user_payment' } });
    // and another event's data is still sent exactly as given
    await s.controlApi.sendWebhook({
      body: { event: 'order.expired', url: receiver.url, data: { reference: 'ORDY', status: 'completed' } },
    });
    expect(receiver.received.at(-1)!.body.data).toEqual({ reference: 'ORDY', status: 'completed' });
  });
});
