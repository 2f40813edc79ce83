import Koa, { type Context, type Middleware } from 'koa';
import Router, { type RouterContext } from '@koa/router';
import type { Logger } from 'pino';
import type { ChangeGate } from '../../shared/change-gate';
import { ApiError } from '../../shared/errors';
import { renderError, ERROR_MESSAGES, type Outcome } from './errors';
import { parseBody } from './body';
import { Api, type AnyRouteSpec, type RouteAuth } from '../api/api';
import { buildOpenApi, type WebhookSpec } from '../api/openapi';
import { redactUrl } from './redact';
import { routedByTurn } from './turn-batch';

export interface AppOptions {
  logger: Logger;
  /** The middleware that guards each auth kind (undefined: none at route level). */
  guard: (auth: RouteAuth, cost: number) => Middleware | undefined;
  /** Registers every route on the one router (a flat router keeps 404/405 exact). */
  register: (api: Api) => void;
  /** Sees every finished request (the request inspector); called after the answer is rendered. */
  observe?: (ctx: Context, outcome: Outcome) => void;
  /** Where the routes that may change the state wait while a state document is taken (CONTRACT §13). */
  changes?: ChangeGate;
  /** Webhook events documented in `GET /openapi.json`. */
  webhooks?: readonly WebhookSpec[];
  version: string;
  /** The admin token: its value is scrubbed from every URL logged, under any name (CONTRACT §9). */
  adminToken?: string;
}

/**
 * Builds the Koa app: edge (request id and log, error envelope, 404/405) → body parser → the
 * turn's batch (decision 025) → routes.
 * The edge is one middleware rather than four so every request pays for one async layer.
 */
export function createApp(options: AppOptions): Koa {
  const app = new Koa({ proxy: false });
  app.silent = true;
  const router = new Router();
  const api = new Api(router, options.guard, (routes) => buildOpenApi(routes, options.webhooks ?? [], options.version), options.changes);
  options.register(api);
  // CONTRACT §10: generated once from the routes just registered.
  let document: string | undefined;
  router.get('/openapi.json', (ctx) => {
    document ??= JSON.stringify(api.document());
    ctx.set('Content-Type', 'application/json; charset=utf-8');
    ctx.body = document;
  });
  app.use(edge(options.logger, itemTemplates(api.routes), options.observe, options.adminToken));
  app.use(parseBody());
  // A turn's requests are routed together, at the turn's end (decision 025).
  app.use(routedByTurn());
  // @koa/router dispatches, through its public API alone: what it leaves for the edge's 404/405
  // is `ctx.matched` (decision 001's index over its layers is gone: page 001).
  app.use(router.routes());
  return app;
}

/**
 * Request id (echoed as `x-request-id`; a counter of this app's, not the seeded generator, so
 * logging never shifts the references a seed produces, and not the process's, so another
 * sandbox in the process never shifts this one's), one structured log line per response (pino),
 * every error rendered in the documented envelope (Koa's own handler would answer text/plain),
 * and unknown route (404) or wrong method (405 with Allow) when no route answered.
 */
function edge(logger: Logger, items: readonly Template[], observe?: (ctx: Context, outcome: Outcome) => void, secret?: string): Middleware {
  let counter = 0;
  return async (ctx, next) => {
    const given = ctx.get('x-request-id');
    const reqId = given && /^[\w.:-]{1,64}$/.test(given) ? given : `req-${(++counter).toString(36)}`;
    ctx.state.reqId = reqId;
    ctx.set('x-request-id', reqId);
    const started = performance.now();
    let error: ApiError | undefined;
    try {
      // Node's own check is off (`requireHostHeader: false`, sandbox/server.ts) so this one answers in the envelope.
      if (ctx.req.headers.host === undefined && ctx.req.httpVersion === '1.1') throw missingHost(ctx);
      const path = ctx.path;
      if (path.length > 1 && path.charCodeAt(path.length - 1) === SLASH && namesEmptyItem(items, path)) throw emptyItem(path, ctx.method);
      await next();
      if (ctx.respond === false) {
        // the connection was dropped on purpose (an injected fault): nothing to answer
      } else if (ctx.status === 404 && ctx.body == null) throw unmatched(ctx, ctx.path, ctx.method);
      else serialise(ctx);
    } catch (caught) {
      error = renderError(ctx, caught, logger, secret);
      serialise(ctx);
    }
    observe?.(ctx, { ms: performance.now() - started, error });
    if (logger.isLevelEnabled('info')) {
      logger.info(
        {
          reqId,
          method: ctx.method,
          url: redactUrl(ctx.originalUrl, secret),
          status: ctx.status,
          ms: Math.round((performance.now() - started) * 100) / 100,
          clientId: ctx.state.auth?.partner.client_id,
          env: ctx.state.auth?.env,
        },
        'request',
      );
    }
  };
}

