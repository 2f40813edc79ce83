import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../clock';
import { DEFAULT_FIXTURES_DIR, loadFixturesOnce } from './fixtures.loader';
import { createMarket, MAX_RATE, MIN_RATE, walkAt } from './market';
import { MAX_INSTANT } from '../shared/schemas';

const fixtures = loadFixturesOnce(DEFAULT_FIXTURES_DIR);
const T0 = Date.UTC(2026, 0, 15, 12);
const HOUR = 3_600_000;
const market = (seed: number, rates: 'fixed' | 'walk' = 'walk', start = T0) =>
  createMarket(fixtures.rates, { seed, clock: new VirtualClock({ start, mode: 'manual' }) }, { rates, rateVolatility: 5 });

describe('the market (CONTRACT §22)', () => {
  it('walks as a pure function of (seed, pair, instant): any reading order gives the same rates', () => {
    const instants = [0, 1, 59, 60, 61, 1_000, 5_000, 60 * 24 * 30].map((m) => T0 + m * 60_000 + 30_000);
    const forward = market(3);
    const a = instants.map((t) => forward.ratesAt('NGN_USDT', t));
    const backward = market(3);
    // read the other way round, and other pairs in between: nothing read changes what is read later
    const b = [...instants]
      .reverse()
      .map((t) => {
        backward.ratesAt('NGN_ETH', t);
        return backward.ratesAt('NGN_USDT', t);
      })
      .reverse();
    expect(b).toEqual(a);
    expect(instants.map((t) => market(4).ratesAt('NGN_USDT', t))).not.toEqual(a);
    // at the clock's start, and within the first minute, the fixture's rate
    expect(forward.ratesAt('NGN_USDT', T0 + 59_999)).toEqual(fixtures.rates.NGN_USDT);
    // a step per virtual minute: the same rate within one
    expect(forward.ratesAt('NGN_USDT', T0 + HOUR)).toEqual(forward.ratesAt('NGN_USDT', T0 + HOUR + 59_999));
  });

  it('keeps the spread and stays near the fixture at the stated volatility', () => {
    const m = market(1);
    const f = fixtures.rates.NGN_USDT!;
    const moves: number[] = [];
    for (let h = 1; h <= 200; h++) {
      const r = m.ratesAt('NGN_USDT', T0 + h * HOUR)!;
      expect(r.buy_rate / r.sell_rate).toBeCloseTo(f.buy_rate / f.sell_rate, 8);
      moves.push(Math.log(r.buy_rate / m.ratesAt('NGN_USDT', T0 + (h - 1) * HOUR)!.buy_rate));
    }
    const sd = Math.sqrt(moves.reduce((s, x) => s + x * x, 0) / moves.length);
    expect(sd).toBeGreaterThan(0.035); // 5% an hour, within sampling error over 200 hours
    expect(sd).toBeLessThan(0.065);
  });

  it("draws the walk's steps independent and N(0, 1), the same whichever step is read first", () => {
    // walkAt(base, k) is the sum of the first k steps: its differences are the steps.
    const steps = Array.from({ length: 20_000 }, (_, k) => walkAt(7, k + 1) - walkAt(7, k));
    const mean = steps.reduce((a, x) => a + x, 0) / steps.length;
    const variance = steps.reduce((a, x) => a + (x - mean) ** 2, 0) / steps.length;
    expect(Math.abs(mean)).toBeLessThan(0.03); // 4 standard errors of 1/√20,000
    expect(variance).toBeGreaterThan(0.95);
    expect(variance).toBeLessThan(1.05);
    const lag1 = steps.slice(1).reduce((a, x, i) => a + (x - mean) * (steps[i]! - mean), 0) / (steps.length - 1) / variance;
    expect(Math.abs(lag1)).toBeLessThan(0.03);
    // a sum over many steps has the variance of their number (here over 1,000 disjoint spans of 4,096)
    const spans = Array.from({ length: 1000 }, (_, j) => walkAt(11, (j + 1) * 4096) - walkAt(11, j * 4096));
    const spanVariance = spans.reduce((a, x) => a + x * x, 0) / spans.length / 4096;
    expect(spanVariance).toBeGreaterThan(0.85);
    expect(spanVariance).toBeLessThan(1.15);
    expect(walkAt(7, 0)).toBe(0);
  });

  it('reads a rate thousands of years on at once, and keeps it within the range a script may set', () => {
    // Summing every minute's step since the start took 11 s for a read 7,800 years on (and kept
    // 32 MB a pair); at 100% an hour the rate reached 0, then Infinity, then NaN (answered null).
    for (const volatility of [1, 50, 100]) {
      const m = createMarket(
        fixtures.rates,
        { seed: 1, clock: new VirtualClock({ start: 0, mode: 'manual' }) },
        { rates: 'walk', rateVolatility: volatility },
      );
      for (let year = 1; year <= 7900; year += 37) {
        for (const pair of ['NGN_USDT', 'KES_USDT', 'NGN_ETH']) {
          const r = m.ratesAt(pair, Math.min(year * 365 * 86_400_000, MAX_INSTANT))!;
          const mid = (r.buy_rate + r.sell_rate) / 2;
          expect(Number.isFinite(r.buy_rate) && Number.isFinite(r.sell_rate)).toBe(true);
          expect(mid).toBeGreaterThanOrEqual(MIN_RATE * 0.999_999);
          expect(mid).toBeLessThanOrEqual(MAX_RATE * 1.000_001);
        }
      }
    }
  });

  it('is the fixture in fixed mode, and a script holds each point until the next (a step)', () => {
    const m = market(1, 'fixed');
    expect(m.ratesAt('NGN_USDT', T0 + 100 * HOUR)).toBe(fixtures.rates.NGN_USDT);
    m.script('NGN_USDT', [
      { at_ms: T0 + 10_000, rate: 1600 },
      { at_ms: T0 + 20_000, rate: 1500 },
    ]);
    expect(m.ratesAt('NGN_USDT', T0 + 9_999)).toBe(fixtures.rates.NGN_USDT);
    expect(m.ratesAt('NGN_USDT', T0 + 10_000)).toEqual({ buy_rate: 1616, sell_rate: 1584 });
    expect(m.ratesAt('NGN_USDT', T0 + 19_999)).toEqual({ buy_rate: 1616, sell_rate: 1584 });
    expect(m.ratesAt('NGN_USDT', T0 + 10 * HOUR)).toEqual({ buy_rate: 1515, sell_rate: 1485 });
    expect(m.exportState()).toEqual({
      rates: 'fixed',
      rate_volatility: 5,
      scripts: [
        {
          pair: 'NGN_USDT',
          path: [
            { at_ms: T0 + 10_000, rate: 1600 },
            { at_ms: T0 + 20_000, rate: 1500 },
          ],
        },
      ],
    });
    m.clear();
    expect(m.exportState()).toBeUndefined();
    expect(() => m.script('NGN_XYZ', [{ at_ms: T0, rate: 1 }])).toThrow(/Market pair NGN_XYZ not found/);
  });
});
