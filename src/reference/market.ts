// Moving markets on the virtual clock (CONTRACT §22): what a pair's rate is at a virtual instant.
import * as z from 'zod';
import type { Clock } from '../clock';
import { notFound, validationError } from '../shared/errors';
import { hashSeed } from '../shared/ids';
import { Instant, MAX_INSTANT } from '../shared/schemas';
import type { RateFixture } from './fixtures.schema';

/** `fixed`: the fixtures' rates, always (today's behaviour); `walk`: a seeded random walk from them. */
export const RATE_MODES = ['fixed', 'walk'] as const;
export type RateMode = (typeof RATE_MODES)[number];

/** The walk's default volatility, percent per virtual hour. */
export const DEFAULT_RATE_VOLATILITY = 1;
/** Highest volatility a sandbox takes (percent per virtual hour): beyond it rates are noise. */
export const MAX_RATE_VOLATILITY = 100;
/** Points of one pair's path at most (CONTRACT §9: every input is bounded). */
export const MAX_PATH_POINTS = 1000;
/** Highest scripted rate: any fixture's rate is far below, and amounts stay finite. */
export const MAX_RATE = 1e12;
/** Lowest scripted rate: below it a conversion's amounts leave the range of numbers they are kept in. */
export const MIN_RATE = 1e-8;

/** The walk moves once per virtual minute (a step), so a quote and a market rate read in the same minute agree. */
const STEP_MS = 60_000;
/**
 * Steps the walk is drawn over: a power of two past every step a clock can take (its instants
 * run from 0 to MAX_INSTANT), so any step is reached by halving [0, WALK_SPAN] at most 33 times.
 */
const WALK_SPAN = 2 ** Math.ceil(Math.log2(MAX_INSTANT / STEP_MS + 1));

export const RatePointSchema = z.object({ at_ms: Instant, rate: z.number().min(MIN_RATE).max(MAX_RATE) });
const RateScriptStateSchema = z.object({
  pair: z.string().regex(/^[A-Z0-9]+_[A-Z0-9]+$/),
  path: z.array(RatePointSchema).min(1).max(MAX_PATH_POINTS),
});
/** The market's part of a state document (CONTRACT §13, §22): its mode, so a restore continues the same walk, and the scripts. */
export const MarketStateSchema = z.object({
  rates: z.enum(RATE_MODES),
  rate_volatility: z.number().nonnegative().max(MAX_RATE_VOLATILITY),
  scripts: z.array(RateScriptStateSchema).max(10_000),
});
export type MarketState = z.output<typeof MarketStateSchema>;
export type RatePoint = z.output<typeof RatePointSchema>;

export interface MarketOptions {
  /** Default `fixed`. */
  rates?: RateMode;
  /** Percent per virtual hour (default 1). */
  rateVolatility?: number;
}

export interface BuySell {
  buy_rate: number;
  sell_rate: number;
}

/**
 * A pair's rate at a virtual instant: its script's (the last point at or before the instant:
 * a step, held until the next point), else the walk's (mode `walk`), else the fixture's. Every
 * rate is a pure function of (seed, pair, instant, the clock's start, the scripts): reading one
 * changes nothing, so the same traffic gives the same rates however often they are read.
 */