/** An HTTP/1.1 request without a Host header (RFC 9112 §3.2): a 400, and the connection closes, as Node's own answer did. */
function missingHost(ctx: Context): ApiError {
  ctx.set('Connection', 'close');
  return new ApiError('E_BADREQUEST', 'Malformed HTTP request: an HTTP/1.1 request needs a Host header');
}

/**
 * Serialises a JSON body here rather than in Koa's respond(), so a body that cannot be
 * rendered is our logged 500 in the error envelope, never Koa's plain-text one.
 */
function serialise(ctx: Context): void {
  const body: unknown = ctx.body;
  if (body === null || typeof body !== 'object' || Buffer.isBuffer(body) || typeof (body as { pipe?: unknown }).pipe === 'function') return;
  ctx.body = JSON.stringify(body);
}

const SLASH = 0x2f;

/** A route's path as its segments, OpenAPI form: `['', 'sandbox', 'faults', '{id}']`. */
type Template = readonly string[];

const isParam = (segment: string) => segment.startsWith('{');

/** The paths of the routes with a path parameter, from their specs (our own route table, not the router's layers). */
function itemTemplates(routes: readonly AnyRouteSpec[]): Template[] {
  return routes.filter((spec) => spec.path.includes('{')).map((spec) => spec.path.split('/'));
}

/**
 * Whether `path` (ending in `/`) is an item route with an empty last parameter: `/sandbox/faults/`
 * is `/sandbox/faults/{id}` with no id. The router ignores one trailing slash, and would answer it
 * as the collection (`DELETE /sandbox/faults/` removed every fault); it is a 404 instead. Where no
 * item route follows (`/health/`, `/v1/orders/quote/`), one trailing slash is still ignored.
 * Matched as the router matches (a parameter is one non-empty segment, letters in any case), on
 * the route specs.
 */
function namesEmptyItem(items: readonly Template[], path: string): boolean {
  const segments = `${path}_`.split('/');
  return items.some(
    (t) =>
      t.length === segments.length && t.every((s, i) => (isParam(s) ? segments[i] !== '' : s.toLowerCase() === segments[i]!.toLowerCase())),
  );
}

function emptyItem(path: string, method: string): ApiError {
  const collection = path.replace(/\/+$/, '');
  return new ApiError(
    'E_NOTFOUND',
    `${ERROR_MESSAGES.notFound}: ${method} ${path} (an item with an empty id; the collection is ${collection}, without the trailing slash)`,
  );
}

/**
 * 405 with `Allow` when the path is known for other methods, else 404: the router leaves on
 * `ctx.matched` (its documented context field) the routes whose path matched, whatever their method.
 */
function unmatched(ctx: Context, path: string, method: string): ApiError {
  const allowed = new Set<string>();
  for (const layer of (ctx as Context & Pick<RouterContext, 'matched'>).matched ?? []) for (const m of layer.methods) allowed.add(m);
  if (allowed.size > 0) {
    const allow = [...allowed].join(', ');
    return new ApiError('E_BADREQUEST', `${ERROR_MESSAGES.methodNotAllowed}; allowed: ${allow}`, {
      status: 405,
      headers: { Allow: allow },
    });
  }
  return new ApiError('E_NOTFOUND', `${ERROR_MESSAGES.notFound}: ${method} ${path}`);
}
