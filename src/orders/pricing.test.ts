import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../clock';
import { createReferenceStore, loadFixtures, type Environment } from '../reference';
import { ApiError } from '../shared/errors';
import { price, type OrderType, type Priced } from './pricing';
import { seeded } from '../../test/support/property';

const fixtures = loadFixtures();
const ref = createReferenceStore(fixtures, { seed: 1, clock: new VirtualClock({ start: 0 }) });
const env: Environment = 'test';
const networks = fixtures.networks.test;
const fiats = fixtures.fiats.map((f) => f.code);

const pairArb = fc
  .record({
    network: fc.constantFrom(...networks),
    fiat: fc.constantFrom(...fiats),
    type: fc.constantFrom<OrderType>('onramp', 'offramp', 'swap'),
    onFrom: fc.boolean(),
    amount: fc.double({ min: 0.000001, max: 5_000_000, noNaN: true }),
    partnerFee: fc.constantFrom(0, 0.5, 2.5),
    pick: fc.nat(),
  })
  .map((r) => {
    const cryptos = r.network.currencies;
    const a = cryptos[r.pick % cryptos.length]!;
    const b = cryptos[(r.pick + 1) % cryptos.length]!;
    const crypto = { currency: a, network: r.network.identifier };
    const fiat = { currency: r.fiat };
    const [from, to] =
      r.type === 'onramp'
        ? [fiat, crypto]
        : r.type === 'offramp'
          ? [crypto, fiat]
          : [crypto, { currency: b, network: r.network.identifier }];
    const amount = { amount: r.amount };
    return {
      ...r,
      from: r.onFrom ? { ...from, ...amount } : { ...from },
      to: r.onFrom ? { ...to } : { ...to, ...amount },
    };
  });

const decimalsOf = (code: string) =>
  fixtures.fiats.find((f) => f.code === code)?.decimals ?? fixtures.cryptos.find((c) => c.symbol === code)!.precision;
const hasAtMost = (value: number, decimals: number) => Math.abs(Number(value.toFixed(decimals)) - value) < 1e-9;