export function createMarket(
  fixtureRates: Record<string, RateFixture>,
  deps: { seed: number; clock: Clock & { readonly start?: number } },
  options: MarketOptions = {},
) {
  const { seed, clock } = deps;
  const configured: { rates: RateMode; volatility: number } = {
    rates: options.rates ?? 'fixed',
    volatility: options.rateVolatility ?? DEFAULT_RATE_VOLATILITY,
  };
  let mode = configured.rates;
  let volatility = configured.volatility;
  const scripts = new Map<string, RatePoint[]>();
  const pairSeeds = new Map<string, number>();

  const pairSeed = (pair: string) => {
    let s = pairSeeds.get(pair);
    if (s === undefined) {
      s = hashSeed('market walk', seed, pair);
      pairSeeds.set(pair, s);
    }
    return s;
  };

  function walked(pair: string, fixture: RateFixture, at: number): RateFixture {
    // From the clock's start (a reset or restore puts it back, so the walk is the same again).
    const k = Math.floor((at - (clock.start ?? 0)) / STEP_MS);
    if (k <= 0 || volatility === 0) return fixture;
    // Log-returns per minute of σ = P% / √60, so P% per virtual hour; the mid rate stays within
    // what a script may set (MIN_RATE..MAX_RATE): past them amounts are no longer numbers.
    const mid = (fixture.buy_rate + fixture.sell_rate) / 2;
    const drift = (volatility / 100 / Math.sqrt(60)) * walkAt(pairSeed(pair), k);
    const factor = Math.exp(Math.min(Math.max(drift, Math.log(MIN_RATE / mid)), Math.log(MAX_RATE / mid)));
    return { buy_rate: sig(fixture.buy_rate * factor), sell_rate: sig(fixture.sell_rate * factor) };
  }

  /** A pair's buy and sell rates at `at` (virtual ms); undefined for a pair the fixtures lack. */
  function ratesAt(pair: string, at: number): RateFixture | undefined {
    const fixture = Object.hasOwn(fixtureRates, pair) ? fixtureRates[pair] : undefined;
    if (!fixture) return undefined;
    const path = scripts.get(pair);
    if (path) {
      const point = lastAtOrBefore(path, at);
      // A scripted rate is the mid; buy and sell keep the fixture's spread around it.
      if (point) {
        const mid = (fixture.buy_rate + fixture.sell_rate) / 2;
        return { buy_rate: sig((point.rate * fixture.buy_rate) / mid), sell_rate: sig((point.rate * fixture.sell_rate) / mid) };
      }
    }
    return mode === 'walk' ? walked(pair, fixture, at) : fixture;
  }

  function requirePair(pair: string): string {
    const p = pair.trim().toUpperCase();
    // As GET /v1/market-rates/{pair} answers a pair it does not know: 404.
    if (!Object.hasOwn(fixtureRates, p))
      throw notFound(`Market pair ${pair} not found; use <fiat>_<crypto> as GET /v1/market-rates/{pair} takes it, e.g. NGN_USDT`);
    return p;
  }

  return {
    ratesAt,
    /** The rates now, on the virtual clock. */
    rates: (pair: string) => ratesAt(pair, clock.now()),
    get mode(): RateMode {
      return mode;
    },
    get volatility(): number {
      return volatility;
    },
    /** Scripts a pair's path (replacing any it had); points already in virtual ms, strictly increasing. */
    script(pair: string, path: RatePoint[]): { pair: string; path: RatePoint[] } {
      const p = requirePair(pair);
      if (path.length === 0 || path.length > MAX_PATH_POINTS) throw validationError('path', `must have 1 to ${MAX_PATH_POINTS} points`);
      path.forEach((point, i) => {
        if (i > 0 && point.at_ms <= path[i - 1]!.at_ms)
          throw validationError(`path.${i}.at`, 'must be later than the point before it (points in time order)');
      });
      const kept = path.map((x) => ({ at_ms: x.at_ms, rate: x.rate }));
      scripts.set(p, kept);
      return { pair: p, path: kept };
    },
    scripts: (): Array<{ pair: string; path: RatePoint[] }> =>
      [...scripts].map(([pair, path]) => ({ pair, path })).sort((a, b) => (a.pair < b.pair ? -1 : 1)),
    /** Removes a pair's script; 404 when it has none. */
    unscript(pair: string): { pair: string; path: RatePoint[] } {
      const p = pair.trim().toUpperCase();
      const path = scripts.get(p);
      if (!path) throw notFound(`No rate script for pair ${pair}`);
      scripts.delete(p);
      return { pair: p, path };
    },
    /** CONTRACT §4 reset: the scripts go; the mode stays as configured. */
    clear(): void {
      scripts.clear();
      mode = configured.rates;
      volatility = configured.volatility;
    },
    /**
     * The market's part of a state document; undefined when it says nothing a sandbox started
     * with `--rates fixed` would not (so such a sandbox's document is what it was before §22).
     */
    exportState(): MarketState | undefined {
      if (mode === 'fixed' && configured.rates === 'fixed' && scripts.size === 0) return undefined;
      const sorted = [...scripts].sort(([a], [b]) => (a < b ? -1 : 1));
      return {
        rates: mode,
        rate_volatility: volatility,
        scripts: sorted.map(([pair, path]) => ({ pair, path: path.map((x) => ({ ...x })) })),
      };
    },
    /** Checks a document's market part against the fixtures (422 naming the field); nothing changes. */
    check(state: MarketState | undefined, field = 'market'): void {
      state?.scripts.forEach((s, i) => {
        if (!Object.hasOwn(fixtureRates, s.pair)) throw validationError(`${field}.scripts.${i}.pair`, `unknown pair ${s.pair}`);
        s.path.forEach((point, j) => {
          if (j > 0 && point.at_ms <= s.path[j - 1]!.at_ms)
            throw validationError(`${field}.scripts.${i}.path.${j}.at_ms`, 'must be later than the point before it');
        });
      });
    },
    /** Replaces mode and scripts with a document's (absent: the configured mode, no scripts). */
    restore(state: MarketState | undefined): void {
      scripts.clear();
      mode = state?.rates ?? configured.rates;
      volatility = state?.rate_volatility ?? configured.volatility;
      for (const s of state?.scripts ?? [])
        scripts.set(
          s.pair,
          s.path.map((x) => ({ at_ms: x.at_ms, rate: x.rate })),
        );
    },
  };
}

