import type Router from '@koa/router';
import type { OpenApiGeneratorV31 } from '@asteasolutions/zod-to-openapi';
import type { Context, Middleware } from 'koa';
import { Readable } from 'node:stream';
import type { z } from 'zod';
import type { ChangeGate } from '../../shared/change-gate';
import { ok, type PageMeta } from '../../shared/envelope';
import { parseOrThrow } from '../../shared/validation';
import { envelopeHead, sharedEnvelope } from './render-cache';
import { queryParser } from './query-parse';

/**
 * Who may call a route, and what its guard enforces: anyone (`none`), a public or secret key
 * (`read`), a secret key (`secret`), the admin (`admin`: the control API, CONTRACT §4), or the
 * sandbox's own pages (`page`: the dashboard page and assets, no token, Host and Origin checked).
 */
export type RouteAuth = 'none' | 'read' | 'secret' | 'admin' | 'page';
export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
export type Tag = 'Health' | 'Reference data' | 'Orders' | 'sandbox';

type Out<S> = S extends z.ZodType ? z.output<S> : undefined;

/**
 * One route, described once: the router registers it from this, requests are parsed with its
 * schemas, and the OpenAPI document (CONTRACT §10) is generated from the same object.
 */
export interface RouteSpec<
  P extends z.ZodType | undefined = z.ZodType | undefined,
  Q extends z.ZodType | undefined = z.ZodType | undefined,
  B extends z.ZodType | undefined = z.ZodType | undefined,
  D extends z.ZodType = z.ZodType,
> {
  method: HttpMethod;
  /** OpenAPI form: `/v1/orders/{reference}`. */
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  tag: Tag;
  auth: RouteAuth;
  /** Rate-limit tokens (spec §8: get order costs 2). */
  cost?: number;
  params?: P;
  query?: Q;
  body?: B;
  /**
   * 'handler': the body's schema depends on what the route looks up (fulfil: the order's
   * pay-in kind), so the handler parses it; `body` only documents it.
   */
  bodyCheckedBy?: 'handler';
  /** A permission check of the caller (403) that must come before the shape checks (422). */
  authorize?: (ctx: Context) => void;
  /** The success `data` (or the page's items when `paged`). */
  data: D;
  paged?: boolean;
  /** Served as text/html rather than a JSON envelope (the dashboard). */
  html?: boolean;
  /**
   * Served as one of these media types rather than a JSON envelope (static assets, a
   * text/event-stream): the handler sets `ctx.type` and `ctx.body` itself (an empty list:
   * no body, e.g. a redirect).
   */
  media?: readonly string[];
  /** The success status when it is not 200 (a redirect: 302). */
  successStatus?: number;
  /** The success `message`. */
  message: string;
  /** Statuses the route itself raises, beyond those of its auth and body (e.g. 400, 404, 409). */
  errors?: readonly number[];
  /**
   * Every route but a GET may change the state, so it waits while a state document is taken
   * (CONTRACT §13, `ChangeGate`); `false` for one that changes nothing the document holds.
   */
  changesState?: false;
}

/** An OpenAPI 3.1 document, as the generator makes it. */
export type OpenApiDocument = ReturnType<OpenApiGeneratorV31['generateDocument']>;

export type AnyRouteSpec = RouteSpec<z.ZodType | undefined, z.ZodType | undefined, z.ZodType | undefined, z.ZodType>;

export interface RouteInput<P, Q, B> {
  params: Out<P>;
  query: Out<Q>;
  body: Out<B>;
  ctx: Context;
}

/**
 * `data` already serialised (a cache hit): written into the envelope as it is, and answered with
 * the same envelope string while it is the same (`sharedEnvelope`, render-cache.ts).
 */
export interface RawData {
  readonly rawJson: string;
}
export const rawData = (json: string): RawData => ({ rawJson: json });

