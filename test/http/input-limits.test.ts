import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signedHeaders } from '../support/sign';
import { EVM_ADDRESS, accountName, createOrder, customer, legs } from '../support/orders';
import { startTestServer, type TestServer } from '../support/server';

// CONTRACT §9: limits on input. Each case here broke the sandbox or its data before.
let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s.close());

/** `{"a":{"a":…1…}}` nested `levels` deep, built as text (JSON.stringify itself would overflow). */
const nested = (levels: number) => `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;
const withField = (body: object, field: string, json: string) => `${JSON.stringify(body).slice(0, -1)},"${field}":${json}}`;
const orderBody = { ...legs.onramp, recipient: { address: EVM_ADDRESS }, customer };

async function orderCount(): Promise<number> {
  const res = await s.signed('GET', '/v1/orders?per_page=100');
  expect(res.status).toBe(200);
  return res.body.meta.total;
}

describe('deep JSON (CONTRACT §9: at most 64 levels, refused before anything is stored)', () => {
  it('refuses order metadata nested 8,000 levels with 422 naming the field, and stores nothing', async () => {
    const before = await orderCount();
    const res = await s.signed('POST', '/v1/orders', withField(orderBody, 'metadata', nested(8000)));
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ status: false, code: 'E_VALIDATION_ERROR', message: 'metadata: nested deeper than 64 levels' });
    expect(await orderCount()).toBe(before);
    // the partner's list and every order still render
    const list = await s.signed('GET', '/v1/orders?per_page=100');
    for (const o of list.body.data) expect((await s.signed('GET', `/v1/orders/${o.reference}`)).status).toBe(200);
  });

  it('refuses a __proto__ key anywhere in a body as malformed JSON, and stores nothing', async () => {
    // The prototype-poisoning refusal co-body made (@hapi/bourne), kept now the body parses after
    // the signature check over its bytes (CONTRACT §9). Written as text: JSON.stringify drops it.
    const before = await orderCount();
    const res = await s.signed('POST', '/v1/orders', withField(orderBody, 'metadata', '{"a":{"__proto__":{"polluted":true}}}'));
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ status: false, code: 'E_BADREQUEST' });
    expect(res.body.message).toMatch(/forbidden prototype property/);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(await orderCount()).toBe(before);
  });

  it('accepts metadata nested up to the limit and echoes it back', async () => {
    const res = await s.signed('POST', '/v1/orders', withField(orderBody, 'metadata', nested(63)));
    expect(res.status).toBe(200);
    let depth = 0;
    for (let m = res.body.data.metadata; typeof m === 'object'; m = m.a) depth++;
    expect(depth).toBe(63);
    expect((await s.signed('GET', `/v1/orders/${res.body.data.reference}`)).status).toBe(200);
  });

  it('refuses deep bodies on every route that stores or echoes input', async () => {
    const cases: Array<[string, string, string]> = [
      ['/v1/orders/quote', 'from', withField({ to: legs.onramp.to }, 'from', nested(100))],
      ['/sandbox/partners', 'name', withField({ kyb_status: 'approved' }, 'name', nested(5000))],
      [
        '/sandbox/webhooks/send',
        'data',
        withField({ client_id: s.demo.clientId, event: 'order.created', url: 'http://127.0.0.1:9/x' }, 'data', nested(5000)),
      ],
      ['/sandbox/clock/advance', 'body', `[${'['.repeat(200)}${']'.repeat(200)}]`],
    ];
    for (const [path, field, body] of cases) {
      const res = path.startsWith('/v1')
        ? await s.signed('POST', path, body)
        : await s.request('POST', path, { headers: { 'content-type': 'application/json' }, body });
      expect(res.status, `${path} ${res.text}`).toBe(422);
      expect(res.body.message, path).toBe(`${field}: nested deeper than 64 levels`);
    }
    const partners = await s.control('GET', `/sandbox/partners/${s.demo.clientId}`);
    expect(partners.status).toBe(200);
  });

  it('checks authentication before the depth (auth → shape)', async () => {
    const res = await s.request('POST', '/v1/orders', {
      headers: { 'content-type': 'application/json' },
      body: withField(orderBody, 'metadata', nested(100)),
    });
    expect(res.status).toBe(401);
  });
});

describe('Content-Type (CONTRACT §9: the signature covers the raw bytes whatever the type)', () => {
  /** node:http, because fetch adds a Content-Type to every string body. */
  function rawPost(path: string, body: string, headers: Record<string, string>): Promise<{ status: number; body: any }> {
    const url = new URL(s.url + path);
    return new Promise((resolve, reject) => {
      const req = httpRequest(
        url,
        { method: 'POST', headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) } },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (c: string) => (text += c));
          res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text) }));
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  }

  it('answers a correctly signed POST without Content-Type 415 saying what to send, not 401', async () => {
    const body = JSON.stringify({ from: { currency: 'NGN', amount: 5000 }, to: legs.onramp.to });
    const headers = signedHeaders({ clientId: s.demo.clientId, keys: s.demo.keys.test, method: 'POST', path: '/v1/orders/quote', body });
    delete (headers as Record<string, string>)['content-type'];
    const res = await rawPost('/v1/orders/quote', body, headers);
    expect(res.status).toBe(415);
    expect(res.body.code).toBe('E_BADREQUEST');
    expect(res.body.message).toMatch(/Content-Type must be application\/json.*none was sent/);
  });

  it('still answers 401 to a wrongly signed POST without Content-Type', async () => {
    const body = '{"a":1}';
    const headers = signedHeaders({
      clientId: s.demo.clientId,
      keys: s.demo.keys.test,
      method: 'POST',
      path: '/v1/orders/quote',
      body,
      signedBody: '{"a":2}',
    });
    delete (headers as Record<string, string>)['content-type'];
    expect((await rawPost('/v1/orders/quote', body, headers)).status).toBe(401);
  });

  it('answers 415 on the control API too', async () => {
    const res = await rawPost('/sandbox/clock/advance', '{"duration":"1m"}', {});
    expect(res.status).toBe(415);
  });

  // A header that is not one media type: koa-bodyparser read no body for it, so the signature
  // was checked over '' (401) and a control route acted on an empty body (a full pay-in).
  const notOneType = ['*/*', 'application/*', 'json', 'application/json, application/json', 'text/plain, application/json'];

  it.each(notOneType)('answers a correctly signed POST with Content-Type %j 415 naming it, not 401', async (type) => {
    const body = JSON.stringify({ from: { currency: 'NGN', amount: 5000 }, to: legs.onramp.to });
    const headers = signedHeaders({ clientId: s.demo.clientId, keys: s.demo.keys.test, method: 'POST', path: '/v1/orders/quote', body });
    const res = await rawPost('/v1/orders/quote', body, { ...headers, 'content-type': type });
    expect(res.status).toBe(415);
    expect(res.body).toEqual({ status: false, code: 'E_BADREQUEST', message: expect.stringContaining(`(got ${type})`) });
  });

  it('refuses a pay-in whose Content-Type is not one media type, and changes nothing', async () => {
    const order = await s.control('POST', '/sandbox/orders', {
      client_id: s.demo.clientId,
      ...legs.onramp,
      from: { currency: 'NGN', amount: 50_000 },
    });
    expect(order.status).toBe(200);
    const ref = order.body.data.reference as string;
    const before = await s.control('GET', `/sandbox/orders/${ref}`);
    for (const type of notOneType) {
      const res = await rawPost(`/sandbox/orders/${ref}/payin`, '{"amount":100}', { 'content-type': type });
      expect(res.status, type).toBe(415);
    }
    expect((await s.control('GET', `/sandbox/orders/${ref}`)).body).toEqual(before.body);
    // and the same body as JSON is the partial pay-in it asks for
    const paid = await rawPost(`/sandbox/orders/${ref}/payin`, '{"amount":100}', { 'content-type': 'application/json' });
    expect(paid.status).toBe(200);
    expect(paid.body.data.amount_paid).toBe(100);
  });
});

describe('amount precision (CONTRACT §9: more places than the currency has is a 422)', () => {
  it('refuses an offramp to ZAR of 2.385 instead of rounding it past what the crypto covers', async () => {
    const res = await s.signed('POST', '/v1/orders/quote', {
      from: { currency: 'USDT', network: 'base-sepolia' },
      to: { currency: 'ZAR', amount: 2.385 },
    });
    expect(res.status).toBe(422);
    expect(res.body.message).toMatch(/^to\.amount: 2\.385 has more than 2 decimal places, the precision of ZAR/);
  });

  it('refuses order legs the same way, and accepts amounts at the precision', async () => {
    const name = await accountName(s, '058', '0123456789');
    const recipient = { institution_code: '058', account_number: '0123456789', account_name: name };
    const bad = await s.signed('POST', '/v1/orders', {
      ...legs.offramp,
      from: { ...legs.offramp.from, amount: 100.1234567 },
      recipient,
      customer,
    });
    expect(bad.status).toBe(422);
    expect(bad.body.message).toMatch(/^from\.amount: /);
    const good = await s.signed('POST', '/v1/orders', {
      ...legs.offramp,
      from: { ...legs.offramp.from, amount: 100.123456 },
      recipient,
      customer,
    });
    expect(good.status).toBe(200);
  });

  it('refuses a simulated pay-in with more places than the pay-in currency', async () => {
    const order = await createOrder(s, 'onramp');
    const res = await s.control('POST', `/sandbox/orders/${order.reference}/payin`, { amount: 100.001 });
    expect(res.status).toBe(422);
    expect(res.body.message).toMatch(/^amount: 100\.001 has more than 2 decimal places, the precision of NGN/);
    const after = await s.control('GET', `/sandbox/orders/${order.reference}`);
    expect(after.body.data.amount_paid).toBe(0);
  });
});

describe('clock bounds (CONTRACT §9: at most 10 years ahead; otherwise 422 and the clock is unchanged)', () => {
  const cases: Array<[object, string]> = [
    [{ duration: '999999999d' }, 'duration: must be at most 10 years (3650d)'],
    [{ duration: '3651d' }, 'duration: must be at most 10 years (3650d)'],
    [{ ms: 10 * 365 * 86_400_000 + 1 }, 'ms: must be at most 10 years (315360000000 ms)'],
    [{ to: '+275000-01-01T00:00:00Z' }, 'to: '],
    [{ to: '9999-12-31T00:00:00Z' }, 'to: must be at most 10 years ahead of the virtual now'],
  ];
  it.each(cases)('refuses %j and leaves the clock and every route working', async (body, message) => {
    const before = (await s.control('GET', '/sandbox/clock')).body.data.now;
    const res = await s.control('POST', '/sandbox/clock/advance', body);
    expect(res.status, res.text).toBe(422);
    expect(res.body.code).toBe('E_VALIDATION_ERROR');
    expect(res.body.message.startsWith(message), res.body.message).toBe(true);
    const clock = await s.control('GET', '/sandbox/clock');
    expect(clock.status).toBe(200);
    expect(clock.body.data.now).toBe(before);
    expect((await s.request('GET', '/health')).status).toBe(200);
    expect((await s.signed('POST', '/v1/orders/quote', { from: legs.onramp.from, to: legs.onramp.to })).status).toBe(200);
  });

  it('accepts an advance of exactly 10 years', async () => {
    const res = await s.control('POST', '/sandbox/clock/advance', { duration: '3650d' });
    expect(res.status, res.text).toBe(200);
    expect((await s.request('GET', '/health')).status).toBe(200);
    expect((await s.signed('GET', '/v1/orders?per_page=1')).status).toBe(200);
  });
});
