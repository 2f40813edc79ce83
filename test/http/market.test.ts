import { afterAll, describe, expect, it } from 'vitest';
import { createOrder, getOrder, advance } from '../support/orders';
import { startTestServer, type TestServer } from '../support/server';
import type { SandboxOverrides } from '../../src/sandbox/sandbox';
import { MAX_INSTANT } from '../../src/shared/schemas';

// CONTRACT §22 moving markets: --rates fixed|walk, POST /sandbox/rates, quotes and market rates
// at their virtual instant, orders keeping their rate.
const servers: TestServer[] = [];
afterAll(async () => {
  for (const s of servers) await s.close();
});
async function server(overrides: SandboxOverrides = {}) {
  const s = await startTestServer({ seed: 9, ...overrides });
  servers.push(s);
  return s;
}

const onramp = { from: { currency: 'NGN', amount: 50_000 }, to: { currency: 'USDT', network: 'base-sepolia' } };

async function quote(s: TestServer) {
  const res = await s.signed('POST', '/v1/orders/quote', onramp);
  expect(res.status, res.text).toBe(200);
  return res.body.data;
}
async function marketRate(s: TestServer, pair = 'NGN_USDT') {
  const res = await s.pub('GET', `/v1/market-rates/${pair}`);
  expect(res.status, res.text).toBe(200);
  return res.body.data;
}

