import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../src/shared/errors';
import { signedHeaders } from '../support/sign';
import { EVM_ADDRESS, customer, legs } from '../support/orders';
import { startTestServer, type TestServer } from '../support/server';
import { seeded } from '../support/property';

let s: TestServer;
let reference: string;
beforeAll(async () => {
  s = await startTestServer();
  reference = s.sandbox.orders.create(
    { partner: s.sandbox.demoPartner, env: 'test' },
    { ...legs.onramp, recipient: { address: EVM_ADDRESS }, customer },
  ).reference;
});
afterAll(() => s.close());

/** Every answer is an envelope: success, error, or the spec §5.4 alternative. */
function expectEnvelope(status: number, body: any, method: string) {
  expect(status).toBeLessThan(500);
  if (method === 'HEAD' || (method === 'OPTIONS' && status === 200)) return;
  expect(body).toBeTypeOf('object');
  if (status < 400) {
    expect(body.status).toBe(true);
    expect(typeof body.message).toBe('string');
    expect('data' in body).toBe(true);
  } else if (body.status === 'failed') {
    expect(Object.keys(body).sort()).toEqual(['data', 'message', 'status']);
    expect(body.data).toBeNull();
    expect([401, 403]).toContain(status);
  } else {
    expect(Object.keys(body).sort()).toEqual(['code', 'message', 'status']);
    expect(body.status).toBe(false);
    expect(ERROR_CODES).toContain(body.code);
    expect(body.message.length).toBeGreaterThan(0);
  }
}

const segment = fc.oneof(
  fc.constantFrom(
    'v1',
    'orders',
    'quote',
    'networks',
    'crypto-currencies',
    'sandbox',
    'partners',
    'clock',
    'advance',
    'payin',
    'fulfill',
    'cancel',
    '%',
    '%E0%A4%A',
    '..',
    '',
    'USDT',
    'ethereum-sepolia',
    'NGN_USDT',
  ),
  fc.string({ unit: 'grapheme-ascii', maxLength: 12 }).map(encodeURIComponent),
);
const knownPaths = [
  '/v1/networks',
  '/v1/networks/ethereum-sepolia',
  '/v1/networks/x/crypto-currencies',
  '/v1/crypto-currencies',
  '/v1/crypto-currencies/USDT',
  '/v1/crypto-currencies/USDT/networks',
  '/v1/fiat-currencies',
  '/v1/institutions',
  '/v1/account-lookup',
  '/v1/market-rates/NGN_USDT',
  '/v1/exchange-rate',
  '/v1/orders',
  '/v1/orders/quote',
  '/v1/orders/REF',
  '/v1/orders/REF/cancel',
  '/v1/orders/REF/fulfill',
  '/health',
  '/v1/health',
  '/sandbox/partners',
  '/sandbox/partners/x',
  '/sandbox/partners/x/keys',
  '/sandbox/clock',
  '/sandbox/clock/advance',
  '/sandbox/orders/REF/payin',
  '/sandbox/orders/REF/payout',
  '/sandbox/orders/REF/expire',
  '/sandbox/orders/REF',
];
const query = fc.oneof(
  fc.constant(''),
  fc.constantFrom(
    '?fiat=NGN',
    '?include=payout,timeline',
    '?include=x',
    '?status=settled&page=2',
    '?page=-1',
    '?from=NGN&to=USDT',
    '?account_number=0123456789&bank_code=058',
    '?a=%ZZ',
    '?fiat=NGN&fiat=KES',
  ),
  fc.string({ unit: 'grapheme-ascii', maxLength: 20 }).map((q) => `?${encodeURI(q)}`),
);
const pathArb = fc.oneof(
  fc.tuple(fc.constantFrom(...knownPaths), query).map(([p, q]) => p.replace('REF', reference) + q),
  fc.array(segment, { maxLength: 5 }).chain((segs) => query.map((q) => `/${segs.join('/')}${q}`)),
);
const jsonBody = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)),
  fc.record({ from: fc.anything({ maxDepth: 2 }), to: fc.anything({ maxDepth: 2 }) }).map((v) => JSON.stringify(v) ?? '{}'),
  fc.constantFrom('{', '{"a":', '[1,2', 'null', '"str"', '12', '{"from":{"currency":"NGN","amount":1e400}}', '\u0000'),
  fc.string({ maxLength: 40 }),
);
const requestArb = fc.record({
  method: fc.constantFrom('GET', 'POST', 'PATCH', 'PUT', 'DELETE', 'OPTIONS', 'HEAD'),
  path: pathArb,
  body: fc.option(jsonBody, { nil: undefined }),
  contentType: fc.constantFrom('application/json', 'text/plain', 'application/x-www-form-urlencoded', undefined),
  auth: fc.constantFrom('none', 'signed', 'public', 'garbage', 'badsig', 'stale'),
});

