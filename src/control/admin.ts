import type { Middleware } from 'koa';
import { safeEqual } from '../auth';
import { unauthorized } from '../shared/errors';
import { requireJsonBody } from '../http/middleware/body';
import { isPublicDashboardPath } from '../dashboard';

/**
 * Guards /sandbox (CONTRACT §4): with an admin token configured, `Authorization: Bearer <token>`
 * is required; without one the control API is open (the server binds loopback).
 */
export function requireAdmin(adminToken: string | undefined): Middleware {
  return async (ctx, next) => {
    // The dashboard page and its assets hold no data: they load without the token, so the
    // page can ask for it (CONTRACT §15); the token never travels in a URL.
    if (adminToken && !isPublicDashboardPath(ctx.path)) {
      const given = /^Bearer\s+(\S+)\s*$/i.exec(ctx.get('authorization'))?.[1] ?? '';
      if (!safeEqual(given, adminToken)) {
        throw unauthorized('The control API needs Authorization: Bearer <admin token> (--admin-token)');
      }
    }
    requireJsonBody(ctx);
    await next();
  };
}
