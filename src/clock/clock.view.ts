import * as z from 'zod';
import { DateTime } from '../shared/schemas';
import { ISO } from './iso';
import { CLOCK_MODES } from './clock.schemas';
import type { VirtualClock } from './virtual-clock';

/** CONTRACT §4 clock view: what `GET /sandbox/clock`, the dashboard and a reset show. */
export const ClockViewSchema = z
  .object({
    now: DateTime,
    now_ms: z.number().int(),
    mode: z.enum(CLOCK_MODES),
    speed: z.number().positive(),
    pending_timers: z.number().int().nonnegative(),
    next_timer_at: DateTime.nullable(),
    started_at: DateTime,
  })
  .meta({ id: 'Clock' });
export type ClockView = z.output<typeof ClockViewSchema>;

/** The clock's public view. */
export function clockView(clock: VirtualClock): ClockView {
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