describe('no input gets a 5xx (property, over HTTP)', () => {
  it('answers 600 random requests with valid envelopes and no 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(requestArb, async (r) => {
        const body = r.method === 'GET' || r.method === 'HEAD' ? undefined : r.body;
        let headers: Record<string, string> = {};
        const keys = s.demo.keys.test;
        if (r.auth === 'signed' || r.auth === 'badsig' || r.auth === 'stale') {
          headers = signedHeaders({
            clientId: s.demo.clientId,
            keys,
            method: r.method,
            path: r.path,
            body,
            timestamp: r.auth === 'stale' ? Date.now() - 3_600_000 : Date.now(),
            signingKey: r.auth === 'badsig' ? keys.secret_key : undefined,
          });
        } else if (r.auth === 'public') {
          headers = { 'svc-client-id': s.demo.clientId, authorization: `Bearer ${keys.public_key}` };
        } else if (r.auth === 'garbage') {
          headers = { 'svc-client-id': 'x|y', authorization: 'Bearer \u00e9', 'svc-timestamp': 'NaN', 'svc-signature': 'sha256=zz' };
        }
        if (r.contentType) headers['content-type'] = r.contentType;
        else delete headers['content-type'];
        const res = await s.request(r.method, r.path, { headers, body });
        // CONTRACT §15: GET / is the one redirect (to the dashboard), not an envelope.
        if (res.status === 302 && res.headers.get('location') === '/sandbox/dashboard') return;
        expectEnvelope(res.status, res.body, r.method);
      }),
      seeded({ numRuns: 600 }),
    );
  });

  it('answers random invalid quote and order bodies with 400/422 naming the field', async () => {
    const leg = fc.record(
      {
        currency: fc.oneof(fc.constantFrom('NGN', 'USDT', 'ETH', 'KES', 'XYZ', ''), fc.string({ maxLength: 5 }), fc.integer()),
        network: fc.oneof(fc.constantFrom('base-sepolia', 'tron-nile', 'ethereum', 'nope'), fc.integer(), fc.constant(null)),
        amount: fc.oneof(fc.double(), fc.integer({ min: -5, max: 10 ** 13 }), fc.string({ maxLength: 3 }), fc.constant(null)),
      },
      { requiredKeys: [] },
    );
    const quoteBody = fc.record({ from: fc.oneof(leg, fc.anything({ maxDepth: 1 })), to: leg }, { requiredKeys: [] });
    const orderBody = fc.record(
      {
        quote_id: fc.oneof(fc.constant('qt_x'), fc.integer()),
        from: leg,
        to: leg,
        recipient: fc.oneof(
          fc.record({ address: fc.string({ maxLength: 50 }) }),
          fc.record({ institution_code: fc.string(), account_number: fc.string(), account_name: fc.string() }),
          fc.anything({ maxDepth: 1 }),
        ),
        customer: fc.oneof(
          fc.constant(customer),
          fc.record({ reference: fc.string(), name: fc.string(), email: fc.string(), dob: fc.string() }, { requiredKeys: [] }),
        ),
        metadata: fc.anything({ maxDepth: 2 }),
        partner_fee: fc.oneof(fc.double(), fc.string()),
      },
      { requiredKeys: [] },
    );
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          quoteBody.map((b) => ['/v1/orders/quote', b] as const),
          orderBody.map((b) => ['/v1/orders', b] as const),
        ),
        async ([path, b]) => {
          const res = await s.signed('POST', path, b);
          expectEnvelope(res.status, res.body, 'POST');
          if (res.status === 422) expect(res.body.message).toMatch(/^[\w.]+: \S/);
          if (res.status >= 400) expect([400, 409, 422]).toContain(res.status);
        },
      ),
      seeded({ numRuns: 400 }),
    );
  });
});

