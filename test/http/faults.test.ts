import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { signedHeaders } from '../support/sign';
import { createOrder, customer, EVM_ADDRESS, legs } from '../support/orders';
import { startTestServer, type TestServer } from '../support/server';

// CONTRACT §12: fault injection on /v1.
let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s.close());
beforeEach(async () => {
  await s.control('DELETE', '/sandbox/faults');
});

const addFault = async (body: Record<string, unknown>) => {
  const res = await s.control('POST', '/sandbox/faults', body);
  expect(res.status, res.text).toBe(200);
  return res.body.data;
};

describe('fault injection (CONTRACT §12)', () => {
  it('answers an injected 5xx with E_SANDBOX_FAULT, and the inspector shows the fault', async () => {
    const fault = await addFault({ path: '/v1/networks', error: { status: 503 } });
    expect(fault).toMatchObject({ id: expect.stringMatching(/^flt_/), phase: 'before', remaining: null, applied: 0 });
    const res = await s.signed('GET', '/v1/networks');
    expect(res.status).toBe(503);
    expect(res.body).toEqual({ status: false, code: 'E_SANDBOX_FAULT', message: `injected fault ${fault.id}` });
    expect((await s.signed('GET', '/v1/fiat-currencies')).status).toBe(200);
    const [entry] = (await s.control('GET', '/sandbox/requests?path=/v1/networks')).body.data;
    expect(entry).toMatchObject({ status: 503, fault: fault.id, code: 'E_SANDBOX_FAULT' });
  });

  it('answers an injected 429 as E_RATE_LIMITED with Retry-After', async () => {
    await addFault({ method: 'get', path: '/v1/**', error: { status: 429 } });
    const res = await s.pub('GET', '/v1/networks');
    expect(res.status).toBe(429);
    expect(res.body.code).toBe('E_RATE_LIMITED');
    expect(res.headers.get('retry-after')).toBe('1');
  });

  it('applies to the next `times` requests, then is removed', async () => {
    await addFault({ path: '/v1/networks', error: { status: 500 }, times: 2 });
    expect((await s.signed('GET', '/v1/networks')).status).toBe(500);
    expect((await s.control('GET', '/sandbox/faults')).body.data[0]).toMatchObject({ remaining: 1, applied: 1 });
    expect((await s.signed('GET', '/v1/networks')).status).toBe(500);
    expect((await s.signed('GET', '/v1/networks')).status).toBe(200);
    expect((await s.control('GET', '/sandbox/faults')).body.data).toEqual([]);
  });

  it('matches by partner, environment, method and path glob', async () => {
    const other = await s.createPartner();
    await addFault({ client_id: other.clientId, environment: 'live', method: 'GET', path: '/v1/networks/*', error: { status: 502 } });
    expect((await s.signed('GET', '/v1/networks/base-sepolia', undefined, { as: other })).status).toBe(200);
    expect((await s.signed('GET', '/v1/networks/ethereum', undefined, { as: other, env: 'live' })).status).toBe(502);
    expect((await s.signed('GET', '/v1/networks/ethereum', undefined, { env: 'live' })).status).toBe(200);
    expect((await s.signed('GET', '/v1/networks', undefined, { as: other, env: 'live' })).status).toBe(200);
  });

  it('adds latency in wall time', async () => {
    await addFault({ path: '/v1/fiat-currencies', latency_ms: 150 });
    const started = performance.now();
    const res = await s.pub('GET', '/v1/fiat-currencies');
    expect(res.status).toBe(200);
    expect(performance.now() - started).toBeGreaterThanOrEqual(140);
  });

  it('drops the connection without an answer', async () => {
    await addFault({ path: '/v1/networks', drop: 1, times: 1 });
    const headers = signedHeaders({ clientId: s.demo.clientId, keys: s.demo.keys.test, method: 'GET', path: '/v1/networks' });
    await expect(fetch(`${s.url}/v1/networks`, { headers })).rejects.toThrow();
    const [entry] = (await s.control('GET', '/sandbox/requests?path=/v1/networks')).body.data;
    expect(entry).toMatchObject({ status: 0, fault: expect.stringMatching(/^flt_/) });
    expect((await s.signed('GET', '/v1/networks')).status).toBe(200);
  });

  it('leaves authentication first: a request that fails auth gets its 401', async () => {
    await addFault({ error: { status: 500 } });
    const res = await s.request('GET', '/v1/networks', {
      headers: { 'svc-client-id': s.demo.clientId, authorization: 'Bearer pk_test_nope' },
    });
    expect(res.status).toBe(401);
    expect((await s.control('GET', '/sandbox/clock')).status).toBe(200); // never /sandbox
  });

  it('phase "after" carries the request out and loses the answer: the retry with the same merchant_reference is a 409', async () => {
    await addFault({ method: 'POST', path: '/v1/orders', phase: 'after', error: { status: 500 }, times: 1 });
    const body = { ...legs.onramp, recipient: { address: EVM_ADDRESS }, customer, merchant_reference: 'lost-response-1' };
    const first = await s.signed('POST', '/v1/orders', body);
    expect(first.status).toBe(500);
    expect(first.body.code).toBe('E_SANDBOX_FAULT');
    const retry = await s.signed('POST', '/v1/orders', body);
    expect(retry.status).toBe(409);
    const mine = (await s.signed('GET', '/v1/orders?per_page=100')).body.data.filter(
      (o: any) => o.merchant_reference === 'lost-response-1',
    );
    expect(mine).toHaveLength(1);
  });

  it('refuses a fault that is not one (422), lists, removes one, and reset removes all', async () => {
    expect((await s.control('POST', '/sandbox/faults', { path: '/v1/x' })).status).toBe(422);
    expect((await s.control('POST', '/sandbox/faults', { path: '/sandbox/clock', error: { status: 500 } })).body.message).toMatch(
      /^path: /,
    );
    expect((await s.control('POST', '/sandbox/faults', { error: { status: 418 } })).status).toBe(422);
    expect((await s.control('POST', '/sandbox/faults', { error: { status: 500, rate: 2 } })).status).toBe(422);
    const a = await addFault({ latency_ms: 1 });
    const b = await addFault({ latency_ms: { min: 1, max: 2 } });
    expect((await s.control('GET', '/sandbox/faults')).body.data.map((f: any) => f.id)).toEqual([a.id, b.id]);
    expect((await s.control('DELETE', `/sandbox/faults/${a.id}`)).body.data.id).toBe(a.id);
    expect((await s.control('DELETE', `/sandbox/faults/${a.id}`)).status).toBe(404);
    await s.control('POST', '/sandbox/reset');
    expect((await s.control('GET', '/sandbox/faults')).body.data).toEqual([]);
    await createOrder(s, 'onramp');
  });

  it('never reads a trailing slash after a collection as the collection: DELETE /sandbox/faults/ removes nothing', async () => {
    const fault = await addFault({ path: '/v1/networks', latency_ms: 1 });
    // `/sandbox/faults/` is `/sandbox/faults/{id}` with an empty id, not `DELETE /sandbox/faults` (all).
    for (const path of ['/sandbox/faults/', '/sandbox/faults/.', '/sandbox/faults/%2e', '/SANDBOX/Faults/']) {
      const res = await s.control('DELETE', path);
      expect(res.status, path).toBe(404);
      expect(res.body).toEqual({
        status: false,
        code: 'E_NOTFOUND',
        message: expect.stringMatching(/^Route not found: DELETE \/sandbox\/faults\//i),
      });
    }
    expect((await s.control('GET', '/sandbox/faults')).body.data).toEqual([expect.objectContaining({ id: fault.id })]);
    // The same rule on /v1: `/v1/orders/` is an order with an empty reference, not the list.
    const orders = await s.signed('GET', '/v1/orders/');
    expect(orders.status).toBe(404);
    expect(orders.body.code).toBe('E_NOTFOUND');
    // Where no item route follows, one trailing slash is still ignored.
    expect((await s.request('GET', '/health/')).status).toBe(200);
    expect(
      (
        await s.signed('POST', '/v1/orders/quote/', {
          from: { currency: 'NGN', amount: 50_000 },
          to: { currency: 'USDT', network: 'base-sepolia' },
        })
      ).status,
    ).toBe(200);
  });

  it('refuses a path glob over 300 characters (422), and takes one of 300', async () => {
    const long = `/v1/${'a'.repeat(297)}`;
    const res = await s.control('POST', '/sandbox/faults', { path: long, error: { status: 500 } });
    expect(res.status, res.text).toBe(422);
    expect(res.body).toMatchObject({ code: 'E_VALIDATION_ERROR', message: 'path: must be at most 300 characters' });
    await addFault({ path: long.slice(0, 300), error: { status: 500 } });
  });

  it('answers a request normally, and at once, whatever the glob: a 20-star glob against a 4,000-character reference', async () => {
    const fault = await addFault({ path: `/v1/orders/${'*A'.repeat(19)}*B`, error: { status: 503 } });
    const missing = await s.signed('GET', `/v1/orders/${'A'.repeat(4000)}`);
    expect(missing.body.code).not.toBe('E_SANDBOX_FAULT');
    expect(missing.status).toBeLessThan(500);
    const hit = await s.signed('GET', `/v1/orders/${'A'.repeat(3999)}B`);
    expect(hit.status).toBe(503);
    expect(hit.body.message).toBe(`injected fault ${fault.id}`);
  });
});

describe('faults in a restored state (CONTRACT §13: the same rules as POST /sandbox/faults)', () => {
  const withFault = async (mutate: (doc: any) => void) => {
    const doc = (await s.control('GET', '/sandbox/state')).body.data;
    mutate(doc);
    return doc;
  };

  it('refuses a fault status, rate, latency or glob the route would refuse (422, state unchanged)', async () => {
    const fault = await addFault({ path: '/v1/networks', error: { status: 503 }, times: 5 });
    const before = (await s.control('GET', '/sandbox/state')).body.data;
    const cases: Array<[(doc: any) => void, RegExp]> = [
      [(d) => (d.faults.faults[0].error.status = 999), /^faults\.faults\.0\.error\.status: /],
      [(d) => (d.faults.faults[0].error.status = 42), /^faults\.faults\.0\.error\.status: /],
      [(d) => (d.faults.faults[0].error.rate = 2), /^faults\.faults\.0\.error\.rate: /],
      [(d) => (d.faults.faults[0].latency_ms = { min: 10, max: 1 }), /^faults\.faults\.0\.latency_ms/],
      [(d) => (d.faults.faults[0].path = `/v1/${'a'.repeat(297)}`), /^faults\.faults\.0\.path: must be at most 300 characters$/],
      [(d) => (d.faults.faults[0].path = '/sandbox/**'), /^faults\.faults\.0\.path: /],
      [(d) => (d.faults.faults[0].times = 0), /^faults\.faults\.0\.times: /],
      [(d) => (d.faults.faults[0].remaining = 6), /^faults\.faults\.0\.remaining: /],
      [(d) => (d.faults.serial = 0), /^faults\.serial: is 0, behind fault id /],
    ];
    for (const [mutate, message] of cases) {
      const res = await s.control('PUT', '/sandbox/state', await withFault(mutate));
      expect(res.status, res.text).toBe(422);
      expect(res.body).toMatchObject({ status: false, code: 'E_VALIDATION_ERROR' });
      expect(res.body.message).toMatch(message);
      expect((await s.control('GET', '/sandbox/state')).body.data).toEqual(before);
    }
    expect((await s.signed('GET', '/v1/networks')).body.message).toBe(`injected fault ${fault.id}`);
  });

  it('keeps fault ids unique after a restore: new ids continue after the restored serial', async () => {
    const a = await addFault({ path: '/v1/networks', latency_ms: 1 });
    const b = await addFault({ path: '/v1/fiat-currencies', latency_ms: 1 });
    const doc = (await s.control('GET', '/sandbox/state')).body.data;
    await s.control('DELETE', '/sandbox/faults');
    expect((await s.control('PUT', '/sandbox/state', doc)).status).toBe(200);
    const c = await addFault({ latency_ms: 1 });
    expect(new Set([a.id, b.id, c.id]).size).toBe(3);
    expect((await s.control('GET', '/sandbox/faults')).body.data.map((f: any) => f.id)).toEqual([a.id, b.id, c.id]);
  });
});
