import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { harErrors } from '../support/har';
import { legs } from '../support/orders';
import { signedHeaders } from '../support/sign';
import { startTestServer, type TestServer } from '../support/server';

// CONTRACT §19: the request inspector as HAR 1.2.
let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s.close());
beforeEach(async () => {
  await s.control('DELETE', '/sandbox/requests');
});

/** GET /sandbox/requests.har, through the test client (so checked against the OpenAPI document too). */
async function har(query = '') {
  const res = await s.request('GET', `/sandbox/requests.har${query}`);
  expect(res.status).toBe(200);
  return res;
}

describe('GET /sandbox/requests.har (CONTRACT §19)', () => {
  it('is a valid HAR 1.2 attachment of the recorded requests, oldest first', async () => {
    await s.signed('GET', '/v1/networks');
    await s.pub('GET', '/v1/fiat-currencies');
    const res = await har();
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.headers.get('content-disposition')).toBe('attachment; filename="ramp-sandbox-requests.har"');
    expect(harErrors(res.body)).toEqual([]);
    expect(res.body.log).toMatchObject({ version: '1.2', creator: { name: 'ramp-sandbox' } });
    expect(res.body.log.entries.map((e: any) => e.request.url)).toEqual([`${s.url}/v1/networks`, `${s.url}/v1/fiat-currencies`]);
    const [first, second] = res.body.log.entries;
    expect(Date.parse(first.startedDateTime)).toBeLessThanOrEqual(Date.parse(second.startedDateTime));
  });

  it('shows a signed call with its body, its answer and its signature masked', async () => {
    const body = JSON.stringify({ from: { currency: 'NGN', amount: 5000 }, to: legs.onramp.to });
    const sent = await s.signed('POST', '/v1/orders/quote', body);
    expect(sent.status).toBe(200);
    const { body: doc, text } = await har();
    expect(harErrors(doc)).toEqual([]);
    const [entry] = doc.log.entries;
    const header = (list: Array<{ name: string; value: string }>, name: string) => list.find((h) => h.name === name)?.value;
    expect(entry.request).toMatchObject({
      method: 'POST',
      url: `${s.url}/v1/orders/quote`,
      postData: { mimeType: 'application/json', text: body },
      bodySize: Buffer.byteLength(body),
    });
    expect(header(entry.request.headers, 'svc-signature')).toBe('sha256=****');
    expect(header(entry.request.headers, 'authorization')).toMatch(/^Bearer sk_test_\*{4}\w{4}$/);
    expect(header(entry.request.headers, 'svc-client-id')).toBe(s.demo.clientId);
    expect(entry.response).toMatchObject({
      status: 200,
      statusText: 'OK',
      content: { mimeType: 'application/json; charset=utf-8', text: sent.text, size: Buffer.byteLength(sent.text) },
    });
    expect(header(entry.response.headers, 'x-request-id')).toBe(sent.headers.get('x-request-id'));
    expect(entry._inspector).toMatchObject({
      auth: 'secret',
      client_id: s.demo.clientId,
      environment: 'test',
      id: expect.stringMatching(/^req_/),
    });
    expect(entry.time).toBe(entry.timings.wait);
    // Key material never appears, whatever field it could hide in.
    for (const key of Object.values(s.demo.keys.test)) expect(text).not.toContain(key);
  });

  it('keeps a refused signature with its hint, code and the svc-sandbox-hint header', async () => {
    const path = '/v1/orders?status=pending';
    const headers = signedHeaders({
      clientId: s.demo.clientId,
      keys: s.demo.keys.test,
      method: 'GET',
      path,
      signedPath: '/orders?status=pending',
    });
    const refused = await s.request('GET', path, { headers });
    expect(refused.status).toBe(401);
    const { body: doc } = await har('?status=401');
    expect(harErrors(doc)).toEqual([]);
    const [entry] = doc.log.entries;
    expect(entry.request.queryString).toEqual([{ name: 'status', value: 'pending' }]);
    expect(entry.response.status).toBe(401);
    expect(entry.response.headers).toContainEqual({ name: 'svc-sandbox-hint', value: refused.headers.get('svc-sandbox-hint') });
    expect(entry._inspector).toMatchObject({ auth: 'failed', code: 'E_UNAUTHORIZED', hint: refused.headers.get('svc-sandbox-hint') });
  });

  it('keeps a secret-looking query value redacted, in a URL that is still a URI', async () => {
    await s.signed('GET', '/v1/institutions?fiat=NGN&token=admin-secret-123&note={a|b}');
    const { body: doc, text } = await har();
    expect(harErrors(doc)).toEqual([]);
    const [entry] = doc.log.entries;
    expect(entry.request.url).toBe(`${s.url}/v1/institutions?fiat=NGN&token=%5Bredacted%5D&note=%7Ba%7Cb%7D`);
    expect(entry.request.queryString).toEqual([
      { name: 'fiat', value: 'NGN' },
      { name: 'token', value: '[redacted]' },
      { name: 'note', value: '{a|b}' },
    ]);
    expect(text).not.toContain('admin-secret-123');
  });

  it('masks a partner key sent in a query, a path or a body, as it masks the Bearer key', async () => {
    // CONTRACT §11: key material never appears. A key under `secret_key`, `encryption_key` or any
    // name, or as a path segment (echoed by the 404), was kept whole in the inspector and its HAR.
    const { secret_key: sk, encryption_key: enc } = s.demo.keys.test;
    await s.signed('GET', `/v1/institutions?fiat=NGN&secret_key=${sk}&encryption_key=${enc}&x=${enc}`);
    await s.signed('GET', `/v1/orders/${sk}`);
    await s.signed('POST', '/v1/orders/quote', {
      from: { currency: 'NGN', amount: 50_000 },
      to: { currency: 'USDT', network: 'base-sepolia' },
      note: sk,
    });
    const { text } = await har();
    expect(text).not.toContain(sk);
    expect(text).not.toContain(enc);
    expect(text).not.toContain(sk.slice(8, -4));
    expect(text).toContain(`secret_key=%5Bredacted%5D`);
    expect(text).toContain(`x=enc_test_****${enc.slice(-4)}`);
    expect(text).toContain(`/v1/orders/sk_test_****${sk.slice(-4)}`);
    const listed = JSON.stringify((await s.control('GET', '/sandbox/requests?limit=10')).body.data);
    expect(listed).not.toContain(sk);
    expect(listed).not.toContain(enc);
  });

  it('says when a body is the first 4,096 characters of a longer one', async () => {
    const body = JSON.stringify({ from: { currency: 'NGN', amount: 5000 }, to: legs.onramp.to, pad: 'x'.repeat(6000) });
    await s.signed('POST', '/v1/orders/quote', body);
    const { body: doc } = await har();
    const [entry] = doc.log.entries;
    expect(harErrors(doc)).toEqual([]);
    expect(entry.request.postData.text).toBe(body.slice(0, 4096));
    expect(entry.request.bodySize).toBe(body.length);
    expect(entry.request.postData.comment).toMatch(/first 4096 characters/);
  });

  it('takes the inspector’s filters, and refuses a bad one with the error envelope', async () => {
    await s.signed('GET', '/v1/networks');
    await s.signed('GET', '/v1/orders/ORDNOPE');
    await s.signed('GET', '/v1/fiat-currencies');
    expect((await har('?status=4xx')).body.log.entries.map((e: any) => e.response.status)).toEqual([404]);
    expect((await har('?path=currencies')).body.log.entries.map((e: any) => e.request.url)).toEqual([`${s.url}/v1/fiat-currencies`]);
    // limit: the newest N, still oldest first
    expect((await har('?limit=2')).body.log.entries.map((e: any) => new URL(e.request.url).pathname)).toEqual([
      '/v1/orders/ORDNOPE',
      '/v1/fiat-currencies',
    ]);
    for (const query of ['?status=abc', '?limit=0', '?environment=prod']) {
      const res = await s.request('GET', `/sandbox/requests.har${query}`);
      expect(res.status).toBe(422);
      expect(res.body).toMatchObject({ status: false, code: 'E_VALIDATION_ERROR' });
    }
  });

  it('is an empty log when nothing was recorded', async () => {
    const { body: doc } = await har();
    expect(harErrors(doc)).toEqual([]);
    expect(doc.log.entries).toEqual([]);
    // The schema check is not vacuous: an entry missing its parts is refused.
    expect(harErrors({ log: { ...doc.log, entries: [{ startedDateTime: 'now' }] } })).not.toEqual([]);
  });
});

describe('GET /sandbox/requests.har with an admin token (CONTRACT §4)', () => {
  it('needs the token like every control route', async () => {
    const guarded = await startTestServer({ adminToken: 'har-admin-token' });
    try {
      await guarded.signed('GET', '/v1/networks');
      const refused = await guarded.request('GET', '/sandbox/requests.har');
      expect(refused.status).toBe(401);
      expect(refused.body).toMatchObject({ status: false, code: 'E_UNAUTHORIZED' });
      const res = await guarded.request('GET', '/sandbox/requests.har', { headers: { authorization: 'Bearer har-admin-token' } });
      expect(res.status).toBe(200);
      expect(harErrors(res.body)).toEqual([]);
      expect(res.body.log.entries).toHaveLength(1);
    } finally {
      await guarded.close();
    }
  });
});
