import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readEventStream } from '../../src/cli/event-stream';
import { startReceiver, type Receiver } from '../support/receiver';
import { startTestServer, type TestServer } from '../support/server';

// CONTRACT §17: GET /sandbox/tail, the detailed live feed `ramp-sandbox tail` reads.
const TOKEN = 'tail-token';
let s: TestServer;
let receiver: Receiver;
beforeAll(async () => {
  [s, receiver] = await Promise.all([startTestServer({ adminToken: TOKEN }), startReceiver()]);
});
afterAll(async () => {
  await Promise.all([s?.close(), receiver?.close()]);
});

const watching = () => s.sandbox.bus.has('request.recorded') || s.sandbox.bus.has('delivery.changed');

/** Opens the tail and gives its events one at a time (the first, `ready`, already read). */
async function openTail(query = '') {
  const abort = new AbortController();
  const res = await fetch(`${s.url}/sandbox/tail${query}`, { headers: { authorization: `Bearer ${TOKEN}` }, signal: abort.signal });
  (await s.openapi()).check('GET', `/sandbox/tail${query}`, res.status, res.headers.get('content-type'), '');
  const events = readEventStream(res.body!);
  const next = async () => {
    const { value, done } = await events.next();
    if (done) return undefined;
    return { event: value.event, data: JSON.parse(value.data) };
  };
  const ready = await next();
  return { res, next, ready, close: () => abort.abort() };
}

describe('GET /sandbox/tail (CONTRACT §17)', () => {
  it('streams each /v1 request and each finished webhook attempt, and watches nothing once closed', async () => {
    expect(watching()).toBe(false);
    const tail = await openTail();
    expect(tail.res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(tail.ready).toEqual({ event: 'ready', data: { requests: true, deliveries: true, client_id: null } });
    expect(watching()).toBe(true);

    await s.signed('GET', '/v1/networks');
    expect(await tail.next()).toMatchObject({
      event: 'request',
      data: {
        type: 'request',
        method: 'GET',
        path: '/v1/networks',
        status: 200,
        client_id: s.demo.clientId,
        environment: 'test',
        auth: 'secret',
      },
    });

    // A refused signature carries the hint the response header gave.
    const refused = await s.signed('GET', '/v1/networks?x=1', undefined, { headers: { 'svc-signature': `sha256=${'0'.repeat(64)}` } });
    expect(refused.status).toBe(401);
    const hinted = await tail.next();
    expect(hinted).toMatchObject({
      event: 'request',
      data: { status: 401, code: 'E_UNAUTHORIZED', auth: 'failed', hint: refused.headers.get('svc-sandbox-hint') },
    });
    expect(hinted!.data.hint).toMatch(/^prefix=.*; body_sha256=[0-9a-f]{64}; body_length=0$/);

    const delivery = await s.controlApi.sendWebhook({
      body: { event: 'order.expired', data: { reference: 'ORDTAIL' }, url: receiver.url },
    });
    expect(await tail.next()).toEqual({
      event: 'delivery',
      data: expect.objectContaining({
        type: 'delivery',
        id: delivery.id,
        event: 'order.expired',
        order: 'ORDTAIL',
        attempt: 1,
        http_status: 200,
        ok: true,
        url: receiver.url,
        client_id: s.demo.clientId,
      }),
    });

    tail.close();
    await expect.poll(watching, { timeout: 15_000 }).toBe(false);
  });

  it('filters by kind and partner', async () => {
    const other = await s.createPartner({ name: 'Other' });
    const tail = await openTail(`?deliveries=false&client_id=${other.clientId}`);
    expect(tail.ready!.data).toEqual({ requests: true, deliveries: false, client_id: other.clientId });
    await s.signed('GET', '/v1/networks'); // the demo partner's: not this tail's
    await s.controlApi.sendWebhook({
      body: { client_id: other.clientId, event: 'order.expired', data: { reference: 'ORDX' }, url: receiver.url },
    });
    await s.signed('GET', '/v1/fiat-currencies', undefined, { as: other });
    // Events arrive in order: had the others been sent, they would come first.
    expect(await tail.next()).toMatchObject({ event: 'request', data: { path: '/v1/fiat-currencies', client_id: other.clientId } });
    tail.close();
  });

  it('never shows the admin token, whatever query name or encoding carries it (issue item 7)', async () => {
    const tail = await openTail('?deliveries=false');
    try {
      await s.signed('GET', `/v1/networks?t=${TOKEN}&x=tail%2Dtoken`);
      await s.signed('GET', `/v1/orders/${TOKEN}`);
      const first = await tail.next();
      expect(first).toMatchObject({ event: 'request', data: { path: '/v1/networks?t=[redacted]&x=[redacted]' } });
      const second = await tail.next();
      expect(second).toMatchObject({ event: 'request', data: { path: '/v1/orders/[redacted]', status: 404 } });
      expect(JSON.stringify([first, second])).not.toContain(TOKEN);
    } finally {
      tail.close();
    }
  });

  it('refuses a bad query with the error envelope (422), and a missing token (401)', async () => {
    for (const query of ['?requests=maybe', '?requests=false&deliveries=false', '?client_id=', `?client_id=${'x'.repeat(300)}`]) {
      const res = await s.request('GET', `/sandbox/tail${query}`, { headers: { authorization: `Bearer ${TOKEN}` } });
      expect(res.status, query).toBe(422);
      expect(res.body).toMatchObject({ status: false, code: 'E_VALIDATION_ERROR' });
    }
    const anonymous = await s.request('GET', '/sandbox/tail');
    expect(anonymous.status).toBe(401);
    expect(watching()).toBe(false);
  });

  it('ends its open streams when the sandbox closes its streams (server close, graceful stop)', async () => {
    const tail = await openTail();
    s.sandbox.closeStreams();
    expect(await tail.next()).toBeUndefined();
    expect(watching()).toBe(false);
  });
});
