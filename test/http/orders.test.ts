import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signedHeaders } from '../support/sign';
import { accountName, advance, createOrder, customer, EVM_ADDRESS, legs, recipientFor, SOLANA_ADDRESS } from '../support/orders';
import { startTestServer, type TestServer } from '../support/server';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s.close());

const quote = (body: unknown, opts?: Parameters<TestServer['signed']>[3]) => s.signed('POST', '/v1/orders/quote', body, opts);
const order = (body: unknown, opts?: Parameters<TestServer['signed']>[3]) => s.signed('POST', '/v1/orders', body, opts);

describe('quotes (POST /v1/orders/quote)', () => {
  it('infers the type from the legs and prices the other leg', async () => {
    for (const [type, body] of Object.entries(legs)) {
      const res = await quote(body);
      expect(res.status, type).toBe(200);
      const q = res.body.data;
      expect(q).toMatchObject({ type, ttl_in_seconds: 60, provider_id: 1, quote_id: expect.stringMatching(/^qt_/) });
      expect(q.from.amount).toBe(body.from.amount);
      expect(q.to.amount).toBeGreaterThan(0);
      expect(q.fee.total).toBeCloseTo(q.fee.network_fee + q.fee.protocol_fee + q.fee.partner_fee + q.fee.vat, 8);
    }
  });

  it('prices from either leg consistently with rate and fee (onramp, offramp)', async () => {
    const on = (await quote({ from: { currency: 'NGN' }, to: { currency: 'USDT', network: 'base-sepolia', amount: 25 } })).body.data;
    expect(on.from.amount).toBeCloseTo(on.to.amount * on.pricing.exchange_rate + on.fee.total, 2);
    const off = (await quote({ from: { currency: 'USDT', network: 'base-sepolia' }, to: { currency: 'KES', amount: 10_000 } })).body.data;
    expect(off.to.amount).toBe(10_000);
    expect(off.from.amount * off.pricing.exchange_rate - off.fee.total).toBeGreaterThanOrEqual(10_000 - 0.01);
  });

  it('rounds computed amounts to the currency precision (UGX has 0 decimals)', async () => {
    const q = (await quote({ from: { currency: 'USDT', network: 'polygon-amoy', amount: 12.345679 }, to: { currency: 'UGX' } })).body.data;
    expect(Number.isInteger(q.to.amount)).toBe(true);
    expect(Number.isInteger(q.fee.total)).toBe(true);
    expect(q.from.amount).toBe(12.345679);
  });

  // CONTRACT §9: more places than the currency's precision is refused, not silently rounded.
  it('answers 422 naming the leg for an amount with more places than its currency has', async () => {
    const cases: Array<[unknown, RegExp]> = [
      [
        { from: { currency: 'USDT', network: 'polygon-amoy', amount: 12.3456789 }, to: { currency: 'UGX' } },
        /^from\.amount: 12\.3456789 has more than 6 decimal places/,
      ],
      [
        { from: { currency: 'USDT', network: 'polygon-amoy' }, to: { currency: 'UGX', amount: 1000.5 } },
        /^to\.amount: .* more than 0 decimal places, the precision of UGX/,
      ],
      [{ from: { currency: 'NGN', amount: 1000.125 }, to: { currency: 'USDT', network: 'base-sepolia' } }, /^from\.amount: /],
    ];
    for (const [body, message] of cases) {
      const res = await quote(body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body.code).toBe('E_VALIDATION_ERROR');
      expect(res.body.message).toMatch(message);
    }
  });

  it('answers 422 for shape errors, naming the field', async () => {
    const cases: Array<[unknown, RegExp]> = [
      [
        { from: { currency: 'NGN', network: 'base-sepolia', amount: 1 }, to: { currency: 'USDT', network: 'base-sepolia' } },
        /^from\.network: must be omitted/,
      ],
      [{ from: { currency: 'NGN', amount: 1000 }, to: { currency: 'USDT' } }, /^to\.network: required/],
      [{ from: { currency: 'NGN', amount: 0 }, to: { currency: 'USDT', network: 'base-sepolia' } }, /^from\.amount: /],
      [{ from: { currency: 'NGN', amount: -5 }, to: { currency: 'USDT', network: 'base-sepolia' } }, /^from\.amount: /],
      [{ from: { currency: 'NGN', amount: '5' }, to: { currency: 'USDT', network: 'base-sepolia' } }, /^from\.amount: /],
      [{ to: { currency: 'USDT', network: 'base-sepolia' } }, /^from: /],
      [{ from: { amount: 5 }, to: { currency: 'USDT', network: 'base-sepolia' } }, /^from\.currency: /],
    ];
    for (const [body, message] of cases) {
      const res = await quote(body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body.code).toBe('E_VALIDATION_ERROR');
      expect(res.body.message).toMatch(message);
    }
  });

  it('answers 400 for conversions that cannot be done', async () => {
    const cases: Array<[unknown, RegExp]> = [
      [{ from: { currency: 'XYZ', amount: 1 }, to: { currency: 'USDT', network: 'base-sepolia' } }, /unsupported currency/],
      [{ from: { currency: 'NGN', amount: 1000 }, to: { currency: 'USDT', network: 'moonchain' } }, /unknown network/],
      [{ from: { currency: 'NGN', amount: 1000 }, to: { currency: 'USDT', network: 'ethereum' } }, /unknown network/],
      [{ from: { currency: 'NGN', amount: 1000 }, to: { currency: 'SOL', network: 'base-sepolia' } }, /not available on base-sepolia/],
      [
        { from: { currency: 'USDC', network: 'base-sepolia', amount: 5 }, to: { currency: 'USDT', network: 'polygon-amoy' } },
        /one network/,
      ],
      [{ from: { currency: 'NGN', amount: 1000 }, to: { currency: 'USDT', network: 'base-sepolia', amount: 1 } }, /exactly one leg/],
      [{ from: { currency: 'NGN' }, to: { currency: 'USDT', network: 'base-sepolia' } }, /exactly one leg/],
      [{ from: { currency: 'NGN', amount: 1000 }, to: { currency: 'KES' } }, /fiat to fiat/],
      [{ from: { currency: 'NGN', amount: 10 }, to: { currency: 'USDT', network: 'ethereum-sepolia' } }, /too small/],
      // the other leg would pass 1e18, the most a saved state holds
      [{ from: { currency: 'ETH', network: 'base-sepolia', amount: 1e12 }, to: { currency: 'NGN' } }, /^amount is too large: to\.amount/],
    ];
    for (const [body, message] of cases) {
      const res = await quote(body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.code).toBe('E_BADREQUEST');
      expect(res.body.message).toMatch(message);
    }
  });

  it('refuses quotes and orders for an account that is not KYB-approved (403)', async () => {
    const p = await s.createPartner({ kyb_status: 'pending' });
    const q = await quote(legs.onramp, { as: p });
    expect(q.status).toBe(403);
    expect(q.body).toEqual({ status: false, code: 'E_FORBIDDEN', message: expect.stringMatching(/KYB/) });
    expect((await order({}, { as: p })).status).toBe(403);
    // reads still work
    expect((await s.signed('GET', '/v1/orders', undefined, { as: p })).status).toBe(200);
  });

  it('refuses the public key on quote and order routes with the alternative body (403)', async () => {
    for (const [method, path] of [
      ['POST', '/v1/orders/quote'],
      ['POST', '/v1/orders'],
      ['GET', '/v1/orders'],
      ['GET', '/v1/orders/ORDX'],
    ]) {
      const res = await s.request(method!, path!, {
        headers: { 'svc-client-id': s.demo.clientId, authorization: `Bearer ${s.demo.keys.test.public_key}` },
      });
      expect(res.status, path).toBe(403);
      expect(res.body).toEqual({ status: 'failed', message: expect.any(String), data: null });
    }
  });
});

