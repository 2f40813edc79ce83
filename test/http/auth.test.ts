import { createHash, createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixedWallClock } from '../../src/clock';
import { signedHeaders } from '../support/sign';
import { startTestServer, type TestServer } from '../support/server';

const QUOTE = '/v1/orders/quote';
let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s.close());

const headersFor = (over: Partial<Parameters<typeof signedHeaders>[0]> = {}) =>
  signedHeaders({ clientId: s.demo.clientId, keys: s.demo.keys.test, method: 'GET', path: '/v1/networks', ...over });

describe('secret key with HMAC (spec §5.2)', () => {
  it('accepts a correctly signed read', async () => {
    const res = await s.request('GET', '/v1/networks', { headers: headersFor() });
    expect(res.status).toBe(200);
    expect(res.body.status).toBe(true);
  });

  it('signs the path with its query string', async () => {
    const path = '/v1/institutions?fiat=NGN';
    const res = await s.request('GET', path, { headers: headersFor({ path }) });
    expect(res.status).toBe(200);
  });

  it('signs the exact body bytes', async () => {
    const body = '{"to": {"currency":"USDT","network":"ethereum-sepolia"},  "from":{"currency":"NGN","amount":50000}}';
    const res = await s.request('POST', QUOTE, { headers: headersFor({ method: 'POST', path: QUOTE, body }), body });
    expect(res.status).toBe(200);
  });

  // spec §5.2 known mistakes: each is rejected with 401 E_UNAUTHORIZED
  it('rejects a signature made with the secret key instead of enc_*', async () => {
    const res = await s.request('GET', '/v1/networks', { headers: headersFor({ signingKey: s.demo.keys.test.secret_key }) });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ status: false, code: 'E_UNAUTHORIZED', message: expect.stringMatching(/secret key/) });
  });

  it('rejects a signed path without /v1', async () => {
    const res = await s.request('GET', '/v1/networks', { headers: headersFor({ signedPath: '/networks' }) });
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('E_UNAUTHORIZED');
    expect(res.body.message).toMatch(/omits \/v1/);
  });

  it('rejects a signed path without the query string', async () => {
    const path = '/v1/institutions?fiat=NGN';
    const res = await s.request('GET', path, { headers: headersFor({ path, signedPath: '/v1/institutions' }) });
    expect(res.status).toBe(401);
    expect(res.body.message).toMatch(/query string/);
  });

  it('rejects a re-serialised body (key order changed)', async () => {
    const body = '{"b":1,"a":2}';
    const res = await s.request('POST', QUOTE, {
      headers: headersFor({ method: 'POST', path: QUOTE, body, signedBody: '{"a":2,"b":1}' }),
      body,
    });
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('E_UNAUTHORIZED');
  });

  it('names re-serialisation when the signed body is the compacted JSON', async () => {
    const body = '{ "a": 1 }';
    const res = await s.request('POST', QUOTE, { headers: headersFor({ method: 'POST', path: QUOTE, body, signedBody: '{"a":1}' }), body });
    expect(res.status).toBe(401);
    expect(res.body.message).toMatch(/re-serialised/);
  });

  it('rejects a timestamp in seconds', async () => {
    const ts = String(Math.floor(Date.now() / 1000));
    const res = await s.request('GET', '/v1/networks', { headers: headersFor({ timestamp: ts }) });
    expect(res.status).toBe(401);
    expect(res.body.message).toMatch(/milliseconds/);
  });

  it('rejects a signature computed over seconds while sending milliseconds', async () => {
    const now = Date.now();
    const res = await s.request('GET', '/v1/networks', {
      headers: headersFor({ timestamp: now, signedTimestamp: String(Math.floor(now / 1000)) }),
    });
    expect(res.status).toBe(401);
    expect(res.body.message).toMatch(/seconds/);
  });

  it('rejects timestamps outside ±300 s of the wall clock, accepts inside', async () => {
    for (const [offset, status] of [
      [-301_000, 401],
      [301_000, 401],
      [-299_000, 200],
      [299_000, 200],
    ] as const) {
      const res = await s.request('GET', '/v1/networks', { headers: headersFor({ timestamp: Date.now() + offset }) });
      expect(res.status, `offset ${offset}`).toBe(status);
    }
  });

  it('rejects the signature of another environment key', async () => {
    const res = await s.request('GET', '/v1/networks', { headers: headersFor({ signingKey: s.demo.keys.live.encryption_key }) });
    expect(res.status).toBe(401);
    expect(res.body.message).toMatch(/live encryption key/);
  });

  it('rejects upper-case hex and a missing sha256= prefix', async () => {
    const h = headersFor();
    for (const sig of [h['svc-signature']!.toUpperCase().replace('SHA256=', 'sha256='), h['svc-signature']!.slice(7)]) {
      const res = await s.request('GET', '/v1/networks', { headers: { ...h, 'svc-signature': sig } });
      expect(res.status).toBe(401);
      expect(res.body.code).toBe('E_UNAUTHORIZED');
    }
  });

  it('rejects missing svc-timestamp or svc-signature', async () => {
    for (const drop of ['svc-timestamp', 'svc-signature']) {
      const h = headersFor();
      delete h[drop];
      const res = await s.request('GET', '/v1/networks', { headers: h });
      expect(res.status).toBe(401);
      expect(res.body.message).toMatch(new RegExp(drop));
    }
  });

  // CONTRACT §9: the signature is checked over the bytes received. .NET's StreamWriter with
  // Encoding.UTF8 writes a BOM first; the partner signs it with the rest.
  it('verifies a body that starts with a UTF-8 BOM over the bytes sent, BOM included, then accepts it', async () => {
    const body = '\uFEFF{"from":{"currency":"NGN","amount":50000},"to":{"currency":"USDT","network":"ethereum-sepolia"}}';
    const res = await s.request('POST', QUOTE, { headers: headersFor({ method: 'POST', path: QUOTE, body }), body });
    expect(res.status).toBe(200);
    expect(res.body.status).toBe(true);
  });

  it('names a BOM the signature does not cover, and hints over the body actually sent', async () => {
    const body = '\uFEFF{"x":1}';
    const h = headersFor({ method: 'POST', path: QUOTE, body, signedBody: '{"x":1}' });
    const res = await s.request('POST', QUOTE, { headers: h, body });
    expect(res.status).toBe(401);
    expect(res.body.message).toMatch(
      /^Invalid signature: the body sent starts with a UTF-8 byte order mark \(EF BB BF\) the signature does not cover/,
    );
    const hint = res.headers.get('svc-sandbox-hint')!;
    expect(hint).toContain(`body_sha256=${createHash('sha256').update(body).digest('hex')}; body_length=${Buffer.byteLength(body)}`);
  });

  it('checks a body that is not UTF-8 over its bytes: a correct signature gets 415, not 401', async () => {
    const bytes = Buffer.from('caf\xe9 \xff', 'latin1'); // Latin-1, not valid UTF-8
    const ts = String(Date.now());
    const keys = s.demo.keys.test;
    const prefix = `${s.demo.clientId}|${ts}|POST|${QUOTE}|`;
    const signature = createHmac('sha256', keys.encryption_key).update(prefix).update(bytes).digest('hex');
    const res = await fetch(s.url + QUOTE, {
      method: 'POST',
      headers: {
        'svc-client-id': s.demo.clientId,
        authorization: `Bearer ${keys.secret_key}`,
        'svc-timestamp': ts,
        'svc-signature': `sha256=${signature}`,
        'content-type': 'text/plain',
      },
      body: bytes,
    });
    expect(res.status).toBe(415);
    expect(((await res.json()) as { code: string }).code).toBe('E_BADREQUEST');
  });

  it('gives svc-sandbox-hint with the computed canonical prefix and body hash, never a key', async () => {
    const body = '{"x":1}';
    const h = headersFor({ method: 'POST', path: `${QUOTE}?x=1`, body, signingKey: 'enc_test_wrongwrongwrongwrong' });
    const res = await s.request('POST', `${QUOTE}?x=1`, { headers: { ...h }, body });
    expect(res.status).toBe(401);
    const hint = res.headers.get('svc-sandbox-hint')!;
    const m = /^prefix=([^;]+); body_sha256=([0-9a-f]{64}); body_length=(\d+)$/.exec(hint)!;
    expect(m).not.toBeNull();
    expect(decodeURIComponent(m[1]!)).toBe(`${s.demo.clientId}|${h['svc-timestamp']}|POST|${QUOTE}?x=1|`);
    expect(m[2]).toBe(createHash('sha256').update(body).digest('hex'));
    expect(Number(m[3])).toBe(Buffer.byteLength(body));
    for (const key of Object.values(s.demo.keys.test)) expect(hint).not.toContain(key);
  });
});