describe('quotes over HTTP (property)', () => {
  it('keeps the pricing invariants for random valid quote requests', async () => {
    const nets = (await s.pub('GET', '/v1/networks')).body.data as Array<{ identifier: string }>;
    const pairs: Array<{ network: string; cryptos: string[] }> = [];
    for (const n of nets) {
      pairs.push({
        network: n.identifier,
        cryptos: (await s.pub('GET', `/v1/networks/${n.identifier}/crypto-currencies`)).body.data.map((c: any) => c.symbol),
      });
    }
    const fiats = (await s.pub('GET', '/v1/fiat-currencies')).body.data as Array<{ code: string; decimals: number }>;
    const decimalsOf = (code: string) => fiats.find((f) => f.code === code)?.decimals;
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...pairs),
        fc.constantFrom(...fiats.map((f) => f.code)),
        fc.constantFrom('onramp', 'offramp', 'swap'),
        fc.boolean(),
        // Whole cents: every currency here has at least 2 places but UGX (0), rounded below.
        fc.integer({ min: 1, max: 100_000_000 }).map((cents) => cents / 100),
        fc.nat(),
        async (pair, fiat, type, onFrom, amount, pick) => {
          const a = pair.cryptos[pick % pair.cryptos.length]!;
          const b = pair.cryptos[(pick + 1) % pair.cryptos.length]!;
          if (type === 'swap' && a === b) return;
          const crypto = { currency: a, network: pair.network };
          const legs =
            type === 'onramp'
              ? [{ currency: fiat }, crypto]
              : type === 'offramp'
                ? [crypto, { currency: fiat }]
                : [crypto, { currency: b, network: pair.network }];
          const amountLeg: { currency: string; network?: string } = onFrom ? legs[0]! : legs[1]!;
          const places = amountLeg.network === undefined ? decimalsOf(amountLeg.currency)! : 2;
          const given = Math.max(Number(amount.toFixed(places)), 10 ** -places);
          const from = onFrom ? { ...legs[0], amount: given } : legs[0];
          const to = onFrom ? legs[1] : { ...legs[1], amount: given };
          const res = await s.signed('POST', '/v1/orders/quote', { from, to });
          if (res.status === 400) {
            expect(res.body.message).toMatch(/too small/);
            return;
          }
          expect(res.status).toBe(200);
          const q = res.body.data;
          expect(q.type).toBe(type);
          const f = q.fee;
          // total is the sum of the rounded parts (up to float addition error at large amounts)
          expect(Math.abs(f.total - (f.network_fee + f.protocol_fee + f.partner_fee + f.vat))).toBeLessThanOrEqual(
            1e-9 * Math.max(1, f.total),
          );
          const fiatDecimals = decimalsOf(type === 'swap' ? '' : fiat);
          if (fiatDecimals !== undefined) {
            const fiatAmount = type === 'onramp' ? q.from.amount : q.to.amount;
            expect(Number(fiatAmount.toFixed(fiatDecimals))).toBe(fiatAmount);
            expect(Number(f.total.toFixed(fiatDecimals))).toBe(f.total);
          }
          const rate = q.pricing.exchange_rate;
          if (type === 'onramp')
            expect(q.from.amount).toBeGreaterThanOrEqual(q.to.amount * rate + f.total - 10 ** -(fiatDecimals ?? 2) - rate * 1e-6);
          if (type === 'offramp')
            expect(q.to.amount).toBeLessThanOrEqual(q.from.amount * rate - f.total + 10 ** -(fiatDecimals ?? 2) + rate * 1e-6);
          if (type === 'swap') expect(q.fee.fee_in_rate).toBe(true);
        },
      ),
      seeded({ numRuns: 200 }),
    );
  });
});
