import bodyParser from 'koa-bodyparser';
import type { Context, Middleware } from 'koa';
import { ApiError } from '../../shared/errors';
import { ERROR_MESSAGES, toApiError } from './errors';

const LIMIT = '1mb';
const JSON_TYPE = /^application\/(?:[\w.+-]*\+)?json\b/i;

/**
 * koa-bodyparser keeping the exact body bytes (`ctx.request.rawBody`) for HMAC. Non-JSON
 * bodies are kept as text so a signature over them still verifies and the caller then learns
 * the real problem. A body over 1 MiB is 413 at once; a malformed one is remembered and
 * raised by `requireJsonBody` after authentication (CONTRACT §8: auth comes first).
 */
export function parseBody(): Middleware {
  const parser = bodyParser({
    enableTypes: ['json', 'text'],
    jsonLimit: LIMIT,
    textLimit: LIMIT,
    strict: true,
    extendTypes: { text: ['*/*'] },
    onerror: (err, ctx) => {
      const error = toApiError(err);
      if (error?.status === 413) throw error;
      const raw = (err as { body?: unknown }).body;
      ctx.request.rawBody = typeof raw === 'string' ? raw : '';
      ctx.state.bodyError = new ApiError('E_BADREQUEST', `${ERROR_MESSAGES.malformedJson}: ${(err as Error).message}`);
    },
  });
  const parse = parser as unknown as Middleware;
  return (ctx, next) => {
    // Most requests (every GET) carry no body: skip the parser's content-type probing.
    if (ctx.req.headers['content-length'] === undefined && ctx.req.headers['transfer-encoding'] === undefined) {
      ctx.request.body = {};
      return next();
    }
    return parse(ctx, next);
  };
}

/** Raises a remembered parse error, and rejects a non-JSON body; call after authentication. */
export function requireJsonBody(ctx: Context): void {
  const error = ctx.state.bodyError as ApiError | undefined;
  if (error) throw error;
  const raw = rawBodyOf(ctx);
  if (raw.length > 0 && !JSON_TYPE.test(ctx.get('content-type'))) {
    throw new ApiError('E_BADREQUEST', ERROR_MESSAGES.notJson);
  }
  if (typeof ctx.request.body !== 'object' || ctx.request.body === null) ctx.request.body = {};
}


/** The exact request body string signed by the caller (`''` when there is none). */
export function rawBodyOf(ctx: Context): string {
  const raw: unknown = ctx.request.rawBody;
  return typeof raw === 'string' ? raw : '';
}