describe('pricing invariants (property)', () => {
  it('rounds to precision, keeps total = sum of parts, and keeps legs consistent with rate and fee', () => {
    fc.assert(
      fc.property(pairArb, (r) => {
        let p: Priced;
        try {
          p = price(ref, env, r.type, r.from, r.to, r.partnerFee);
        } catch (error) {
          // Only "too small to cover fees" may refuse a valid request.
          expect(error).toBeInstanceOf(ApiError);
          expect((error as ApiError).message).toMatch(/too small/);
          return;
        }
        expect(p.type).toBe(r.type);
        expect(p.from.amount).toBeGreaterThan(0);
        expect(p.to.amount).toBeGreaterThan(0);
        expect(hasAtMost(p.from.amount, decimalsOf(p.from.currency))).toBe(true);
        expect(hasAtMost(p.to.amount, decimalsOf(p.to.currency))).toBe(true);
        const f = p.fee;
        const feeDecimals = decimalsOf(f.currency);
        for (const part of [f.network_fee, f.protocol_fee, f.partner_fee, f.vat, f.total]) {
          expect(part).toBeGreaterThanOrEqual(0);
          expect(hasAtMost(part, feeDecimals)).toBe(true);
        }
        expect(f.total).toBeCloseTo(f.network_fee + f.protocol_fee + f.partner_fee + f.vat, feeDecimals);
        expect(f.fee_in_rate).toBe(r.type === 'swap');
        const rate = p.pricing.exchange_rate;
        if (r.type === 'onramp') {
          // fiat paid = crypto value at the rate + fees, within one unit of rounding each side
          const tol = rate * 10 ** -decimalsOf(p.to.currency) + 3 * 10 ** -feeDecimals + 1e-6 * p.from.amount;
          expect(Math.abs(p.from.amount - (p.to.amount * rate + f.total))).toBeLessThanOrEqual(
            tol + rate * 10 ** -decimalsOf(p.to.currency),
          );
        } else if (r.type === 'offramp') {
          const tol = rate * 10 ** -decimalsOf(p.from.currency) + 3 * 10 ** -feeDecimals + 1e-6 * p.to.amount;
          expect(Math.abs(p.to.amount - (p.from.amount * rate - f.total))).toBeLessThanOrEqual(tol + 10 ** -feeDecimals);
        } else {
          expect(p.to.amount).toBeLessThanOrEqual(
            p.from.amount * (ref.midRate(fiats[0]!, p.from.currency)! / ref.midRate(fiats[0]!, p.to.currency)!) + 1e-6,
          );
          expect(p.pricing).toMatchObject({ base_currency: p.from.currency, quote_currency: p.to.currency });
        }
        // the given amount is kept
        if (r.onFrom) expect(p.from.amount).toBeCloseTo(r.amount, decimalsOf(p.from.currency) - 1);
        else expect(p.to.amount).toBeCloseTo(r.amount, decimalsOf(p.to.currency) - 1);
      }),
      seeded({ numRuns: 1000 }),
    );
  });

  it('prices nothing past what an order may hold: any leg up to the 1e12 a body may give is priced within 1e18 or refused', () => {
    // A state document refuses amounts past 1e18 (MAX_STORED_AMOUNT): 1e12 ETH priced in NGN
    // came to 4.9e18, and the state saved with that quote did not load again.
    const big = pairArb.chain((r) =>
      fc.double({ min: 1e6, max: 1e12, noNaN: true }).map((amount) => ({
        ...r,
        from: r.onFrom ? { ...r.from, amount } : r.from,
        to: r.onFrom ? r.to : { ...r.to, amount },
      })),
    );
    fc.assert(
      fc.property(big, (r) => {
        let p: Priced;
        try {
          p = price(ref, env, r.type, r.from, r.to, r.partnerFee);
        } catch (error) {
          expect((error as ApiError).message).toMatch(/^amount is too (small|large)/);
          return;
        }
        for (const amount of [p.from.amount, p.to.amount, p.fee.total]) expect(amount).toBeLessThanOrEqual(1e18);
      }),
      seeded({ numRuns: 500 }),
    );
    expect(() => price(ref, env, 'offramp', { currency: 'ETH', network: 'base-sepolia', amount: 1e12 }, { currency: 'NGN' })).toThrow(
      /^amount is too large: to\.amount would come to \d+ NGN, more than 1e18/,
    );
  });

  it("says an amount worth less than the other currency's smallest unit is too small for the rate, not for its fees", () => {
    // A scripted rate may be anywhere from 1e-8 to 1e12 (docs/market-rates.md): at 1e-8 NGN per
    // USDT, 1 USDT is worth nothing in NGN, and the message said "fees alone come to 0 NGN".
    const at = (pair: string, rate: number) => {
      const scripted = createReferenceStore(fixtures, { seed: 1, clock: new VirtualClock({ start: 0 }) });
      scripted.market.script(pair, [{ at_ms: 0, rate }]);
      return scripted;
    };
    const usdt = { currency: 'USDT', network: 'base-sepolia' };
    const eth = { currency: 'ETH', network: 'base-sepolia' };
    expect(() => price(at('NGN_USDT', 1e-8), env, 'offramp', { ...usdt, amount: 1 }, { currency: 'NGN' })).toThrow(
      /^amount is too small: 1 USDT comes to less than 0\.01 NGN \(its smallest unit\) at [\d.e-]+ NGN per USDT$/,
    );
    // ETH at 1e12 NGN (the network fee stays in USD terms, through USDT): 5,000 NGN buys no wei that counts.
    expect(() => price(at('NGN_ETH', 1e12), env, 'onramp', { currency: 'NGN', amount: 5000 }, eth)).toThrow(
      /^amount is too small: [\d.]+ NGN comes to less than 0\.0+1 ETH \(its smallest unit\) at [\d.e+]+ NGN per ETH$/,
    );
    // A swap of 1 USDT into ETH at about 6e8 USDT per ETH.
    expect(() => price(at('NGN_ETH', 1e12), env, 'swap', { ...usdt, amount: 1 }, eth)).toThrow(
      /^amount is too small: [\d.]+ USDT comes to less than 0\.0+1 ETH \(its smallest unit\) at [\d.e-]+ ETH per USDT$/,
    );
    // The amount on the leg received: 1 USDT is worth no NGN at 1e-8; with ETH at 1e12 NGN too,
    // 1 USDT is worth no ETH (each said "fees alone come to 0 …").
    expect(() => price(at('NGN_USDT', 1e-8), env, 'onramp', { currency: 'NGN' }, { ...usdt, amount: 1 })).toThrow(
      /^amount is too small: 1 USDT comes to less than 0\.01 NGN \(its smallest unit\) at [\d.e-]+ NGN per USDT$/,
    );
    const both = at('NGN_USDT', 1e-8);
    both.market.script('NGN_ETH', [{ at_ms: 0, rate: 1e12 }]);
    expect(() => price(both, env, 'swap', { currency: 'ETH', network: 'base-sepolia' }, { ...usdt, amount: 1 })).toThrow(
      /^amount is too small: 1 USDT comes to less than 0\.0+1 ETH \(its smallest unit\) at \d+ USDT per ETH$/,
    );
    // Fees that eat the whole amount are still named as fees.
    expect(() => price(ref, env, 'onramp', { currency: 'NGN', amount: 10 }, usdt)).toThrow(
      /^amount is too small: fees alone come to [\d.]+ NGN$/,
    );
    expect(() => price(ref, env, 'offramp', { ...usdt, amount: 0.01 }, { currency: 'NGN' })).toThrow(/^amount is too small: fees alone/);
  });
});
