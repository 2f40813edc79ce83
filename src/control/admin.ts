import type { Middleware } from 'koa';
import { safeEqual } from '../auth';
import { unauthorized } from '../shared/errors';
import { requireJsonBody } from '../http/middleware/body';

/**
 * Guards /sandbox (CONTRACT §4): with an admin token configured, `Authorization: Bearer <token>`
 * is required; without one the control API is open (the server binds loopback).
 */
export function requireAdmin(adminToken: string | undefined): Middleware {
  return async (ctx, next) => {
    if (adminToken) {
      // A browser cannot send a bearer token to the dashboard: it may pass ?token= instead.
      const fromQuery = ctx.path === '/sandbox/dashboard' && typeof ctx.query.token === 'string' ? ctx.query.token : '';
      const given = /^Bearer\s+(\S+)\s*$/i.exec(ctx.get('authorization'))?.[1] ?? fromQuery;
      if (!safeEqual(given, adminToken)) {
        throw unauthorized('The control API needs Authorization: Bearer <admin token> (--admin-token)');
      }
    }
    requireJsonBody(ctx);
    await next();
  };
}
