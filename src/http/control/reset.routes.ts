import * as z from 'zod';
import { ClockViewSchema, clockView, type VirtualClock } from '../../clock';
import type { Api, AnyRouteSpec } from '../api/api';

/** CONTRACT §4 `POST /sandbox/reset` data. */
export const ResetResultSchema = z.object({ clock: ClockViewSchema, demo_client_id: z.string() }).meta({ id: 'ResetResult' });
/** CONTRACT §4 `POST /sandbox/reset` (exported: the control client is typed by it). */
export const resetSpec = {
  method: 'POST',
  path: '/sandbox/reset',
  operationId: 'reset',
  summary: 'Drop orders, quotes, deliveries and partners but the demo partner; clock back to start',
  auth: 'admin',
  tag: 'sandbox',
  data: ResetResultSchema,
  message: 'Sandbox reset',
} as const satisfies AnyRouteSpec;

/** CONTRACT §4 reset: drops everything but the demo partner (`reset`, the simulation's); clock back to its start. */
export function registerResetRoute(api: Api, deps: { reset: () => void; clock: VirtualClock; demoClientId: string }): void {
  const { reset, clock, demoClientId } = deps;
  api.route(resetSpec, () => {
    reset();
    return { clock: clockView(clock), demo_client_id: demoClientId };
  });
}
