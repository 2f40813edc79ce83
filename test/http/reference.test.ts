import { cpSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_FIXTURES_DIR, loadFixtures } from '../../src/reference';
import { startTestServer, T0, type TestServer } from '../support/server';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s.close());

describe('reference data (spec §4.2)', () => {
  it('lists fiat currencies with decimals', async () => {
    const res = await s.pub('GET', '/v1/fiat-currencies');
    expect(res.status).toBe(200);
    expect(res.body.data.length).toBeGreaterThanOrEqual(4);
    for (const f of res.body.data) {
      expect(Object.keys(f).sort()).toEqual(['code', 'decimals', 'id', 'logo', 'name', 'short_name', 'symbol']);
      expect(Number.isInteger(f.decimals)).toBe(true);
    }
  });

  it('lists crypto currencies with base_asset_code, and one by symbol', async () => {
    const res = await s.pub('GET', '/v1/crypto-currencies');
    expect(res.body.data.length).toBeGreaterThanOrEqual(5);
    for (const c of res.body.data) {
      expect(Object.keys(c).sort()).toEqual(['base_asset_code', 'id', 'logo', 'name', 'symbol']);
    }
    const one = await s.pub('GET', '/v1/crypto-currencies/USDT');
    expect(one.body.data).toMatchObject({ symbol: 'USDT', base_asset_code: 'USD' });
    expect((await s.pub('GET', '/v1/crypto-currencies/NOPE')).status).toBe(404);
  });

  it('lists at least 6 networks per environment with consistent chain ids', async () => {
    for (const env of ['test', 'live'] as const) {
      const res = await s.pub('GET', '/v1/networks', { env });
      expect(res.body.data.length).toBeGreaterThanOrEqual(6);
      for (const n of res.body.data) {
        expect(Object.keys(n).sort()).toEqual([
          'chain_id',
          'chain_id_hex',
          'explorer_url',
          'id',
          'identifier',
          'is_evm',
          'is_testnet',
          'logo',
        ]);
        expect(n.chain_id_hex).toBe(`0x${n.chain_id.toString(16)}`);
        expect(n.is_testnet).toBe(env === 'test');
        expect(n.explorer_url).toMatch(/^https:\/\//);
      }
      expect(res.body.data.some((n: any) => !n.is_evm)).toBe(true);
    }
    const eth = await s.pub('GET', '/v1/networks/ethereum', { env: 'live' });
    expect(eth.body.data).toMatchObject({ chain_id: 1, chain_id_hex: '0x1', is_evm: true });
    expect((await s.pub('GET', '/v1/networks/nope')).status).toBe(404);
  });

  it('agrees both ways on which currency is on which network', async () => {
    const nets = (await s.pub('GET', '/v1/networks')).body.data;
    for (const n of nets) {
      const cryptos = (await s.pub('GET', `/v1/networks/${n.identifier}/crypto-currencies`)).body.data;
      expect(cryptos.length).toBeGreaterThan(0);
      for (const c of cryptos) {
        const back = (await s.pub('GET', `/v1/crypto-currencies/${c.symbol}/networks`)).body.data;
        expect(back.map((x: any) => x.identifier)).toContain(n.identifier);
      }
    }
  });

  it('lists at least 8 institutions per fiat, scoped to it', async () => {
    const fiats = (await s.pub('GET', '/v1/fiat-currencies')).body.data;
    for (const f of fiats) {
      const res = await s.pub('GET', `/v1/institutions?fiat=${f.code}`);
      expect(res.status).toBe(200);
      expect(res.body.data.length).toBeGreaterThanOrEqual(8);
      for (const i of res.body.data) {
        expect(i).toEqual({
          code: expect.any(String),
          name: expect.any(String),
          type: expect.stringMatching(/^(bank|mobile_money)$/),
          country: expect.stringMatching(/^[A-Z]{2}$/),
          fiat: f.code,
        });
      }
    }
    expect((await s.pub('GET', '/v1/institutions')).body.message).toMatch(/^fiat: /);
    expect((await s.pub('GET', '/v1/institutions?fiat=XYZ')).status).toBe(404);
  });

  it('resolves any 10-digit account at a known institution, deterministically', async () => {
    const a = await s.pub('GET', '/v1/account-lookup?account_number=0123456789&bank_code=058');
    expect(a.status).toBe(200);
    expect(a.body.data).toEqual({
      account_name: expect.stringMatching(/^[A-Z' -]+$/),
      account_number: '0123456789',
      bank_code: '058',
      bank_name: 'Guaranty Trust Bank',
    });
    const again = await s.pub('GET', '/v1/account-lookup?account_number=0123456789&bank_code=058');
    expect(again.body.data.account_name).toBe(a.body.data.account_name);
    const otherBank = await s.pub('GET', '/v1/account-lookup?account_number=0123456789&bank_code=044');
    const otherAcct = await s.pub('GET', '/v1/account-lookup?account_number=0123456780&bank_code=058');
    expect(new Set([a.body.data.account_name, otherBank.body.data.account_name, otherAcct.body.data.account_name]).size).toBeGreaterThan(1);
  });

  it('gives the same names under the same seed and different ones under another', async () => {
    const path = '/v1/account-lookup?account_number=5550001234&bank_code=KE68';
    const same = await startTestServer({ seed: 1 });
    const other = await startTestServer({ seed: 2 });
    try {
      const a = (await s.pub('GET', path)).body.data.account_name;
      expect((await same.pub('GET', path)).body.data.account_name).toBe(a);
      expect((await other.pub('GET', path)).body.data.account_name).not.toBe(a);
    } finally {
      await same.close();
      await other.close();
    }
  });

  it('answers 404 for the magic not-found account and unknown banks, 422 for bad input', async () => {
    const magic = await s.pub('GET', '/v1/account-lookup?account_number=0000000000&bank_code=058');
    expect(magic.status).toBe(404);
    expect(magic.body.code).toBe('E_NOTFOUND');
    expect((await s.pub('GET', '/v1/account-lookup?account_number=0123456789&bank_code=999')).status).toBe(404);
    const short = await s.pub('GET', '/v1/account-lookup?account_number=12345&bank_code=058');
    expect(short.status).toBe(422);
    expect(short.body.message).toMatch(/^account_number: /);
    const missing = await s.pub('GET', '/v1/account-lookup?account_number=0123456789');
    expect(missing.status).toBe(422);
    expect(missing.body.message).toMatch(/^bank_code: /);
  });

  it('gives market rates for every fiat/crypto pair (CONTRACT §7 shape)', async () => {
    const fiats = (await s.pub('GET', '/v1/fiat-currencies')).body.data;
    const cryptos = (await s.pub('GET', '/v1/crypto-currencies')).body.data;
    for (const f of fiats) {
      for (const c of cryptos) {
        const res = await s.pub('GET', `/v1/market-rates/${f.code}_${c.symbol}`);
        expect(res.status).toBe(200);
        expect(res.body.data).toEqual({
          pair: `${f.code}_${c.symbol}`,
          fiat: f.code,
          crypto: c.symbol,
          buy_rate: expect.any(Number),
          sell_rate: expect.any(Number),
          timestamp: new Date(T0).toISOString(),
        });
        expect(res.body.data.buy_rate).toBeGreaterThanOrEqual(res.body.data.sell_rate);
      }
    }
    for (const bad of ['USDT_NGN', 'NGN', 'NGN_USDT_X', 'XXX_USDT']) {
      expect((await s.pub('GET', `/v1/market-rates/${bad}`)).status, bad).toBe(404);
    }
  });

  it('gives exchange rates between any two known currencies', async () => {
    const res = await s.pub('GET', '/v1/exchange-rate?from=USDT&to=NGN');
    expect(res.body.data).toEqual({ from: 'USDT', to: 'NGN', rate: expect.any(Number), timestamp: expect.any(String) });
    const back = (await s.pub('GET', '/v1/exchange-rate?from=NGN&to=USDT')).body.data.rate;
    expect(res.body.data.rate * back).toBeCloseTo(1, 6);
    expect((await s.pub('GET', '/v1/exchange-rate?from=ETH&to=USDC')).body.data.rate).toBeGreaterThan(100);
    expect((await s.pub('GET', '/v1/exchange-rate?from=KES&to=NGN')).body.data.rate).toBeGreaterThan(1);
    expect((await s.pub('GET', '/v1/exchange-rate?from=NGN')).status).toBe(422);
    expect((await s.pub('GET', '/v1/exchange-rate?from=NGN&to=NOPE')).status).toBe(404);
  });

  it('serves the shapes of GET /health and /v1/health without auth', async () => {
    for (const path of ['/health', '/v1/health']) {
      const res = await s.request('GET', path);
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual({
        uptime_s: expect.any(Number),
        version: expect.any(String),
        clock: { now: new Date(T0).toISOString(), mode: 'manual' },
        evicted_orders: 0,
      });
    }
  });
});

describe('fixtures (--fixtures DIR)', () => {
  it('replaces the shipped reference data', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fixtures-'));
    cpSync(DEFAULT_FIXTURES_DIR, dir, { recursive: true });
    const fiats = JSON.parse(readFileSync(join(dir, 'fiat-currencies.json'), 'utf8'));
    fiats[0].name = 'Renamed Naira';
    writeFileSync(join(dir, 'fiat-currencies.json'), JSON.stringify(fiats));
    const c = await startTestServer({ fixturesDir: dir });
    try {
      const res = await c.pub('GET', '/v1/fiat-currencies');
      expect(res.body.data[0].name).toBe('Renamed Naira');
    } finally {
      await c.close();
    }
  });

  it('accepts fixture files saved with a UTF-8 byte order mark', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fixtures-'));
    cpSync(DEFAULT_FIXTURES_DIR, dir, { recursive: true });
    for (const file of readdirSync(dir)) writeFileSync(join(dir, file), `\uFEFF${readFileSync(join(dir, file), 'utf8')}`);
    const c = await startTestServer({ fixturesDir: dir });
    try {
      const res = await c.pub('GET', '/v1/fiat-currencies');
      expect(res.status).toBe(200);
      expect(res.body.data.length).toBeGreaterThan(0);
    } finally {
      await c.close();
    }
  });

  it('refuses a fixtures directory with bad data, naming the file and field', () => {
    const dir = mkdtempSync(join(tmpdir(), 'fixtures-'));
    cpSync(DEFAULT_FIXTURES_DIR, dir, { recursive: true });
    const nets = JSON.parse(readFileSync(join(dir, 'networks.json'), 'utf8'));
    nets.test[0].chain_id_hex = '0xAA';
    writeFileSync(join(dir, 'networks.json'), JSON.stringify(nets));
    expect(() => loadFixtures(dir)).toThrow(/networks\.json: test\.0\.chain_id_hex/);
    expect(() => loadFixtures(join(dir, 'missing'))).toThrow(/fiat-currencies\.json/);
  });
});