describe('a scripted rate path (POST /sandbox/rates)', () => {
  it('quotes and market rates follow it on the virtual clock; orders keep the rate they were created with', async () => {
    const s = await server();
    // The fixture: NGN_USDT buy 1565.5, sell 1534.5 (mid 1550); a scripted mid of 1600 keeps that spread: 1616 / 1584.
    const script = await s.controlApi.scriptRate({
      body: {
        pair: 'ngn_usdt',
        path: [
          { at: '30s', rate: 1600 },
          { at: '10m', rate: 1500 },
        ],
      },
    });
    expect(script).toEqual({
      pair: 'NGN_USDT',
      path: [
        { at: '2026-01-15T12:00:30.000Z', rate: 1600 },
        { at: '2026-01-15T12:10:00.000Z', rate: 1500 },
      ],
    });

    const before = await quote(s);
    expect(before.pricing.exchange_rate).toBe(1565.5);
    expect(await marketRate(s)).toMatchObject({ buy_rate: 1565.5, sell_rate: 1534.5 });
    const early = await createOrder(s, 'onramp');
    expect(early.pricing.exchange_rate).toBe(1565.5);

    await advance(s, '30s');
    expect(await marketRate(s)).toMatchObject({ buy_rate: 1616, sell_rate: 1584 });
    const after = await quote(s);
    expect(after.pricing.exchange_rate).toBe(1616);
    expect(after.to.amount).toBeLessThan(before.to.amount);
    // An order from the quote taken before the move keeps the quote's rate; one without a quote gets today's.
    const fromQuote = await createOrder(s, 'onramp', { quote_id: before.quote_id, from: undefined, to: undefined });
    expect(fromQuote.pricing.exchange_rate).toBe(1565.5);
    expect((await createOrder(s, 'onramp')).pricing.exchange_rate).toBe(1616);

    // Between points the previous point holds (a step), to the next point.
    await advance(s, '9m29s');
    expect((await marketRate(s)).buy_rate).toBe(1616);
    await advance(s, '1s');
    expect(await marketRate(s)).toMatchObject({ buy_rate: 1515, sell_rate: 1485 });
    // The early order still reads its own rate, whatever the market did.
    expect((await getOrder(s, early.reference)).pricing.exchange_rate).toBe(1565.5);
    expect((await getOrder(s, fromQuote.reference)).pricing.exchange_rate).toBe(1565.5);
  });

  it('lists, removes, survives snapshot and restore, and goes with a reset', async () => {
    const s = await server();
    await s.controlApi.scriptRate({ body: { pair: 'NGN_USDT', path: [{ at: '2026-01-15T11:00:00.000Z', rate: 1700 }] } });
    await s.controlApi.scriptRate({
      body: {
        pair: 'KES_USDT',
        path: [
          { at: '1h', rate: 140 },
          { at: '0s', rate: 120 },
        ],
      },
    });
    const listed = await s.controlApi.listRates();
    expect(listed).toEqual({
      rates: 'fixed',
      rate_volatility: 1,
      scripts: [
        // points taken in time order
        {
          pair: 'KES_USDT',
          path: [
            { at: '2026-01-15T12:00:00.000Z', rate: 120 },
            { at: '2026-01-15T13:00:00.000Z', rate: 140 },
          ],
        },
        { pair: 'NGN_USDT', path: [{ at: '2026-01-15T11:00:00.000Z', rate: 1700 }] },
      ],
    });
    expect((await marketRate(s)).buy_rate).toBe(1717);

    const doc = (await s.control('GET', '/sandbox/state')).body.data;
    expect(doc.market.scripts.map((x: { pair: string }) => x.pair)).toEqual(['KES_USDT', 'NGN_USDT']);
    // the streamed document is the one exportState makes (CONTRACT §13), its §22 part included
    expect(JSON.stringify(doc)).toBe(JSON.stringify(s.sandbox.exportState()));
    const t = await server();
    expect((await t.control('PUT', '/sandbox/state', doc)).status).toBe(200);
    expect(await t.controlApi.listRates()).toEqual(listed);
    expect((await marketRate(t)).buy_rate).toBe(1717);

    expect(await s.controlApi.removeRateScript({ params: { pair: 'NGN_USDT' } })).toEqual(listed.scripts[1]);
    expect((await marketRate(s)).buy_rate).toBe(1565.5);
    const again = await s.control('DELETE', '/sandbox/rates/NGN_USDT');
    expect(again.status).toBe(404);
    expect(again.body).toMatchObject({ status: false, code: 'E_NOTFOUND' });

    expect((await t.control('POST', '/sandbox/reset')).status).toBe(200);
    expect((await t.controlApi.listRates()).scripts).toEqual([]);
    expect((await marketRate(t)).buy_rate).toBe(1565.5);
  });

  it('refuses a state document whose market or webhook chaos does not hold, naming the field, nothing changed', async () => {
    const s = await server();
    await s.controlApi.scriptRate({ body: { pair: 'NGN_USDT', path: [{ at: '1m', rate: 1600 }] } });
    const doc = (await s.control('GET', '/sandbox/state')).body.data;
    const bad = (change: (d: any) => void) => {
      const copy = structuredClone(doc);
      change(copy);
      return copy;
    };
    const cases: Array<[any, string]> = [
      [bad((d) => (d.market.scripts[0].pair = 'NGN_XYZ')), 'market.scripts.0.pair'],
      [bad((d) => d.market.scripts[0].path.push({ at_ms: 0, rate: 1 })), 'market.scripts.0.path.1.at_ms'],
      [bad((d) => (d.market.rates = 'random')), 'market.rates'],
      [bad((d) => (d.webhook_chaos = [{ client_id: 'ptr_nobody', duplicate_rate: 1 }])), 'webhook_chaos.0.client_id'],
      [bad((d) => (d.webhook_chaos = [{ client_id: d.partners[0].client_id }])), 'webhook_chaos.0'],
    ];
    for (const [body, field] of cases) {
      const res = await s.control('PUT', '/sandbox/state', body);
      expect({ field, status: res.status, code: res.body.code }).toEqual({ field, status: 422, code: 'E_VALIDATION_ERROR' });
      expect(res.body.message).toContain(field);
    }
    expect((await s.controlApi.listRates()).scripts).toEqual([
      { pair: 'NGN_USDT', path: [{ at: '2026-01-15T12:01:00.000Z', rate: 1600 }] },
    ]);
  });

  it('refuses bad input in the error envelope and changes nothing', async () => {
    const s = await server();
    const cases: Array<[unknown, number, string]> = [
      [{ pair: 'NGN_XYZ', path: [{ at: '1m', rate: 1 }] }, 404, 'E_NOTFOUND'],
      [{ pair: 'NGN_USDT', path: [] }, 422, 'E_VALIDATION_ERROR'],
      [{ pair: 'NGN_USDT' }, 422, 'E_VALIDATION_ERROR'],
      [{ pair: 'NGN_USDT', path: [{ at: '1m', rate: -1 }] }, 422, 'E_VALIDATION_ERROR'],
      [{ pair: 'NGN_USDT', path: [{ at: 'soon', rate: 1600 }] }, 422, 'E_VALIDATION_ERROR'],
      [{ pair: 'NGN_USDT', path: [{ at: '2040-01-01T00:00:00Z', rate: 1600 }] }, 422, 'E_VALIDATION_ERROR'],
      [{ pair: 'NGN_USDT', path: [{ rate: 1600 }] }, 422, 'E_VALIDATION_ERROR'],
    ];
    for (const [body, status, code] of cases) {
      const res = await s.control('POST', '/sandbox/rates', body);
      expect({ body, status: res.status, code: res.body.code, envelope: res.body.status }).toEqual({ body, status, code, envelope: false });
      expect(typeof res.body.message).toBe('string');
    }
    expect((await s.control('POST', '/sandbox/rates', { pair: 'NGN_USDT', path: [{ at: 'soon', rate: 1600 }] })).body.message).toBe(
      'path.0.at: must be an ISO instant such as 2026-01-15T13:05:00Z, or a duration from the virtual now such as 90s, 5m or 1h30m (at most 10 years)',
    );
    expect((await s.control('POST', '/sandbox/rates', 'not json')).status).toBe(400);
    expect((await s.controlApi.listRates()).scripts).toEqual([]);
  });

  it('says which bound a point passes near the end of virtual time: the clock\'s last instant, not "10 years ahead"', async () => {
    const s = await server({ clockStart: MAX_INSTANT - 60_000 });
    const res = await s.control('POST', '/sandbox/rates', { pair: 'NGN_USDT', path: [{ at: '1h', rate: 1600 }] });
    expect(res.status).toBe(422);
    expect(res.body.message).toBe(
      `path.0.at: must be at most ${new Date(MAX_INSTANT).toISOString()}, the latest instant the virtual clock reaches`,
    );
    expect((await s.control('POST', '/sandbox/rates', { pair: 'NGN_USDT', path: [{ at: '30s', rate: 1600 }] })).status).toBe(200);
  });
});