describe('keys and client id (spec §5, CONTRACT §3)', () => {
  it('answers the alternative body for a missing or unknown client id', async () => {
    const h = headersFor();
    delete h['svc-client-id'];
    const missing = await s.request('GET', '/v1/networks', { headers: h });
    expect(missing.status).toBe(401);
    expect(missing.body).toEqual({ status: 'failed', message: expect.any(String), data: null });
    const unknown = await s.request('GET', '/v1/networks', { headers: { ...h, 'svc-client-id': 'nobody' } });
    expect(unknown.status).toBe(401);
    expect(unknown.body).toEqual({ status: 'failed', message: expect.any(String), data: null });
  });

  it('rejects a missing, malformed or unknown bearer key', async () => {
    for (const auth of [undefined, 'Basic abc', 'Bearer sk_test_doesnotexist000000000']) {
      const h = headersFor();
      if (auth === undefined) delete h.authorization;
      else h.authorization = auth;
      const res = await s.request('GET', '/v1/networks', { headers: h });
      expect(res.status).toBe(401);
      expect(res.body.code).toBe('E_UNAUTHORIZED');
    }
  });

  it('rejects the encryption key sent as a bearer token', async () => {
    const h = headersFor();
    h.authorization = `Bearer ${s.demo.keys.test.encryption_key}`;
    const res = await s.request('GET', '/v1/networks', { headers: h });
    expect(res.status).toBe(401);
    expect(res.body.message).toMatch(/signing only/);
  });

  it("rejects another partner's key with this client id", async () => {
    const other = await s.createPartner();
    const res = await s.pub('GET', '/v1/networks', { as: { clientId: s.demo.clientId, keys: other.keys } });
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('E_UNAUTHORIZED');
  });

  it('accepts the public key on read routes without HMAC', async () => {
    const res = await s.pub('GET', '/v1/fiat-currencies');
    expect(res.status).toBe(200);
  });

  it('takes the environment from the key: test sees testnets, live sees mainnets', async () => {
    const test = await s.pub('GET', '/v1/networks', { env: 'test' });
    const live = await s.signed('GET', '/v1/networks', undefined, { env: 'live' });
    expect(test.body.data.every((n: any) => n.is_testnet)).toBe(true);
    expect(live.body.data.every((n: any) => !n.is_testnet)).toBe(true);
    const liveId = live.body.data[0].identifier;
    expect((await s.pub('GET', `/v1/networks/${liveId}`, { env: 'test' })).status).toBe(404);
    expect((await s.pub('GET', `/v1/networks/${liveId}`, { env: 'live' })).status).toBe(200);
  });

  it('stops accepting the old key set at once after rotation', async () => {
    const p = await s.createPartner();
    expect((await s.signed('GET', '/v1/networks', undefined, { as: p })).status).toBe(200);
    const rotated = await s.control('POST', `/sandbox/partners/${p.clientId}/keys`, { environment: 'test' });
    expect(rotated.status).toBe(200);
    const old = await s.signed('GET', '/v1/networks', undefined, { as: p });
    expect(old.status).toBe(401);
    expect(old.body.message).toMatch(/revoked/);
    const oldPublic = await s.pub('GET', '/v1/networks', { as: p });
    expect(oldPublic.status).toBe(401);
    const fresh = { clientId: p.clientId, keys: { ...p.keys, test: rotated.body.data.keys } };
    expect((await s.signed('GET', '/v1/networks', undefined, { as: fresh })).status).toBe(200);
    // the live set is untouched
    expect((await s.signed('GET', '/v1/networks', undefined, { as: p, env: 'live' })).status).toBe(200);
  });
});

