import * as z from 'zod';
import { CLOCK_MODES, ISO, type VirtualClock } from '../../clock';
import { DateTime } from '../../shared/schemas';
import type { Api } from '../api/api';

export interface HealthDeps {
  clock: VirtualClock;
  version: string;
  startedAt: number;
  uptimeMs: () => number;
  /** Orders evicted to stay within --max-orders (CONTRACT §9). */
  evictedOrders: () => number;
}

/** CONTRACT §7 health. */
const HealthSchema = z
  .object({
    uptime_s: z.number().int().nonnegative(),
    version: z.string(),
    clock: z.object({ now: DateTime, mode: z.enum(CLOCK_MODES) }),
    evicted_orders: z.number().int().nonnegative().meta({ description: 'orders evicted to stay within --max-orders' }),
  })
  .meta({ id: 'Health' });

/** `GET /health` and `GET /v1/health`, no auth (CONTRACT §7). */
export function registerHealthRoutes(api: Api, deps: HealthDeps): void {
  const health = () => ({
    uptime_s: Math.floor(deps.uptimeMs() / 1000),
    version: deps.version,
    clock: { now: ISO(deps.clock.now()), mode: deps.clock.mode },
    evicted_orders: deps.evictedOrders(),
  });
  const spec = {
    method: 'GET',
    auth: 'none',
    tag: 'Health',
    data: HealthSchema,
    message: 'Healthy',
    summary: 'Health check (no auth)',
  } as const;
  api.route({ ...spec, path: '/health', operationId: 'health' }, health);
  api.route({ ...spec, path: '/v1/health', operationId: 'healthV1' }, health);
}
