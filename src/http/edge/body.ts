import { isUtf8 } from 'node:buffer';
import Bourne from '@hapi/bourne';
import bodyParser from 'koa-bodyparser';
import type { Context, Middleware, Next } from 'koa';
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
 * koa-bodyparser reading every body as bytes (`encoding: null`, any Content-Type), then: the
 * text (`ctx.request.rawBody`, decoded with any BOM kept) and, for a JSON Content-Type, the
 * parsed body. The bytes are read undecoded because a decoder strips a leading UTF-8 BOM, and
 * the signature must be checked over exactly what was sent (CONTRACT §9): a .NET `StreamWriter`
 * with `Encoding.UTF8` writes a BOM, and its partner signs it. Bodies sent without any
 * Content-Type are read too, so a signature over them still verifies and the caller then
 * learns the real problem (415). A body over 1 MiB is 413 at once; a malformed one is
 * remembered and raised by `requireJsonBody` after authentication (CONTRACT §8: auth first).
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
    const parse = ctx.path === STATE_PATH ? stateParser : parser;
    // Without a Content-Type, or with one that is not a single media type (`*/*`, `json`,
    // `application/json, application/json`), koa-bodyparser would not read the body at all: the
    // signature would then be checked over '' and a route would act on an empty body. Read it
    // as bytes under a stand-in type, remember what was sent (a body is then a 415 after
    // authentication, `requireJsonBody`), and put the header back as it came.
    if (ctx.is('*/*') === false) {
      const sent = ctx.req.headers['content-type'];
      ctx.state.contentTypeRefused = sent === undefined ? 'none was sent' : `got ${sent}`;
      ctx.req.headers['content-type'] = 'application/octet-stream';
      return parse(ctx, () => {
        if (sent === undefined) delete ctx.req.headers['content-type'];
        else ctx.req.headers['content-type'] = sent;
        return decodeBody(ctx, next);
      });
    }
    return parse(ctx, () => decodeBody(ctx, next));
  };
}

/** The state route's own limit, and where a larger state goes (issue 22: it said 1 MiB). */
const STATE_TOO_LARGE = `Request body exceeds the ${STATE_LIMIT.replace('mb', ' MiB')} limit of PUT /sandbox/state; a larger state loads from a file: start the sandbox with --state FILE`;

function createParser(limit: string, tooLarge: string) {
  // encoding null: raw-body hands back the bytes, undecoded (a decoder would drop a BOM);
  // koa-bodyparser passes it on to co-body, though its types do not list it.
  const options: bodyParser.Options & { encoding: null } = {
    enableTypes: ['text'],
    encoding: null,
    textLimit: limit,
    extendTypes: { text: ['*/*'] },
    onerror: (err, ctx) => {
      const error = toApiError(err);
      if (error?.status === 413) throw new ApiError('E_BADREQUEST', tooLarge, { status: 413 });
      ctx.request.rawBody = '';
      ctx.state.bodyError = new ApiError('E_BADREQUEST', `${ERROR_MESSAGES.malformedJson}: ${(err as Error).message}`);
    },
  };
  return bodyParser(options);
}

/**
 * The bytes read → `rawBody` (UTF-8 text, BOM kept) and `body`. The bytes themselves are kept
 * for the signature only when they are not valid UTF-8 (the text would not give them back);
 * otherwise the text is the bytes. A JSON body may start with a BOM: once the signature has
 * been checked over it, it is parsed without it (docs/calling-the-api.md).
 */
function decodeBody(ctx: Context, next: Next): Promise<void> {
  const bytes: unknown = ctx.request.rawBody;
  if (Buffer.isBuffer(bytes)) {
    const text = bytes.toString('utf8'); // Buffer#toString keeps a leading U+FEFF
    if (!isUtf8(bytes)) ctx.state.signedBody = bytes;
    ctx.request.rawBody = text;
    ctx.request.body = text;
    if (ctx.state.contentTypeRefused === undefined && JSON_TYPE.test(ctx.get('content-type'))) {
      try {
        ctx.request.body = parseJson(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
      } catch (err) {
        ctx.state.bodyError = new ApiError('E_BADREQUEST', `${ERROR_MESSAGES.malformedJson}: ${(err as Error).message}`);
      }
    }
  }
  return next();
}

/** What co-body's strict JSON parser allowed: an object or an array, `{}` for an empty body. */
const STRICT_JSON = /^[\x20\x09\x0a\x0d]*(\[|\{)/;

/**
 * co-body's strict JSON parse, step for step (its `lib/json.js`): the same library (@hapi/bourne,
 * which refuses `__proto__` keys) and rules, so the accepted bodies and the messages are the
 * ones the sandbox gave when co-body decoded the bytes itself.
 */
function parseJson(text: string): unknown {
  if (!text) return {};
  if (!STRICT_JSON.test(text)) throw new SyntaxError('invalid JSON, only supports object and array');
  return Bourne.parse(text, { protoAction: 'error' });
}

/**
 * After authentication: rejects a body that is not JSON (415), raises a remembered parse error
 * (400), and refuses a body nested deeper than 64 levels (422, CONTRACT §9) before any route
 * can store it.
 */
export function requireJsonBody(ctx: Context): void {
  const raw = rawBodyOf(ctx);
  const refused = ctx.state.contentTypeRefused as string | undefined;
  if (raw.length > 0 && (refused !== undefined || !JSON_TYPE.test(ctx.get('content-type')))) {
    const given = refused ?? `got ${ctx.get('content-type')}`;
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

/** The request body as text (`''` when there is none): UTF-8, a leading BOM kept. */
export function rawBodyOf(ctx: Context): string {
  const raw: unknown = ctx.request.rawBody;
  return typeof raw === 'string' ? raw : '';
}

/**
 * What the signature is checked over (CONTRACT §9): the exact bytes received, given as the text
 * when the bytes are valid UTF-8 (the same bytes, and the fast path), else as the bytes.
 */
export function signedBodyOf(ctx: Context): string | Buffer {
  const bytes: unknown = ctx.state.signedBody;
  return Buffer.isBuffer(bytes) ? bytes : rawBodyOf(ctx);
}