describe('IP whitelist (spec §5.3)', () => {
  it('blocks callers outside a non-empty whitelist with 403 E_IP_BLOCKED', async () => {
    const p = await s.createPartner({ ip_whitelist: ['10.0.0.0/8', '192.168.1.7'] });
    const res = await s.signed('GET', '/v1/networks', undefined, { as: p });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ status: false, code: 'E_IP_BLOCKED', message: expect.any(String) });
    expect((await s.pub('GET', '/v1/networks', { as: p })).status).toBe(403);
  });

  it('lets in addresses and CIDR blocks on the list, and follows updates', async () => {
    const p = await s.createPartner({ ip_whitelist: ['127.0.0.0/8'] });
    expect((await s.signed('GET', '/v1/networks', undefined, { as: p })).status).toBe(200);
    await s.control('PATCH', `/sandbox/partners/${p.clientId}`, { ip_whitelist: ['203.0.113.9'] });
    expect((await s.signed('GET', '/v1/networks', undefined, { as: p })).status).toBe(403);
    await s.control('PATCH', `/sandbox/partners/${p.clientId}`, { ip_whitelist: ['127.0.0.1', '::1'] });
    expect((await s.signed('GET', '/v1/networks', undefined, { as: p })).status).toBe(200);
    await s.control('PATCH', `/sandbox/partners/${p.clientId}`, { ip_whitelist: [] });
    expect((await s.signed('GET', '/v1/networks', undefined, { as: p })).status).toBe(200);
  });

  it('rejects a malformed whitelist entry with 422 naming it', async () => {
    const res = await s.control('POST', '/sandbox/partners', { ip_whitelist: ['127.0.0.1', '10.0.0.0/99'] });
    expect(res.status).toBe(422);
    expect(res.body.message).toMatch(/^ip_whitelist\.1: /);
  });
});

