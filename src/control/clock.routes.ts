import type Router from '@koa/router';
import { z } from 'zod';
import { ISO, parseDuration, type FiredTimer, type VirtualClock } from '../clock';
import { badRequest, conflict } from '../shared/errors';
import { ok } from '../shared/envelope';
import { parseOrThrow } from '../shared/validation';

const FIRED_SHOWN = 1000;

const ClockBodySchema = z.object({
  mode: z.enum(['realtime', 'manual']).optional(),
  speed: z.number().positive().max(1_000_000).optional(),
});

const AdvanceBodySchema = z
  .object({
    ms: z.number().int().nonnegative().max(10 * 365 * 86_400_000).optional(),
    to: z.iso.datetime({ offset: true }).optional(),
    duration: z
      .string()
      .refine((d) => parseDuration(d) !== undefined, 'must be a duration such as 90s, 5m, 2h, 1d or 1h30m')
      .optional(),
  })
  .refine((b) => [b.ms, b.to, b.duration].filter((v) => v !== undefined).length === 1, {
    message: 'give exactly one of ms, to or duration',
    path: ['ms'],
  });

/** The clock's public view. */
export function clockView(clock: VirtualClock) {
  return {
    now: ISO(clock.now()),
    now_ms: clock.now(),
    mode: clock.mode,
    speed: clock.speed,
    pending_timers: clock.pending,
    next_timer_at: clock.nextDue === undefined ? null : ISO(Math.max(clock.nextDue, clock.now())),
    started_at: ISO(clock.start),
  };
}

/** CONTRACT §4 clock routes. */
export function registerClockRoutes(
  router: Router,
  deps: { clock: VirtualClock; advanceTo: (target: number) => Promise<FiredTimer[]> },
): void {
  const { clock } = deps;
  router.get('/sandbox/clock', (ctx) => {
    ctx.body = ok('Clock retrieved', clockView(clock));
  });
  router.post('/sandbox/clock', (ctx) => {
    const body = parseOrThrow(ClockBodySchema, ctx.request.body);
    clock.configure(body);
    ctx.body = ok('Clock updated', clockView(clock));
  });
  router.post('/sandbox/clock/advance', async (ctx) => {
    const body = parseOrThrow(AdvanceBodySchema, ctx.request.body);
    const target =
      body.to !== undefined
        ? Date.parse(body.to)
        : clock.now() + (body.ms ?? parseDuration(body.duration ?? '') ?? 0);
    if (target < clock.now()) throw badRequest(`to: the virtual clock never goes back (now ${ISO(clock.now())})`);
    let fired: FiredTimer[];
    try {
      fired = await deps.advanceTo(target);
    } catch (error) {
      if (error instanceof Error && /already advancing/.test(error.message)) {
        throw conflict('The clock is already being advanced by another request; try again when it returns');
      }
      throw error;
    }
    ctx.body = ok('Clock advanced', {
      clock: clockView(clock),
      fired_count: fired.length,
      fired: fired.slice(0, FIRED_SHOWN).map((f) => ({ at: ISO(f.at), label: f.label })),
    });
  });
}