describe('orders from quotes', () => {
  it('locks the quoted pricing', async () => {
    const q = (await quote(legs.offramp)).body.data;
    const res = await order({ quote_id: q.quote_id, recipient: await recipientFor(s, 'offramp'), customer });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ type: 'offramp', from: q.from, to: q.to, pricing: q.pricing, fee: q.fee });
  });

  it('refuses an expired quote (400), a used one (409) and an unknown one (400)', async () => {
    const q = (await quote(legs.onramp)).body.data;
    const body = { quote_id: q.quote_id, recipient: { address: EVM_ADDRESS }, customer };
    expect((await order(body)).status).toBe(200);
    const reused = await order(body);
    expect(reused.status).toBe(409);
    expect(reused.body.code).toBe('E_CONFLICT');
    const stale = (await quote(legs.onramp)).body.data;
    await advance(s, '61s');
    const expired = await order({ ...body, quote_id: stale.quote_id });
    expect(expired.status).toBe(400);
    expect(expired.body.message).toMatch(/^quote_id: quote expired/);
    expect((await order({ ...body, quote_id: 'qt_nope' })).status).toBe(400);
  });

  it("does not resolve another environment's quote", async () => {
    const q = (await quote(legs.onramp)).body.data;
    const live = await order({ quote_id: q.quote_id, recipient: { address: EVM_ADDRESS }, customer }, { env: 'live' });
    expect(live.status).toBe(400);
    expect(live.body.message).toMatch(/unknown quote/);
  });

  it('refuses legs or partner_fee next to quote_id (422)', async () => {
    const q = (await quote(legs.onramp)).body.data;
    for (const extra of [{ from: legs.onramp.from }, { partner_fee: 1 }]) {
      const res = await order({ quote_id: q.quote_id, recipient: { address: EVM_ADDRESS }, customer, ...extra });
      expect(res.status).toBe(422);
    }
  });
});

