// The clock's modes and its part of a state snapshot, as data (routes, state file, dashboard).
import * as z from 'zod';
import { Instant, MAX_SPEED } from '../shared/schemas';

/** `realtime`: virtual time follows the wall clock × speed; `manual`: it moves only when advanced. */
export const CLOCK_MODES = ['realtime', 'manual'] as const;
export type ClockMode = (typeof CLOCK_MODES)[number];

/** The clock's own part of a state snapshot (CONTRACT §13): the same bounds as its routes. */
export const ClockStateSchema = z.object({
  now_ms: Instant,
  start_ms: Instant,
  mode: z.enum(CLOCK_MODES),
  speed: z.number().positive().max(MAX_SPEED),
});
export type ClockState = z.output<typeof ClockStateSchema>;
