import type { Context, Middleware } from 'koa';
import { authenticate, type Access, type AuthContext, type AuthOptions, type PartnerRegistry, type RateLimiter } from '../../auth';
import type { WallClock } from '../../clock';
import { ApiError } from '../../shared/errors';
import { rawBodyOf, requireJsonBody } from './body';

export interface AuthDeps {
  partners: PartnerRegistry;
  wall: WallClock;
  rateLimiter: RateLimiter;
  authOptions: AuthOptions;
}

/**
 * Route middleware: authenticates per spec §5, then takes `cost` rate-limit tokens from the
 * key's bucket (CONTRACT §3), then raises any body error (auth → shape → meaning).
 */
export function requireAuth(deps: AuthDeps, access: Access, cost = 1): Middleware {
  return async (ctx, next) => {
    const auth = authenticate(
      {
        clientId: ctx.get('svc-client-id') || undefined,
        authorization: ctx.get('authorization') || undefined,
        timestamp: ctx.get('svc-timestamp') || undefined,
        signature: ctx.get('svc-signature') || undefined,
        method: ctx.method,
        path: ctx.originalUrl,
        rawBody: rawBodyOf(ctx),
        ip: ctx.ip,
      },
      access,
      { partners: deps.partners, wall: deps.wall, options: deps.authOptions },
    );
    ctx.state.auth = auth;
    const taken = deps.rateLimiter.take(auth.key, cost);
    if (!taken.ok) {
      throw new ApiError('E_RATE_LIMITED', `Rate limit exceeded; retry after ${taken.retryAfterSeconds} s`, {
        headers: { 'Retry-After': String(taken.retryAfterSeconds) },
      });
    }
    requireJsonBody(ctx);
    await next();
  };
}

/** The authenticated caller of a route behind `requireAuth`. */
export function authOf(ctx: Context): AuthContext {
  return ctx.state.auth as AuthContext;
}