/**
 * `data` already serialised in chunks, streamed into the envelope: a document too large to be
 * one string (V8 caps one at ~512 MiB), such as a whole sandbox state (CONTRACT §13).
 */
export interface RawChunks {
  readonly rawChunks: Iterable<string | Uint8Array> | AsyncIterable<string | Uint8Array>;
}
export const rawChunks = (chunks: Iterable<string | Uint8Array> | AsyncIterable<string | Uint8Array>): RawChunks => ({ rawChunks: chunks });

/** The envelope around chunks of `data`; ending it early (the client went) ends theirs too. */
async function* envelopedChunks(
  head: string,
  chunks: Iterable<string | Uint8Array> | AsyncIterable<string | Uint8Array>,
): AsyncGenerator<string | Uint8Array> {
  yield head;
  yield* chunks;
  yield '}';
}

export type RouteResult<D extends z.ZodType> = z.input<D> | RawData | RawChunks | { page: z.input<D>[]; meta: PageMeta };

/**
 * What a route's handler returns: what to answer in the envelope, or nothing for a route with
 * `media`, whose handler sets the type and body itself (its `data` only documents them). A spec
 * typed only as a RouteSpec may or may not have `media`: its handler may do either.
 */
export type RouteAnswer<D extends z.ZodType, M> = string[] extends M
  ? // biome-ignore lint/suspicious/noConfusingVoidType: a handler with no return statement returns void, which undefined does not take
    RouteResult<D> | void
  : M extends readonly string[]
    ? // biome-ignore lint/suspicious/noConfusingVoidType: as above, the handler of a `media` route returns nothing
      void
    : RouteResult<D>;

/**
 * The parsed JSON body that the body parser (`edge/body.ts`, koa-bodyparser) left on the request.
 * Read through its own type rather than koa-bodyparser's augmentation of Koa's `Request`, so this
 * file type-checks wherever it is reached (the dashboard's program reaches it through the
 * control client's route specs, without the body parser).
 */
const bodyOf = (ctx: Context): unknown => (ctx.request as { body?: unknown }).body;

/** Statuses every route of an auth kind can answer (CONTRACT §3, §9), whatever the route. */
export function errorStatuses(spec: AnyRouteSpec): number[] {
  // Any request may be one Node's parser refuses, whatever its route (CONTRACT §9: 400, 408 when
  // it came too slowly, 431 when its request line and headers pass 16 KB), or too large a body.
  const statuses = new Set<number>([400, 408, 413, 431, ...(spec.errors ?? [])]);
  if (spec.auth !== 'none' && spec.auth !== 'page') for (const s of [400, 401, 415, 422]) statuses.add(s);
  // 429 and 5xx may also be injected faults (CONTRACT §12), which apply to authenticated /v1 routes.
  if (spec.auth === 'read' || spec.auth === 'secret') for (const s of [403, 429, 500, 502, 503, 504]) statuses.add(s);
  if (spec.query || spec.params) statuses.add(422);
  // CONTRACT §4: the control API refuses a foreign Host or a cross-site Origin.
  if (spec.path.startsWith('/sandbox')) statuses.add(403);
  return [...statuses].sort((a, b) => a - b);
}

/**
 * The routes of one app. `route()` registers a spec on the Koa router behind the guard of its
 * auth kind, parses params, query and body with its schemas (the first issue becomes the
 * spec's `<field>: <reason>` 422), and wraps what the handler returns in the success envelope.
 */
export class Api {
  readonly routes: AnyRouteSpec[] = [];
  private described: OpenApiDocument | undefined;

  constructor(
    readonly router: Router,
    private readonly guard: (auth: RouteAuth, cost: number) => Middleware | undefined,
    private readonly describe: (routes: readonly AnyRouteSpec[]) => OpenApiDocument = () => {
      throw new Error('this Api was made without an OpenAPI generator');
    },
    /** Where the routes that may change the state wait while a state document is taken. */
    private readonly changes?: ChangeGate,
  ) {}