describe('--rates walk', () => {
  /** Market rates and a quote at each of `hours`, read as a partner would. */
  async function run(s: TestServer, hours: number[], readEveryMinute = false) {
    const seen: unknown[] = [];
    let at = 0;
    for (const h of hours) {
      const target = h * 60;
      while (at < target) {
        const step = readEveryMinute ? 1 : target - at;
        await advance(s, `${step}m`);
        at += step;
        if (readEveryMinute) await marketRate(s, 'NGN_ETH');
      }
      const q = await quote(s);
      seen.push({
        at: h,
        usdt: await marketRate(s),
        eth: await marketRate(s, 'NGN_ETH'),
        quote: { pricing: q.pricing, from: q.from, to: q.to, fee: q.fee },
      });
    }
    return JSON.stringify(seen).replace(/,"timestamp":"[^"]*"/g, '');
  }

  it('is a pure function of the seed and the virtual instant: same seed same rates, reading changes nothing, another seed differs', async () => {
    const hours = [0, 1, 2, 3];
    const a = await run(await server({ rates: 'walk', rateVolatility: 5 }), hours);
    const b = await run(await server({ rates: 'walk', rateVolatility: 5 }), hours, true);
    expect(b).toBe(a);
    const other = await run(await server({ rates: 'walk', rateVolatility: 5, seed: 10 }), hours);
    expect(other).not.toBe(a);
    const fixed = await run(await server(), hours);
    expect(fixed).not.toBe(a);
    // fixed: the fixtures' rate at every hour
    expect(JSON.parse(fixed).map((x: { usdt: { buy_rate: number } }) => x.usdt.buy_rate)).toEqual([1565.5, 1565.5, 1565.5, 1565.5]);
    const walked = JSON.parse(a).map((x: { usdt: { buy_rate: number } }) => x.usdt.buy_rate);
    expect(walked[0]).toBe(1565.5); // the walk starts at the fixture, at the clock's start
    expect(new Set(walked).size).toBe(4);
    // 5% an hour: within 30% after three hours (about 6 standard deviations)
    for (const r of walked) expect(Math.abs(Math.log(r / 1565.5))).toBeLessThan(0.3);
  });

  it('continues the same walk after a restore, the mode coming with the state document', async () => {
    const a = await server({ rates: 'walk', rateVolatility: 5 });
    await advance(a, '1h');
    const doc = (await a.control('GET', '/sandbox/state')).body.data;
    expect(doc.market).toEqual({ rates: 'walk', rate_volatility: 5, scripts: [] });
    await advance(a, '2h');
    const later = await marketRate(a);
    const b = await server(); // started fixed: the document brings the walk
    expect((await b.control('PUT', '/sandbox/state', doc)).status).toBe(200);
    expect((await b.controlApi.listRates()).rates).toBe('walk');
    await advance(b, '2h');
    expect((await marketRate(b)).buy_rate).toBe(later.buy_rate);
  });

  it('is read from --rates and --rate-volatility', async () => {
    const { loadConfig } = await import('../../src/sandbox/config');
    expect(loadConfig(['--rates', 'walk', '--rate-volatility', '2.5'], {})).toMatchObject({ rates: 'walk', rateVolatility: 2.5 });
    expect(loadConfig([], { SANDBOX_RATES: 'walk' })).toMatchObject({ rates: 'walk', rateVolatility: 1 });
    expect(loadConfig([], {})).toMatchObject({ rates: 'fixed' });
    expect(() => loadConfig(['--rates', 'random'], {})).toThrow(/--rates: random is not fixed or walk/);
    expect(() => loadConfig(['--rate-volatility', '-1'], {})).toThrow(/--rate-volatility/);
  });
});
