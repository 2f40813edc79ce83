import * as z from 'zod';
import {
  AdvanceInterruptedError,
  CLOCK_MODES,
  ClockBusyError,
  ClockViewSchema,
  clockView,
  DURATION_PATTERN,
  ISO,
  parseDuration,
  type FiredTimer,
  type VirtualClock,
} from '../../clock';
import { badRequest, conflict, validationError } from '../../shared/errors';
import { DateTime, MAX_INSTANT, MAX_SPEED } from '../../shared/schemas';
import { documentedAs, ruledOut } from '../../shared/documented';
import type { Api, AnyRouteSpec } from '../api/api';

const FIRED_SHOWN = 1000;

const ClockBodySchema = z
  .object({
    mode: z.enum(CLOCK_MODES).optional(),
    speed: z
      .number()
      .positive()
      .max(MAX_SPEED)
      .optional()
      .meta({ description: 'virtual seconds per wall second in realtime mode', example: 60 }),
  })
  .meta({ id: 'ClockBody', example: { mode: 'manual' } });

/** CONTRACT §9: the clock moves at most 10 years per advance, whatever the input says. */
export const MAX_ADVANCE_MS = 10 * 365 * 86_400_000;

const Ms = z.number().int().nonnegative().max(MAX_ADVANCE_MS, 'must be at most 10 years (315360000000 ms)').meta({ example: 60_000 });
const To = z.iso.datetime({ offset: true });
const ToDoc = To.meta({
  // zod's own date-time pattern (a real date, seconds, Z or an offset); `[0-9]` in the document
  pattern: To.def.pattern?.source,
  description: 'an instant, at most 10 years ahead of the virtual now (an earlier one is a 400: the clock never goes back)',
  example: '2026-01-15T13:00:00.000Z',
});
const Duration = z
  .string()
  .max(64)
  .refine((d) => parseDuration(d) !== undefined, 'must be a duration such as 90s, 5m, 2h, 1d or 1h30m')
  .refine((d) => (parseDuration(d) ?? 0) <= MAX_ADVANCE_MS, 'must be at most 10 years (3650d)');
// DURATION_PATTERN (src/clock/duration.ts): the durations the document allows; a fault window's bounds use it too.
export { DURATION_PATTERN };
const DurationDoc = Duration.meta({ pattern: DURATION_PATTERN, description: 'e.g. 90s, 5m, 2h, 1d or 1h30m', example: '2h' });

const AdvanceBodySchema = documentedAs(
  z
    .object({ ms: Ms.optional(), to: To.optional(), duration: Duration.optional() })
    .refine((b) => [b.ms, b.to, b.duration].filter((v) => v !== undefined).length === 1, {
      message: 'give exactly one of ms, to or duration',
      path: ['ms'],
    }),
  z
    .union([
      z.object({ ms: Ms }).meta({ id: 'AdvanceByMs', ...ruledOut('to', 'duration'), example: { ms: 60_000 } }),
      z.object({ to: ToDoc }).meta({ id: 'AdvanceTo', ...ruledOut('ms', 'duration'), example: { to: '2026-01-15T13:00:00.000Z' } }),
      z.object({ duration: DurationDoc }).meta({ id: 'AdvanceByDuration', ...ruledOut('ms', 'to'), example: { duration: '2h' } }),
    ])
    .meta({ id: 'AdvanceBody', description: 'CONTRACT §4, §9: exactly one of `ms`, `to` or `duration`, at most 10 years ahead' }),
);

export const AdvanceResultSchema = z
  .object({
    clock: ClockViewSchema,
    fired_count: z.number().int().nonnegative(),
    fired: z
      .array(z.object({ at: DateTime, label: z.string() }))
      .meta({ description: `the first ${FIRED_SHOWN} timers fired, in time order` }),
  })
  .meta({ id: 'AdvanceResult' });

const admin = { auth: 'admin', tag: 'sandbox' } as const;

// The specs are exported so the control client (src/client/control-client.ts) is typed by them.
export const getClockSpec = {
  ...admin,
  method: 'GET',
  path: '/sandbox/clock',
  operationId: 'getClock',
  summary: 'The virtual clock',
  data: ClockViewSchema,
  message: 'Clock retrieved',
} as const satisfies AnyRouteSpec;
export const configureClockSpec = {
  ...admin,
  method: 'POST',
  path: '/sandbox/clock',
  operationId: 'configureClock',
  summary: 'Switch mode (realtime, manual) or speed',
  body: ClockBodySchema,
  data: ClockViewSchema,
  message: 'Clock updated',
} as const satisfies AnyRouteSpec;
export const advanceClockSpec = {
  ...admin,
  method: 'POST',
  path: '/sandbox/clock/advance',
  operationId: 'advanceClock',
  summary: 'Move the virtual clock forward by ms, duration or to an instant, firing due timers',
  body: AdvanceBodySchema,
  data: AdvanceResultSchema,
  message: 'Clock advanced',
  errors: [400, 409],
} as const satisfies AnyRouteSpec;

/** CONTRACT §4 clock routes. */
export function registerClockRoutes(api: Api, deps: { clock: VirtualClock; advanceTo: (target: number) => Promise<FiredTimer[]> }): void {
  const { clock } = deps;
  api.route(getClockSpec, () => clockView(clock));
  api.route(configureClockSpec, ({ body }) => {
    clock.configure(body);
    return clockView(clock);
  });
  api.route(advanceClockSpec, async ({ body }) => {
    // One reading of now: a realtime clock moves between readings, and a forward `ms` computed
    // from one must not be checked against a later one (it answered 500, "never goes back").
    const now = clock.now();
    const target = body.to !== undefined ? Date.parse(body.to) : now + (body.ms ?? parseDuration(body.duration ?? '') ?? 0);
    if (target < now) throw badRequest(`to: the virtual clock never goes back (now ${ISO(now)})`);
    if (target - now > MAX_ADVANCE_MS) throw validationError('to', `must be at most 10 years ahead of the virtual now (${ISO(now)})`);
    // The clock's ceiling (issue 22: the 27,382nd ten-year advance answered 500).
    if (target > MAX_INSTANT)
      throw badRequest(
        `The virtual clock cannot go past ${ISO(MAX_INSTANT)} (now ${ISO(now)}); POST /sandbox/reset puts it back at its start`,
      );
    let fired: FiredTimer[];
    try {
      fired = await deps.advanceTo(target);
    } catch (error) {
      if (error instanceof ClockBusyError) {
        throw conflict('The clock is already being advanced by another request; try again when it returns');
      }
      if (error instanceof AdvanceInterruptedError) {
        throw conflict(
          error.reason === 'restore'
            ? `The advance was stopped by PUT /sandbox/state (the state was replaced); the clock is now at the restored instant (${ISO(clock.now())})`
            : `The advance was stopped by POST /sandbox/reset; the clock is back at its start (${ISO(clock.now())})`,
        );
      }
      throw error;
    }
    return {
      clock: clockView(clock),
      fired_count: fired.length,
      fired: fired.slice(0, FIRED_SHOWN).map((f) => ({ at: ISO(f.at), label: f.label })),
    };
  });
}
