import * as z from 'zod';
import { ISO, parseDuration, type Clock } from '../../clock';
import {
  MAX_PATH_POINTS,
  MAX_RATE,
  MIN_RATE,
  MAX_RATE_VOLATILITY,
  PairParamsSchema,
  RATE_MODES,
  type Market,
  type RatePoint,
} from '../../reference';
import { validationError } from '../../shared/errors';
import { DateTime, MAX_DELAY_MS, MAX_INSTANT } from '../../shared/schemas';
import { ChaosDuration } from '../../webhooks/chaos';
import { documentedAs } from '../../shared/documented';
import type { Api, AnyRouteSpec } from '../api/api';

// CONTRACT §22 "moving markets": scripted rate paths per pair on the virtual clock.

const At = z.iso.datetime({ offset: true });
/** An instant or a duration from now, one message for both when it is neither (a union would say only "Invalid input"). */
const PointAt = documentedAs(
  z
    .string()
    .max(64)
    .refine(
      (v) => At.safeParse(v).success || ChaosDuration.safeParse(v).success,
      'must be an ISO instant such as 2026-01-15T13:05:00Z, or a duration from the virtual now such as 90s, 5m or 1h30m (at most 10 years)',
    ),
  z
    .union([
      At.meta({ pattern: At.def.pattern?.source, description: 'an instant (virtual time)', example: '2026-01-15T13:05:00.000Z' }),
      ChaosDuration.meta({ description: 'a duration from the virtual now, e.g. 5m', example: '5m' }),
    ])
    .meta({ description: 'when the point takes effect: an instant, or a duration from now (at most 10 years ahead)', example: '5m' }),
);

const RatePointBodySchema = z
  .object({
    at: PointAt,
    rate: z
      .number()
      .min(MIN_RATE)
      .max(MAX_RATE)
      .meta({ description: "the mid rate (fiat per unit of crypto); buy and sell keep the fixture's spread around it", example: 1600 }),
  })
  .meta({ id: 'RatePointBody', example: { at: '5m', rate: 1600 } });

export const RateScriptBodySchema = z
  .object({
    pair: z.string().min(1).max(32).meta({ description: '`<fiat>_<crypto>` as GET /v1/market-rates/{pair} takes it', example: 'NGN_USDT' }),
    path: z
      .array(RatePointBodySchema)
      .min(1)
      .max(MAX_PATH_POINTS)
      .meta({
        description: `1 to ${MAX_PATH_POINTS} points, taken in time order; each rate holds from its instant until the next point (a step); before the first, the pair's rate as without a script`,
      }),
  })
  .meta({
    id: 'RateScriptBody',
    example: {
      pair: 'NGN_USDT',
      path: [
        { at: '0s', rate: 1550 },
        { at: '5m', rate: 1600 },
      ],
    },
  });

const RatePointSchema = z
  .object({ at: DateTime, rate: z.number() })
  .meta({ id: 'RatePoint', example: { at: '2026-01-15T13:05:00.000Z', rate: 1600 } });
const RateScriptSchema = z
  .object({ pair: z.string(), path: z.array(RatePointSchema) })
  .meta({ id: 'RateScript', example: { pair: 'NGN_USDT', path: [{ at: '2026-01-15T13:05:00.000Z', rate: 1600 }] } });
const RatesSchema = z
  .object({
    rates: z.enum(RATE_MODES).meta({ description: "`fixed` (the fixtures' rates) or `walk` (a seeded random walk from them): --rates" }),
    rate_volatility: z
      .number()
      .min(0)
      .max(MAX_RATE_VOLATILITY)
      .meta({ description: "the walk's volatility, percent per virtual hour: --rate-volatility" }),
    scripts: z.array(RateScriptSchema),
  })
  .meta({
    id: 'Rates',
    example: {
      rates: 'fixed',
      rate_volatility: 1,
      scripts: [{ pair: 'NGN_USDT', path: [{ at: '2026-01-15T13:05:00.000Z', rate: 1600 }] }],
    },
  });

const admin = { auth: 'admin', tag: 'sandbox' } as const;

// The specs are exported so the control client (src/client/control-client.ts) is typed by them.
export const listRatesSpec = {
  ...admin,
  method: 'GET',
  path: '/sandbox/rates',
  operationId: 'listRates',
  summary: 'How market rates move: the mode, its volatility and the scripted pairs',
  data: RatesSchema,
  message: 'Rates retrieved',
} as const satisfies AnyRouteSpec;
export const scriptRateSpec = {
  ...admin,
  method: 'POST',
  path: '/sandbox/rates',
  operationId: 'scriptRate',
  summary: "Script a pair's rate on the virtual clock (replaces its script)",
  body: RateScriptBodySchema,
  data: RateScriptSchema,
  message: 'Rate scripted',
  errors: [404],
} as const satisfies AnyRouteSpec;
export const removeRateScriptSpec = {
  ...admin,
  method: 'DELETE',
  path: '/sandbox/rates/{pair}',
  operationId: 'removeRateScript',
  summary: "Remove a pair's script: its rate is the fixture's (or the walk's) again",
  params: PairParamsSchema,
  data: RateScriptSchema,
  message: 'Rate script removed',
  errors: [404],
} as const satisfies AnyRouteSpec;

const view = (s: { pair: string; path: RatePoint[] }) => ({ pair: s.pair, path: s.path.map((p) => ({ at: ISO(p.at_ms), rate: p.rate })) });

/** CONTRACT §22 rate routes. */
export function registerRateRoutes(api: Api, deps: { market: Market; clock: Clock }): void {
  const { market, clock } = deps;
  api.route(listRatesSpec, () => ({ rates: market.mode, rate_volatility: market.volatility, scripts: market.scripts().map(view) }));
  api.route(scriptRateSpec, ({ body }) => {
    const now = clock.now();
    const points = body.path.map((point, i) => {
      const ms = parseDuration(point.at);
      const at = ms !== undefined ? now + ms : Date.parse(point.at);
      if (at - now > MAX_DELAY_MS) throw validationError(`path.${i}.at`, `must be at most 10 years ahead of the virtual now (${ISO(now)})`);
      if (at > MAX_INSTANT)
        throw validationError(`path.${i}.at`, `must be at most ${ISO(MAX_INSTANT)}, the latest instant the virtual clock reaches`);
      // an instant before 1970 is simply in the past: held from the start
      return { at_ms: Math.max(0, at), rate: point.rate, i };
    });
    // Taken in time order; two points at one instant: the later given wins.
    points.sort((a, b) => a.at_ms - b.at_ms || a.i - b.i);
    const path = points.filter((p, k) => points[k + 1]?.at_ms !== p.at_ms).map(({ at_ms, rate }) => ({ at_ms, rate }));
    return view(market.script(body.pair, path));
  });
  api.route(removeRateScriptSpec, ({ params }) => view(market.unscript(params.pair)));
}