export type Market = ReturnType<typeof createMarket>;

/** The last point at or before `at` (points in time order), by binary search. */
function lastAtOrBefore(path: readonly RatePoint[], at: number): RatePoint | undefined {
  let lo = 0;
  let hi = path.length - 1;
  let found: RatePoint | undefined;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (path[mid]!.at_ms <= at) {
      found = path[mid];
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found;
}

/**
 * The sum of a walk's first `k` steps, each N(0, 1), as a pure function of (`base`, `k`) in at
 * most 33 halvings (a Brownian bridge): the sum over the whole span is drawn first, then each
 * midpoint between two known sums, from the hash of the midpoint alone, until `k` is reached.
 * So a rate 7,000 years on costs what a rate a minute on does, and nothing is kept between reads
 * (summing every minute's step since the start took 11 s for a read 7,800 years on).
 */
export function walkAt(base: number, k: number): number {
  k = Math.min(Math.max(0, Math.floor(k)), WALK_SPAN); // a whole step of the span, or the loop below would not end
  let lo = 0;
  let hi = WALK_SPAN;
  let atLo = 0;
  let atHi = Math.sqrt(WALK_SPAN) * normalOf(base, WALK_SPAN);
  while (k !== lo && k !== hi) {
    const mid = (lo + hi) / 2;
    // Given the sums at lo and hi, the sum at their midpoint is their mean plus N(0, (hi - lo) / 4).
    const atMid = (atLo + atHi) / 2 + Math.sqrt((hi - lo) / 4) * normalOf(base, mid);
    if (k < mid) {
      hi = mid;
      atHi = atMid;
    } else {
      lo = mid;
      atLo = atMid;
    }
  }
  return k === lo ? atLo : atHi;
}

/** A standard normal draw keyed by (`base`, `i`), `i` a whole number below 2^53 (Box–Muller). */
function normalOf(base: number, i: number): number {
  const key = mix32(base ^ mix32(i >>> 0) ^ Math.imul(Math.floor(i / 4_294_967_296), 0x9e3779b9));
  const u1 = (mix32(key ^ 0x68e31da4) + 1) / 4_294_967_297; // (0, 1): its log is finite
  const u2 = mix32(key ^ 0xb5297a4d) / 4_294_967_296;
  return Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * u2);
}

/** Ten significant digits: exact enough for any pair, free of float dust. */
function sig(n: number): number {
  return Number(n.toPrecision(10));
}

/** A 32-bit integer finaliser (murmur3's): spreads every input bit over the output. */
export function mix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}