describe('order validation', () => {
  const base = async (type: keyof typeof legs) => ({ ...legs[type], recipient: await recipientFor(s, type), customer });

  it('requires recipient and customer, naming the field', async () => {
    const res = await order({ ...legs.onramp, customer });
    expect(res.status).toBe(422);
    expect(res.body.message).toMatch(/^recipient: /);
    const noCustomer = await order({ ...legs.onramp, recipient: { address: EVM_ADDRESS } });
    expect(noCustomer.body.message).toMatch(/^customer: /);
  });

  it('checks recipient addresses against the network format', async () => {
    const bad = await order({ ...(await base('onramp')), recipient: { address: '0x1234' } });
    expect(bad.status).toBe(422);
    expect(bad.body.message).toMatch(/^recipient\.address: must be a evm address/);
    const sol = { from: { currency: 'NGN', amount: 20_000 }, to: { currency: 'USDC', network: 'solana-devnet' } };
    expect((await order({ ...sol, recipient: { address: EVM_ADDRESS }, customer })).status).toBe(422);
    const ok = await order({ ...sol, recipient: { address: SOLANA_ADDRESS, memo: 'note' }, customer });
    expect(ok.status).toBe(200);
    expect(ok.body.data.recipient).toEqual({ network: 'solana-devnet', address: SOLANA_ADDRESS, memo: 'note' });
  });

  it('checks offramp recipients: institution of the fiat, 10 digits, name matching the lookup', async () => {
    const b = await base('offramp');
    const name = b.recipient.account_name as string;
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ ...b.recipient, institution_code: 'KE01' }, /^recipient\.institution_code: KE01 is not an institution for NGN/],
      [{ ...b.recipient, account_number: '12345' }, /^recipient\.account_number: /],
      [{ ...b.recipient, account_name: 'SOMEBODY ELSE' }, /^recipient\.account_name: does not match/],
      [{ ...b.recipient, account_number: '0000000000' }, /^recipient\.account_number: no account/],
      [{ address: EVM_ADDRESS }, /^recipient\.institution_code: /],
    ];
    for (const [recipient, message] of cases) {
      const res = await order({ ...b, recipient });
      expect(res.status, JSON.stringify(recipient)).toBe(422);
      expect(res.body.message).toMatch(message);
    }
    const relaxed = await order({ ...b, recipient: { ...b.recipient, account_name: `  ${name.toLowerCase().replace(' ', '   ')} ` } });
    expect(relaxed.status).toBe(200);
  });

  it('checks the customer email, dob and address', async () => {
    const b = await base('onramp');
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ ...customer, email: 'not-an-email' }, /^customer\.email: /],
      [{ ...customer, dob: '1990-01-31' }, /^customer\.dob: /],
      [{ ...customer, dob: '31-02-1990' }, /^customer\.dob: /],
      [{ ...customer, address: '' }, /^customer\.address: /],
      [{ ...customer, name: undefined }, /^customer\.name: /],
    ];
    for (const [c, message] of cases) {
      const res = await order({ ...b, customer: c });
      expect(res.status, JSON.stringify(c)).toBe(422);
      expect(res.body.message).toMatch(message);
    }
    expect(
      (await order({ ...b, customer: { ...customer, dob: '29-02-2000', phone: '+2348012345678', address: '1 Broad St, Lagos' } })).status,
    ).toBe(200);
  });

  it('stores and returns metadata as given, and customer_reference from the customer', async () => {
    const metadata = { cart: { items: [1, 2, { deep: true }] }, note: 'ü', n: null };
    const o = await createOrder(s, 'swap', { metadata, merchant_reference: 'meta-1' });
    expect(o.metadata).toEqual(metadata);
    expect(o.customer_reference).toBe(customer.reference);
    const read = await s.signed('GET', `/v1/orders/${o.reference}`);
    expect(read.body.data.metadata).toEqual(metadata);
    expect((await order({ ...(await base('swap')), metadata: [1, 2] })).status).toBe(422);
  });

  it('uses a given refund target and validates it', async () => {
    const b = await base('onramp');
    const refund = { institution_code: '044', account_number: '9876543210', account_name: 'ADA OBI' };
    const o = await order({ ...b, refund });
    expect(o.status).toBe(200);
    await s.control('POST', `/sandbox/orders/${o.body.data.reference}/expire`);
    await s.control('POST', `/sandbox/orders/${o.body.data.reference}/payin`, {});
    await advance(s, '1h');
    const done = (await s.signed('GET', `/v1/orders/${o.body.data.reference}`)).body.data;
    expect(done.refund).toMatchObject({ ...refund, currency: 'NGN', amount: b.from.amount, tx_reference: expect.any(String) });
    const bad = await order({ ...b, refund: { address: EVM_ADDRESS } });
    expect(bad.status).toBe(422);
    expect(bad.body.message).toMatch(/^refund\./);
  });

  it('keeps merchant_reference unique per partner and environment (409)', async () => {
    const b = await base('onramp');
    expect((await order({ ...b, merchant_reference: 'dup-1' })).status).toBe(200);
    const dup = await order({ ...b, merchant_reference: 'dup-1' });
    expect(dup.status).toBe(409);
    expect(dup.body.message).toMatch(/^merchant_reference: /);
    expect((await order({ ...b, merchant_reference: 'dup-1' }, { env: 'live' })).status).toBe(400); // live has no base-sepolia
    const live = {
      from: { currency: 'NGN', amount: 50_000 },
      to: { currency: 'USDT', network: 'base' },
      recipient: { address: EVM_ADDRESS },
      customer,
    };
    expect((await order({ ...live, merchant_reference: 'dup-1' }, { env: 'live' })).status).toBe(200);
    const other = await s.createPartner();
    expect((await order({ ...b, merchant_reference: 'dup-1' }, { as: other })).status).toBe(200);
  });

  it('gives one success for 20 concurrent creates with the same merchant_reference, and 200 distinct ones all succeed', async () => {
    const b = await base('onramp');
    const same = await Promise.all(Array.from({ length: 20 }, () => order({ ...b, merchant_reference: 'race-1' })));
    expect(same.filter((r) => r.status === 200)).toHaveLength(1);
    expect(same.filter((r) => r.status === 409)).toHaveLength(19);
    const distinct = await Promise.all(Array.from({ length: 200 }, (_, i) => order({ ...b, merchant_reference: `many-${i}` })));
    expect(distinct.every((r) => r.status === 200)).toBe(true);
    expect(new Set(distinct.map((r) => r.body.data.reference)).size).toBe(200);
  });
});

