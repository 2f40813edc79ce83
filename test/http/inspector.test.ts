import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { signedHeaders } from '../support/sign';
import { legs } from '../support/orders';
import { startTestServer, type TestServer } from '../support/server';

// CONTRACT §11: the request inspector.
let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s.close());
beforeEach(async () => {
  await s.control('DELETE', '/sandbox/requests');
});

const requests = async (query = '') => {
  const res = await s.control('GET', `/sandbox/requests${query}`);
  expect(res.status).toBe(200);
  return res.body.data as any[];
};

describe('request inspector (CONTRACT §11)', () => {
  it('records a signed request with its partner, environment, auth, status and answer, newest first', async () => {
    await s.pub('GET', '/v1/fiat-currencies');
    await s.signed('GET', '/v1/networks');
    const [latest, first] = await requests();
    expect(latest).toMatchObject({
      method: 'GET',
      path: '/v1/networks',
      status: 200,
      client_id: s.demo.clientId,
      environment: 'test',
      auth: 'secret',
      id: expect.stringMatching(/^req_/),
      at: expect.any(String),
      virtual_at: new Date(s.sandbox.clock.now()).toISOString(),
    });
    expect(latest.duration_ms).toBeGreaterThanOrEqual(0);
    expect(JSON.parse(latest.response_body).data.length).toBeGreaterThan(0);
    expect(first).toMatchObject({ path: '/v1/fiat-currencies', auth: 'public' });
  });

  it('never shows key material: authorization and signature are masked', async () => {
    await s.signed('POST', '/v1/orders/quote', { from: { currency: 'NGN', amount: 5000 }, to: legs.onramp.to });
    await s.pub('GET', '/v1/networks');
    const text = JSON.stringify(await requests());
    for (const key of Object.values(s.demo.keys.test)) expect(text).not.toContain(key);
    const [pub, signed] = await requests();
    expect(signed.headers.authorization).toMatch(/^Bearer sk_test_\*{4}\w{4}$/);
    expect(signed.headers['svc-signature']).toBe('sha256=****');
    expect(signed.headers['svc-client-id']).toBe(s.demo.clientId);
    expect(pub.headers.authorization).toMatch(/^Bearer pk_test_\*{4}/);
  });

  it('shows the signature hint next to a failed request, with its code and message', async () => {
    const path = '/v1/orders?status=pending';
    const headers = signedHeaders({
      clientId: s.demo.clientId,
      keys: s.demo.keys.test,
      method: 'GET',
      path,
      signedPath: '/orders?status=pending',
    });
    const res = await s.request('GET', path, { headers });
    expect(res.status).toBe(401);
    const [entry] = await requests('?status=401');
    expect(entry).toMatchObject({
      auth: 'failed',
      status: 401,
      code: 'E_UNAUTHORIZED',
      client_id: s.demo.clientId,
      hint: res.headers.get('svc-sandbox-hint'),
    });
    expect(entry.hint).toContain('prefix=');
    expect(entry.message).toMatch(/signature/i);
  });

  it('keeps both bodies, cut at 4 KiB', async () => {
    const body = JSON.stringify({ from: { currency: 'NGN', amount: 5000 }, to: legs.onramp.to, pad: 'x'.repeat(6000) });
    await s.signed('POST', '/v1/orders/quote', body);
    const [entry] = await requests();
    expect(entry.request_body).toBe(body.slice(0, 4096));
    expect(entry.response_body).toContain('"quote_id"');
  });

  it('filters by partner, environment, status or class, path, and limit', async () => {
    const other = await s.createPartner();
    await s.signed('GET', '/v1/networks', undefined, { as: other });
    await s.signed('GET', '/v1/networks', undefined, { env: 'live' });
    await s.signed('GET', '/v1/orders/ORDNOPE');
    await s.request('GET', '/v1/networks');
    expect((await requests(`?client_id=${other.clientId}`)).map((r) => r.client_id)).toEqual([other.clientId]);
    expect((await requests('?environment=live')).map((r) => r.environment)).toEqual(['live']);
    expect((await requests('?status=404')).map((r) => r.path)).toEqual(['/v1/orders/ORDNOPE']);
    expect((await requests('?status=4xx')).length).toBe(2);
    expect((await requests('?path=ORDNOPE')).length).toBe(1);
    expect((await requests('?limit=2')).length).toBe(2);
    expect((await s.control('GET', '/sandbox/requests?limit=5000')).status).toBe(422);
    expect((await s.control('GET', '/sandbox/requests?status=abc')).status).toBe(422);
  });

  it('reads one entry, clears them all, and does not record the control API', async () => {
    await s.signed('GET', '/v1/networks');
    await s.control('GET', '/sandbox/clock');
    const all = await requests();
    expect(all.map((r) => r.path)).toEqual(['/v1/networks']);
    expect((await s.control('GET', `/sandbox/requests/${all[0].id}`)).body.data).toEqual(all[0]);
    expect((await s.control('GET', '/sandbox/requests/req_nope')).status).toBe(404);
    expect((await s.control('DELETE', '/sandbox/requests')).body.data).toEqual({ cleared: 1 });
    expect(await requests()).toEqual([]);
  });
});

describe('request inspector ring buffer', () => {
  it('keeps only the last --inspect-limit requests', async () => {
    const small = await startTestServer({ inspectLimit: 3 });
    try {
      for (const path of [
        '/v1/networks',
        '/v1/fiat-currencies',
        '/v1/crypto-currencies',
        '/v1/networks/base-sepolia',
        '/v1/institutions?fiat=NGN',
      ]) {
        await small.signed('GET', path);
      }
      const kept = (await small.control('GET', '/sandbox/requests')).body.data.map((r: any) => r.path);
      expect(kept).toEqual(['/v1/institutions?fiat=NGN', '/v1/networks/base-sepolia', '/v1/crypto-currencies']);
    } finally {
      await small.close();
    }
  });
});
