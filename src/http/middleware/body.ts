import bodyParser from 'koa-bodyparser';
import type { Context, Middleware } from 'koa';
import { ApiError, validationError } from '../../shared/errors';
import { MAX_JSON_DEPTH, STATE_DEPTH, tooDeepField } from '../../shared/json-depth';
import { ERROR_MESSAGES, toApiError } from './errors';

const LIMIT = '1mb';
/**
 * `PUT /sandbox/state` carries a whole sandbox (CONTRACT §13): a larger body, and orders'
 * metadata (64 levels of its own) sits a few levels down in the document.
 */
const STATE_PATH = '/sandbox/state';
const STATE_LIMIT = '256mb';
const JSON_TYPE = /^application\/(?:[\w.+-]*\+)?json\b/i;

/**
 * koa-bodyparser keeping the exact body bytes (`ctx.request.rawBody`) for HMAC. Non-JSON
 * bodies, and bodies sent without any Content-Type, are kept as text so a signature over them
 * still verifies (CONTRACT §9) and the caller then learns the real problem (415). A body over
 * 1 MiB is 413 at once; a malformed one is remembered and raised by `requireJsonBody` after
 * authentication (CONTRACT §8: auth comes first).
 */
export function parseBody(): Middleware {
  const parser = createParser(LIMIT, ERROR_MESSAGES.bodyTooLarge) as unknown as Middleware;
  const stateParser = createParser(STATE_LIMIT, STATE_TOO_LARGE) as unknown as Middleware;
  return (ctx, next) => {
    // Most requests (every GET) carry no body: skip the parser's content-type probing.
    if (ctx.req.headers['content-length'] === undefined && ctx.req.headers['transfer-encoding'] === undefined) {
      ctx.request.body = {};
      return next();
    }
    // Without a Content-Type koa-bodyparser would not read the body at all, and the signature
    // would then be checked over '' : read it as text, and remember that none was sent.
    if (ctx.req.headers['content-type'] === undefined) {
      ctx.state.contentTypeMissing = true;
      ctx.req.headers['content-type'] = 'application/octet-stream';
    }
    return (ctx.path === STATE_PATH ? stateParser : parser)(ctx, next);
  };
}

/** The state route's own limit, and where a larger state goes (issue 22: it said 1 MiB). */
const STATE_TOO_LARGE = `Request body exceeds the ${STATE_LIMIT.replace('mb', ' MiB')} limit of PUT /sandbox/state; a larger state loads from a file: start the sandbox with --state FILE`;

function createParser(limit: string, tooLarge: string) {
  return bodyParser({
    enableTypes: ['json', 'text'],
    jsonLimit: limit,
    textLimit: limit,
    strict: true,
    extendTypes: { text: ['*/*'] },
    onerror: (err, ctx) => {
      const error = toApiError(err);
      if (error?.status === 413) throw new ApiError('E_BADREQUEST', tooLarge, { status: 413 });
      const raw = (err as { body?: unknown }).body;
      ctx.request.rawBody = typeof raw === 'string' ? raw : '';
      ctx.state.bodyError = new ApiError('E_BADREQUEST', `${ERROR_MESSAGES.malformedJson}: ${(err as Error).message}`);
    },
  });
}

/**
 * After authentication: rejects a body that is not JSON (415), raises a remembered parse error
 * (400), and refuses a body nested deeper than 64 levels (422, CONTRACT §9) before any route
 * can store it.
 */
export function requireJsonBody(ctx: Context): void {
  const raw = rawBodyOf(ctx);
  if (raw.length > 0 && (ctx.state.contentTypeMissing || !JSON_TYPE.test(ctx.get('content-type')))) {
    const given = ctx.state.contentTypeMissing ? 'none was sent' : `got ${ctx.get('content-type')}`;
    throw new ApiError('E_BADREQUEST', `${ERROR_MESSAGES.notJson} (${given})`, { status: 415 });
  }
  const error = ctx.state.bodyError as ApiError | undefined;
  if (error) throw error;
  if (typeof ctx.request.body !== 'object' || ctx.request.body === null) {
    ctx.request.body = {};
    return;
  }
  const max = ctx.path === STATE_PATH ? STATE_DEPTH : MAX_JSON_DEPTH;
  const field = tooDeepField(ctx.request.body, max);
  if (field !== undefined) throw validationError(field, `nested deeper than ${max} levels`);
}


/** The exact request body string signed by the caller (`''` when there is none). */
export function rawBodyOf(ctx: Context): string {
  const raw: unknown = ctx.request.rawBody;
  return typeof raw === 'string' ? raw : '';
}