describe('rate limit (CONTRACT §3)', () => {
  it('answers 429 with Retry-After when the bucket is empty, and refills on the wall clock', async () => {
    const wall = fixedWallClock(Date.now());
    const r = await startTestServer({ wall, rateLimit: { capacity: 5, refillPerSecond: 1 } });
    try {
      const call = () =>
        r.request('GET', '/v1/networks', {
          headers: signedHeaders({
            clientId: r.demo.clientId,
            keys: r.demo.keys.test,
            method: 'GET',
            path: '/v1/networks',
            timestamp: wall.now(),
          }),
        });
      for (let i = 0; i < 5; i++) expect((await call()).status).toBe(200);
      const limited = await call();
      expect(limited.status).toBe(429);
      expect(limited.body.code).toBe('E_RATE_LIMITED');
      expect(limited.headers.get('retry-after')).toBe('1');
      wall.advance(1000);
      expect((await call()).status).toBe(200);
      // buckets are per key: the live key still has its own
      const live = await r.request('GET', '/v1/networks', {
        headers: signedHeaders({
          clientId: r.demo.clientId,
          keys: r.demo.keys.live,
          method: 'GET',
          path: '/v1/networks',
          timestamp: wall.now(),
        }),
      });
      expect(live.status).toBe(200);
    } finally {
      await r.close();
    }
  });
});