describe('reading orders', () => {
  it('omits payout and timeline unless included, and validates include', async () => {
    const o = await createOrder(s, 'onramp');
    const read = async (query: string) => (await s.signed('GET', `/v1/orders/${o.reference}${query}`)).body.data;
    const plain = await read('');
    const both = await read('?include=payout,timeline');
    expect(both.payout).toEqual([]);
    expect(both.timeline.length).toBeGreaterThan(0);
    // Spec §4.1: each field is there exactly when it is asked for, and include adds nothing else.
    const { payout, timeline, ...detail } = both;
    expect(Object.keys(plain)).not.toContain('payout');
    expect(Object.keys(plain)).not.toContain('timeline');
    expect(plain).toEqual(detail);
    expect(await read('?include=payout')).toEqual({ ...detail, payout });
    expect(await read('?include=timeline')).toEqual({ ...detail, timeline });
    for (const query of ['?include=payin', '?include=payout,payin', '?include=Timeline']) {
      const bad = await s.signed('GET', `/v1/orders/${o.reference}${query}`);
      expect(bad.status, query).toBe(422);
      expect(bad.body, query).toMatchObject({ status: false, code: 'E_VALIDATION_ERROR' });
      expect(bad.body.message, query).toMatch(/^include: /);
    }
  });

  it('reads include repeated, as generated clients send an array, like the comma-separated form (issue 6)', async () => {
    const o = await createOrder(s, 'offramp');
    const get = async (query: string) => s.signed('GET', `/v1/orders/${o.reference}?${query}`);
    const comma = await get('include=payout,timeline');
    const repeated = await get('include=payout&include=timeline');
    expect(repeated.status).toBe(200);
    expect(repeated.body).toEqual(comma.body);
    expect(repeated.body.data.payout).toEqual([]);
    expect((await get('include=timeline&include=')).body.data).toMatchObject({ timeline: comma.body.data.timeline });
    expect((await get('include=timeline&include=')).body.data.payout).toBeUndefined();
    expect((await get('include=payout&include=timeline,payout')).body).toEqual(comma.body);
    const bad = await get('include=payout&include=payin');
    expect(bad.status).toBe(422);
    expect(bad.body.message).toBe('include: unknown value payin; supported: payout, timeline');
    // fulfil reads its include alike
    await s.control('POST', `/sandbox/orders/${o.reference}/payin`, { confirmed: false });
    const fulfilled = await s.signed('POST', `/v1/orders/${o.reference}/fulfill?include=payout&include=timeline`, {
      tx_hash: `0x${'cd'.repeat(32)}`,
    });
    expect(fulfilled.status).toBe(200);
    expect(fulfilled.body.data.status).toBe('processing');
    expect(fulfilled.body.data.payout).toEqual([]);
    expect(fulfilled.body.data.timeline.at(-1).event).toBeDefined();
  });

  it('never serves a stale render after any change', async () => {
    const o = await createOrder(s, 'offramp');
    const read = async () => (await s.signed('GET', `/v1/orders/${o.reference}?include=timeline,payout`)).body.data;
    const first = await read();
    expect(await read()).toEqual(first);
    await s.control('POST', `/sandbox/orders/${o.reference}/payin`, { amount: 10 });
    expect((await read()).amount_paid).toBe(10);
    await s.control('POST', `/sandbox/orders/${o.reference}/payout`, { outcome: 'partial', percentage: 20 });
    expect((await read()).timeline.at(-1).event).toBe('outcome_set');
    await s.control('POST', `/sandbox/orders/${o.reference}/payin`, { confirmed: false });
    expect((await read()).status).toBe('pending');
    await s.signed('POST', `/v1/orders/${o.reference}/fulfill`, { tx_hash: `0x${'cd'.repeat(32)}` });
    expect((await read()).status).toBe('processing');
    await advance(s, '1h');
    const done = await read();
    expect(done.status).toBe('partially_completed');
    expect(done.payout[0].percentage).toBe(20);
    expect((await s.signed('GET', `/v1/orders/${o.reference}`)).body.data.timeline).toBeUndefined();
  });

  it("answers 404 for an unknown order, another partner's, or another environment's", async () => {
    const o = await createOrder(s, 'onramp');
    expect((await s.signed('GET', '/v1/orders/ORDUNKNOWN')).status).toBe(404);
    expect((await s.signed('GET', `/v1/orders/${o.reference}`, undefined, { env: 'live' })).status).toBe(404);
    const other = await s.createPartner();
    expect((await s.signed('GET', `/v1/orders/${o.reference}`, undefined, { as: other })).status).toBe(404);
    expect((await s.signed('PATCH', `/v1/orders/${o.reference}/cancel`, {}, { as: other })).status).toBe(404);
  });

  it('lists orders newest first with status filter and page meta', async () => {
    const p = await s.createPartner();
    const refs: string[] = [];
    for (let i = 0; i < 5; i++) {
      refs.push((await createOrder(s, 'swap', {}, { as: p })).reference);
      await advance(s, '1s');
    }
    await s.signed('PATCH', `/v1/orders/${refs[1]}/cancel`, {}, { as: p });
    const page1 = await s.signed('GET', '/v1/orders?per_page=2', undefined, { as: p });
    expect(page1.body.meta).toEqual({ total: 5, per_page: 2, current_page: 1, last_page: 3 });
    expect(page1.body.data.map((o: any) => o.reference)).toEqual([refs[4], refs[3]]);
    expect(page1.body.data[0].payin).toBeUndefined();
    const page3 = await s.signed('GET', '/v1/orders?per_page=2&page=3', undefined, { as: p });
    expect(page3.body.data.map((o: any) => o.reference)).toEqual([refs[0]]);
    const cancelled = await s.signed('GET', '/v1/orders?status=cancelled', undefined, { as: p });
    expect(cancelled.body.data.map((o: any) => o.reference)).toEqual([refs[1]]);
    expect(cancelled.body.meta.total).toBe(1);
    const defaults = await s.signed('GET', '/v1/orders', undefined, { as: p });
    expect(defaults.body.meta).toMatchObject({ per_page: 20, current_page: 1 });
    for (const q of ['status=done', 'per_page=101', 'page=0', 'page=x']) {
      const bad = await s.signed('GET', `/v1/orders?${q}`, undefined, { as: p });
      expect(bad.status, q).toBe(422);
    }
  });

  it('costs 2 tokens for get order, 1 for other requests', async () => {
    const { fixedWallClock } = await import('../../src/clock');
    const wall = fixedWallClock(Date.now());
    const r = await startTestServer({ wall, rateLimit: { capacity: 4, refillPerSecond: 0.001 } });
    try {
      const call = (method: string, path: string, body?: unknown) => {
        const raw = body === undefined ? undefined : JSON.stringify(body);
        return r.request(method, path, {
          headers: signedHeaders({ clientId: r.demo.clientId, keys: r.demo.keys.live, method, path, body: raw, timestamp: wall.now() }),
          body: raw,
        });
      };
      const created = r.sandbox.orders.create(
        { partner: r.sandbox.demoPartner, env: 'live' },
        {
          from: { currency: 'NGN', amount: 50_000 },
          to: { currency: 'USDT', network: 'base' },
          recipient: { address: EVM_ADDRESS },
          customer,
        },
      );
      expect((await call('GET', `/v1/orders/${created.reference}`)).status).toBe(200); // 4 -> 2
      expect((await call('GET', '/v1/orders')).status).toBe(200); // 2 -> 1
      expect((await call('GET', `/v1/orders/${created.reference}`)).status).toBe(429); // needs 2
      expect((await call('GET', '/v1/networks')).status).toBe(200); // 1 -> 0
    } finally {
      await r.close();
    }
  });
});

describe('environments', () => {
  it('keeps test and live orders apart and uses the live networks for live keys', async () => {
    const live = await order(
      {
        from: { currency: 'USDT', network: 'tron', amount: 20 },
        to: { currency: 'GHS' },
        recipient: { institution_code: 'GHMTN', account_number: '0241234567', account_name: await accountName(s, 'GHMTN', '0241234567') },
        customer,
      },
      { env: 'live' },
    );
    expect(live.status).toBe(200);
    expect(live.body.data.payin).toMatchObject({ asset: 'USDT', network: 'tron', address: expect.stringMatching(/^T/) });
    expect((await s.signed('GET', `/v1/orders/${live.body.data.reference}`, undefined, { env: 'test' })).status).toBe(404);
    const list = await s.signed('GET', '/v1/orders', undefined, { env: 'live' });
    expect(list.body.data.every((o: any) => !String(o.from.network ?? o.to.network ?? '').includes('sepolia'))).toBe(true);
  });
});