  /**
   * The OpenAPI document of the routes (CONTRACT §10), generated at the first call, once every
   * route is registered: `GET /openapi.json` serves it, and the exports are made from it.
   */
  document(): OpenApiDocument {
    return (this.described ??= this.describe(this.routes));
  }

  route<
    P extends z.ZodType | undefined,
    Q extends z.ZodType | undefined,
    B extends z.ZodType | undefined,
    D extends z.ZodType,
    M extends readonly string[] | undefined = undefined,
  >(
    spec: RouteSpec<P, Q, B, D> & { media?: M },
    handler: (input: RouteInput<P, Q, B>) => RouteAnswer<D, M> | Promise<RouteAnswer<D, M>>,
  ): void {
    this.routes.push(spec as AnyRouteSpec);
    const head = envelopeHead(spec.message);
    const envelope = sharedEnvelope(spec.message);
    // Not async: most handlers answer at once, and an async layer costs a promise and a
    // microtask on every request. A handler's promise is followed when it returns one.
    const query = spec.query ? queryParser(spec.query) : undefined;
    const run: Middleware = (ctx) => {
      spec.authorize?.(ctx);
      const input = {
        params: (spec.params ? parseOrThrow(spec.params, ctx.params) : undefined) as Out<P>,
        query: (query ? query(ctx.querystring, () => ctx.query) : undefined) as Out<Q>,
        body: (spec.body && !spec.bodyCheckedBy ? parseOrThrow(spec.body, bodyOf(ctx)) : undefined) as Out<B>,
        ctx,
      };
      const result = handler(input) as RouteResult<D> | Promise<RouteResult<D>>;
      if (result instanceof Promise) return result.then((answer) => respond(ctx, answer));
      respond(ctx, result);
      return undefined;
    };
    const respond = (ctx: Context, result: RouteResult<D>) => {
      if (spec.html) {
        ctx.type = 'text/html; charset=utf-8';
        ctx.body = result as string;
      } else if (spec.media) {
        // the handler has answered
      } else if (result !== null && typeof result === 'object' && 'rawChunks' in result) {
        ctx.set('Content-Type', 'application/json; charset=utf-8');
        ctx.body = Readable.from(envelopedChunks(head, (result as RawChunks).rawChunks));
      } else if (result !== null && typeof result === 'object' && 'rawJson' in result) {
        ctx.set('Content-Type', 'application/json; charset=utf-8');
        ctx.body = envelope((result as RawData).rawJson);
      } else {
        // Rendered here, with the type set first: Koa would look the type up with mime-types for
        // an object body and then take the string the edge made of it as a second body. A body
        // that cannot be rendered throws to the edge all the same (our logged 500).
        const paged = spec.paged ? (result as { page: unknown[]; meta: PageMeta }) : undefined;
        ctx.set('Content-Type', 'application/json; charset=utf-8');
        ctx.body = JSON.stringify(paged ? ok(spec.message, paged.page, paged.meta) : ok(spec.message, result));
      }
    };
    // CONTRACT §13: while a state document is taken, a request that may change the state waits;
    // one under way (a promise) is counted, so the document waits for it. A plain check per request.
    const changes = spec.method !== 'GET' && spec.changesState !== false ? this.changes : undefined;
    const gated: Middleware = changes
      ? (ctx, next) => {
          if (changes.closed) return changes.whenOpen().then(() => gated(ctx, next));
          const answer: unknown = run(ctx, next);
          return answer instanceof Promise ? changes.track(answer) : answer;
        }
      : run;
    const guard = this.guard(spec.auth, spec.cost ?? 1);
    const koaPath = spec.path.replace(/\{(\w+)\}/g, ':$1');
    const method = spec.method.toLowerCase() as 'get' | 'post' | 'patch' | 'put' | 'delete';
    if (guard) this.router[method](koaPath, guard, gated);
    else this.router[method](koaPath, gated);
  }
}
