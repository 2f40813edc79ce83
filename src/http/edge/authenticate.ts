import type { Context, Middleware } from 'koa';
import { authenticate, type Access, type AuthContext, type AuthOptions, type PartnerRegistry, type RateLimiter } from '../../auth';
import type { WallClock } from '../../clock';
import { ApiError } from '../../shared/errors';
import { requireJsonBody, signedBodyOf } from './body';
import { applyFault } from './faults';
import type { FaultStore } from '../faults/fault.store';

export interface AuthDeps {
  partners: PartnerRegistry;
  wall: WallClock;
  rateLimiter: RateLimiter;
  authOptions: AuthOptions;
  /** Injected faults (CONTRACT §12): they apply after authentication. */
  faults?: FaultStore;
}

/**
 * Route middleware: authenticates per spec §5, then takes `cost` rate-limit tokens from the
 * key's bucket (CONTRACT §3), then carries out an injected fault if one matches (CONTRACT
 * §12), then raises any body error (auth → shape → meaning).
 */
export function requireAuth(deps: AuthDeps, access: Access, cost = 1): Middleware {
  // Not async: every /v1 request passes here, and the route's promise is handed on as it is.
  // A failure thrown here reaches the edge as a rejection (Koa's compose turns it into one).
  return (ctx, next) => {
    const h = ctx.req.headers; // node lower-cases header names; a hot path, so no ctx.get()
    const auth = authenticate(
      {
        clientId: header(h['svc-client-id']),
        authorization: header(h.authorization),
        timestamp: header(h['svc-timestamp']),
        signature: header(h['svc-signature']),
        method: ctx.method,
        path: ctx.originalUrl,
        rawBody: signedBodyOf(ctx),
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
    const effect = deps.faults?.match({ clientId: auth.partner.client_id, env: auth.env, method: ctx.method, path: ctx.path });
    if (effect) {
      return applyFault(ctx, effect, async () => {
        requireJsonBody(ctx);
        await next();
      });
    }
    requireJsonBody(ctx);
    return next();
  };
}

/** A header's value, or undefined when absent or empty (a repeated header: its first value). */
function header(value: string | string[] | undefined): string | undefined {
  const v = Array.isArray(value) ? value[0] : value;
  return v ? v : undefined;
}

/** The authenticated caller of a route behind `requireAuth`. */
export function authOf(ctx: Context): AuthContext {
  return ctx.state.auth as AuthContext;
}
