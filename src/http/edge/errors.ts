import type { Context } from 'koa';
import type { Logger } from 'pino';
import { ApiError } from '../../shared/errors';
import { redactUrl } from './redact';

/** How a request ended, for observers. */
export interface Outcome {
  ms: number;
  /** The error it was answered with, if any. */
  error?: ApiError;
}

export const ERROR_MESSAGES = {
  malformedJson: 'Malformed JSON body',
  bodyTooLarge: 'Request body exceeds the 1 MiB limit',
  notJson: 'Content-Type must be application/json: send the body as JSON with that header',
  notFound: 'Route not found',
  methodNotAllowed: 'Method not allowed',
  internal: 'Internal sandbox error; it was logged with its stack (please report it with the request id)',
} as const;

/**
 * Renders a caught error in the documented envelope (spec §7, CONTRACT §3). ApiError → its
 * code; other 4xx (parser) → E_BADREQUEST / E_NOTFOUND; anything else is our bug: logged with
 * its stack and answered 500.
 */
export function renderError(ctx: Context, caught: unknown, logger: Logger, secret?: string): ApiError {
  const error = toApiError(caught);
  if (!error) {
    logger.error({ err: caught, reqId: ctx.state.reqId, method: ctx.method, url: redactUrl(ctx.originalUrl, secret) }, 'unexpected error');
    ctx.status = 500;
    ctx.body = { status: false, code: 'E_BADREQUEST', message: ERROR_MESSAGES.internal };
    return new ApiError('E_BADREQUEST', ERROR_MESSAGES.internal, { status: 500 });
  }
  ctx.status = error.status;
  for (const [name, value] of Object.entries(error.headers)) ctx.set(name, value);
  ctx.body = error.alternative
    ? { status: 'failed', message: error.message, data: null }
    : { status: false, code: error.code, message: error.message };
  return error;
}

/** Maps a thrown value to an ApiError, or undefined when it is an unexpected bug. */
export function toApiError(caught: unknown): ApiError | undefined {
  if (caught instanceof ApiError) return caught;
  const status = (caught as { status?: unknown } | null)?.status;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    if (status === 413) return new ApiError('E_BADREQUEST', ERROR_MESSAGES.bodyTooLarge, { status: 413 });
    if (status === 404) return new ApiError('E_NOTFOUND', ERROR_MESSAGES.notFound);
    const expose = (caught as { expose?: boolean }).expose;
    const message = expose ? String((caught as Error).message) : ERROR_MESSAGES.malformedJson;
    return new ApiError('E_BADREQUEST', message, { status: 400 });
  }
  return undefined;
}
