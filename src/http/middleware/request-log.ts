import type { Middleware } from 'koa';
import type { Logger } from 'pino';

let counter = 0;

/**
 * Structured request logs (pino): one line per response with a request id, echoed back as
 * `x-request-id`. The id is a counter, not the seeded generator, so logging never shifts
 * the references a seed produces.
 */
export function requestLog(logger: Logger): Middleware {
  return async (ctx, next) => {
    const given = ctx.get('x-request-id');
    const reqId = /^[\w.:-]{1,64}$/.test(given) ? given : `req-${(++counter).toString(36)}`;
    ctx.state.reqId = reqId;
    ctx.set('x-request-id', reqId);
    const started = performance.now();
    try {
      await next();
    } finally {
      if (logger.isLevelEnabled('info')) {
        logger.info(
          {
            reqId,
            method: ctx.method,
            url: ctx.originalUrl,
            status: ctx.status,
            ms: Math.round((performance.now() - started) * 100) / 100,
            clientId: ctx.state.auth?.partner.client_id,
            env: ctx.state.auth?.env,
          },
          'request',
        );
      }
    }
  };
}
