import Koa from 'koa';
import Router from '@koa/router';
import type { Logger } from 'pino';
import { ApiError } from '../shared/errors';
import { errorHandler, ERROR_MESSAGES } from './middleware/errors';
import { parseBody } from './middleware/body';
import { requestLog } from './middleware/request-log';

export interface AppOptions {
  logger: Logger;
  /** Registers every route on the one router (a flat router keeps 404/405 exact). */
  register: (router: Router) => void;
}

/** Builds the Koa app: request log → error envelope → body parser → routes → 404/405. */
export function createApp(options: AppOptions): Koa {
  const app = new Koa({ proxy: false });
  app.silent = true;
  const router = new Router();
  options.register(router);

  app.use(requestLog(options.logger));
  app.use(errorHandler(options.logger));
  app.use(parseBody());
  app.use(async (ctx, next) => {
    await next();
    // allowedMethods (below) answers 405, or 501 for a method no route uses: both become 405/404 here.
    if (ctx.status === 405 || ctx.status === 501) {
      const allow = ctx.response.get('Allow');
      if (allow) {
        throw new ApiError('E_BADREQUEST', `${ERROR_MESSAGES.methodNotAllowed}; allowed: ${allow}`, {
          status: 405,
          headers: { Allow: allow },
        });
      }
      throw new ApiError('E_NOTFOUND', ERROR_MESSAGES.notFound);
    }
    if (ctx.status === 404 && ctx.body == null) throw new ApiError('E_NOTFOUND', `${ERROR_MESSAGES.notFound}: ${ctx.method} ${ctx.path}`);
  });
  app.use(router.routes());
  app.use(router.allowedMethods());
  return app;
}
