import type Router from '@koa/router';
import type { VirtualClock } from '../../clock';
import { ok } from '../../shared/envelope';

export interface HealthDeps {
  clock: VirtualClock;
  version: string;
  startedAt: number;
  uptimeMs: () => number;
}

/** `GET /health` and `GET /v1/health`, no auth (CONTRACT §7). */
export function registerHealthRoutes(router: Router, deps: HealthDeps): void {
  const handler = (ctx: { body: unknown }) => {
    ctx.body = ok('Healthy', {
      uptime_s: Math.floor(deps.uptimeMs() / 1000),
      version: deps.version,
      clock: { now: new Date(deps.clock.now()).toISOString(), mode: deps.clock.mode },
    });
  };
  router.get('/health', handler);
  router.get('/v1/health', handler);
}
