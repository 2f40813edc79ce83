import type { z } from 'zod';
import type * as clockRoutes from '../http/control/clock.routes';
import type * as exportRoutes from '../http/control/exports.routes';
import type * as inspectorRoutes from '../http/control/inspector.routes';
import type * as listenRoutes from '../http/control/listen.routes';
import type * as orderRoutes from '../http/control/orders.routes';
import type * as partnerRoutes from '../http/control/partners.routes';
import type * as resetRoutes from '../http/control/reset.routes';
import type * as webhookRoutes from '../http/control/webhooks.routes';
import type * as rateRoutes from '../http/control/rates.routes';
import type * as webhookChaosRoutes from '../http/control/webhook-chaos.routes';
import type * as readinessRoutes from '../sandbox/readiness/readiness.routes';
import type * as stateRoutes from '../sandbox/state/state.routes';
import type { PageMeta } from '../shared/envelope';
import type { ErrorCode } from '../shared/errors';
import { SandboxError } from './sandbox-error';

// The one client of the control API (CONTRACT §4, `/sandbox/*`), typed per operation by the
// route specs the server registers (`api.route(spec, handler)`): a request takes the `z.input`
// of the route's params, query and body schemas, and resolves with the `z.output` of its `data`
// (with `meta` when the route is paged; a route that answers a document as it is, not in an
// envelope, resolves with the document). Only types come from the server's rooms: at run time
// this file needs nothing but `fetch` and SandboxError.

/** The exported specs of some modules that are `/sandbox` routes, keyed by operationId. */
type SpecsIn<M> = {
  [K in keyof M as M[K] extends { readonly operationId: infer Id extends string; readonly path: `/sandbox/${string}` } ? Id : never]: M[K];
};

/** Every JSON route of the control API, by operationId: the specs its routes files export. */
export type ControlSpecs = SpecsIn<
  typeof partnerRoutes &
    typeof clockRoutes &
    typeof orderRoutes &
    typeof webhookRoutes &
    typeof inspectorRoutes &
    typeof exportRoutes &
    typeof listenRoutes &
    typeof rateRoutes &
    typeof webhookChaosRoutes &
    typeof stateRoutes &
    typeof readinessRoutes &
    typeof resetRoutes
>;

/** An operationId of the control API (`getClock`, `simulatePayin`, …). */
export type ControlOperation = keyof ControlSpecs;

type SpecOf<K extends ControlOperation> = ControlSpecs[K];

/** Query values go as strings: where the route takes a digit string, a number does too. */
type Queryable<T> = { [F in keyof T]: string extends NonNullable<T[F]> ? T[F] | number : T[F] };

/** The path parameters of an operation (`undefined`: it has none). */
export type ControlParams<K extends ControlOperation> =
  SpecOf<K> extends { readonly params: infer P extends z.ZodType } ? z.input<P> : undefined;
/** The query of an operation (`undefined`: it takes none). */
export type ControlQuery<K extends ControlOperation> =
  SpecOf<K> extends { readonly query: infer Q extends z.ZodType } ? Queryable<z.input<Q>> : undefined;
/** The JSON body of an operation (`undefined`: it takes none). */
export type ControlBody<K extends ControlOperation> =
  SpecOf<K> extends { readonly body: infer B extends z.ZodType } ? z.input<B> : undefined;
/** The `data` of an operation's answer; for a paged operation, one item of the page. */
export type ControlData<K extends ControlOperation> = z.output<SpecOf<K>['data']>;
/** Whether the operation answers one page of a list (`data` and `meta`). */
export type ControlPaged<K extends ControlOperation> = SpecOf<K> extends { readonly paged: true } ? true : false;
/**
 * Whether the operation answers a JSON document as it is rather than in an envelope (the exports
 * of CONTRACT §19: a HAR, a Postman collection); its `data` is that document.
 */
export type ControlDocument<K extends ControlOperation> =
  SpecOf<K> extends { readonly media: readonly ['application/json'] } ? true : false;
/** What an operation resolves with: its `data`, or for a paged one the page and its `meta`. */
export type ControlResult<K extends ControlOperation> =
  ControlPaged<K> extends true ? { data: ControlData<K>[]; meta: PageMeta } : ControlData<K>;

/** A part of a request: never given when the route takes none, optional when every field of it is. */
type Part<Name extends string, T> = [T] extends [undefined]
  ? { [N in Name]?: never }
  : // biome-ignore lint/complexity/noBannedTypes: `{} extends T` is the test that every field of T is optional
    {} extends T
    ? { [N in Name]?: T }
    : { [N in Name]: T };

/** What an operation is sent: `params`, `query` and `body`, each where the route takes it. */
export type ControlRequest<K extends ControlOperation> = Part<'params', ControlParams<K>> &
  Part<'query', ControlQuery<K>> &
  Part<'body', ControlBody<K>>;

/** The arguments of an operation's method: the request, which may be left out when nothing in it is required. */
export type ControlArgs<K extends ControlOperation> =
  // biome-ignore lint/complexity/noBannedTypes: `{} extends R` is the test that every field of the request is optional
  {} extends ControlRequest<K> ? [request?: ControlRequest<K>] : [request: ControlRequest<K>];

/** One operation as a function. */
export type ControlMethod<K extends ControlOperation> = (...args: ControlArgs<K>) => Promise<ControlResult<K>>;

/** What the client asks of `fetch`: the global fetch fits, and so does a thinner transport. */
export type ControlFetch = (
  url: string,
  init: { method: string; headers: Record<string, string>; body?: string; signal?: AbortSignal },
) => Promise<{ status: number; text(): Promise<string> }>;

export interface ControlClientOptions {
  /** The sandbox's base URL, e.g. `http://127.0.0.1:40123` (a trailing slash is ignored). */
  baseUrl: string;
  /** Sent as `Authorization: Bearer <token>` when the sandbox has one (CONTRACT §4). */
  adminToken?: string;
  /** How requests are sent (default: the global `fetch`). */
  fetch?: ControlFetch;
  /** Aborts every call in progress (and refuses later ones): the CLI's on SIGINT/SIGTERM. */
  signal?: AbortSignal;
}

/**
 * The control API as functions, one per operation (named by its operationId), plus `call` to
 * name the operation as a value. Each resolves with what the route answers in `data` (and
 * `meta` when paged), and throws a `SandboxError` (status, code, message) when it answers an
 * error envelope.
 * @example
 * const control = createControlClient({ baseUrl: 'http://127.0.0.1:4010', adminToken });
 * await control.simulatePayin({ params: { reference }, body: { amount: 50 } });
 * const { data, meta } = await control.listDeliveries({ query: { order: reference } });
 */
export type ControlClient = { readonly [K in ControlOperation]: ControlMethod<K> } & {
  readonly baseUrl: string;
  call<K extends ControlOperation>(operation: K, ...args: ControlArgs<K>): Promise<ControlResult<K>>;
};

type Route<K extends ControlOperation> =
  ControlPaged<K> extends true
    ? readonly [SpecOf<K>['method'], SpecOf<K>['path'], 'paged']
    : ControlDocument<K> extends true
      ? readonly [SpecOf<K>['method'], SpecOf<K>['path'], 'document']
      : readonly [SpecOf<K>['method'], SpecOf<K>['path']];

/**
 * Method, path and paging of each operation: what the client needs of the specs at run time.
 * Typed by the specs, so it cannot say other than they do, nor miss an operation;
 * control-client.test.ts checks it against the exported specs and the OpenAPI document.
 */
export const CONTROL_ROUTES: { readonly [K in ControlOperation]: Route<K> } = {
  createPartner: ['POST', '/sandbox/partners'],
  listPartners: ['GET', '/sandbox/partners'],
  getPartner: ['GET', '/sandbox/partners/{client_id}'],
  updatePartner: ['PATCH', '/sandbox/partners/{client_id}'],
  rotatePartnerKeys: ['POST', '/sandbox/partners/{client_id}/keys'],
  getPartnerKeys: ['GET', '/sandbox/partners/{client_id}/keys'],
  getClock: ['GET', '/sandbox/clock'],
  configureClock: ['POST', '/sandbox/clock'],
  advanceClock: ['POST', '/sandbox/clock/advance'],
  sandboxListOrders: ['GET', '/sandbox/orders', 'paged'],
  sandboxCreateOrder: ['POST', '/sandbox/orders'],
  sandboxGetOrder: ['GET', '/sandbox/orders/{reference}'],
  sandboxOrderLifecycle: ['GET', '/sandbox/orders/{reference}/lifecycle'],
  simulatePayin: ['POST', '/sandbox/orders/{reference}/payin'],
  sandboxFulfilOrder: ['POST', '/sandbox/orders/{reference}/fulfil'],
  sandboxCancelOrder: ['POST', '/sandbox/orders/{reference}/cancel'],
  decidePayout: ['POST', '/sandbox/orders/{reference}/payout'],
  expireOrder: ['POST', '/sandbox/orders/{reference}/expire'],
  simulateOrder: ['POST', '/sandbox/orders/{reference}/simulate'],
  listDeliveries: ['GET', '/sandbox/webhooks/deliveries', 'paged'],
  getDelivery: ['GET', '/sandbox/webhooks/deliveries/{id}'],
  retryDelivery: ['POST', '/sandbox/webhooks/deliveries/{id}/retry'],
  sendWebhook: ['POST', '/sandbox/webhooks/send'],
  getWebhookVectors: ['GET', '/sandbox/webhooks/vectors'],
  listRequests: ['GET', '/sandbox/requests', 'paged'],
  getRequest: ['GET', '/sandbox/requests/{id}'],
  clearRequests: ['DELETE', '/sandbox/requests'],
  exportRequestsHar: ['GET', '/sandbox/requests.har', 'document'],
  exportPostmanCollection: ['GET', '/sandbox/postman.json', 'document'],
  addFault: ['POST', '/sandbox/faults'],
  listFaults: ['GET', '/sandbox/faults'],
  removeFault: ['DELETE', '/sandbox/faults/{id}'],
  clearFaults: ['DELETE', '/sandbox/faults'],
  listRates: ['GET', '/sandbox/rates'],
  scriptRate: ['POST', '/sandbox/rates'],
  removeRateScript: ['DELETE', '/sandbox/rates/{pair}'],
  setWebhookChaos: ['PUT', '/sandbox/partners/{client_id}/webhook-chaos'],
  getWebhookChaos: ['GET', '/sandbox/partners/{client_id}/webhook-chaos'],
  removeWebhookChaos: ['DELETE', '/sandbox/partners/{client_id}/webhook-chaos'],
  getState: ['GET', '/sandbox/state'],
  putState: ['PUT', '/sandbox/state'],
  saveState: ['POST', '/sandbox/state/save'],
  answerListenAttempt: ['POST', '/sandbox/listen/attempts/{id}'],
  openReadinessRun: ['POST', '/sandbox/readiness/runs'],
  listReadinessRuns: ['GET', '/sandbox/readiness/runs'],
  getReadinessRun: ['GET', '/sandbox/readiness/runs/{id}'],
  finishReadinessRun: ['POST', '/sandbox/readiness/runs/{id}/finish'],
  reset: ['POST', '/sandbox/reset'],
};

interface AnyRequest {
  params?: Record<string, unknown>;
  query?: Record<string, unknown>;
  body?: unknown;
}

/** A client of the control API of the sandbox at `baseUrl`. */
export function createControlClient(options: ControlClientOptions): ControlClient {
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const { adminToken } = options;
  // Looked up per call by default, so a fetch replaced later (a test's spy) is the one used.
  const send: ControlFetch = options.fetch ?? ((url, init) => fetch(url, init));

  const call = async (operation: ControlOperation, request: AnyRequest = {}): Promise<unknown> => {
    const route: readonly string[] | undefined = CONTROL_ROUTES[operation];
    if (!route) throw new TypeError(`${String(operation)}: not an operation of the control API`);
    const [method, template, kind] = route as [string, string, ('paged' | 'document')?];
    const path = template.replace(/\{(\w+)\}/g, (_, name: string) => {
      const value = request.params?.[name];
      if (value === undefined || value === null) throw new TypeError(`${operation}: params.${name} is required`);
      const text = String(value);
      // fetch resolves "." and ".." segments (and their %2e forms) before sending, and an empty
      // one leaves a trailing slash: each would reach another route (`removeFault({id: '.'})` was
      // `DELETE /sandbox/faults`, every fault). No id is one of them: refused, nothing sent.
      if (text === '' || text === '.' || text === '..')
        throw new TypeError(
          `${operation}: params.${name} must not be ${JSON.stringify(text)} (an empty, "." or ".." path segment names another route)`,
        );
      return encodeURIComponent(text);
    });
    const headers: Record<string, string> = { accept: 'application/json' };
    if (request.body !== undefined) headers['content-type'] = 'application/json';
    if (adminToken) headers.authorization = `Bearer ${adminToken}`;
    const init: Parameters<ControlFetch>[1] = { method, headers, ...(options.signal ? { signal: options.signal } : {}) };
    if (request.body !== undefined) init.body = JSON.stringify(request.body);
    const res = await send(`${baseUrl}${path}${queryString(request.query)}`, init);
    const text = await res.text();
    const envelope = parseObject(text);
    if (res.status >= 200 && res.status < 300 && kind === 'document' && envelope && !('status' in envelope && 'data' in envelope)) {
      return envelope;
    }
    // Every route's data is an object or a list: anything else is not the sandbox answering.
    if (res.status >= 200 && res.status < 300 && envelope?.status === true && kind !== 'document' && isObject(envelope.data)) {
      return kind === 'paged' ? { data: envelope.data, meta: envelope.meta } : envelope.data;
    }
    const name = `${method} ${path}`;
    if (envelope && typeof envelope.code === 'string')
      throw new SandboxError(res.status, envelope.code as ErrorCode, String(envelope.message), name);
    throw new Error(`${name}: unexpected answer ${res.status} ${text.slice(0, 200)}`);
  };

  const client: Record<string, unknown> = { baseUrl, call };
  for (const operation of Object.keys(CONTROL_ROUTES) as ControlOperation[]) {
    client[operation] = (request?: AnyRequest) => call(operation, request);
  }
  return client as ControlClient;
}

/** `?a=1&b=x` of the defined fields (numbers and booleans as the strings the route parses). */
function queryString(query: Record<string, unknown> | undefined): string {
  if (!query) return '';
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) if (value !== undefined && value !== null) params.set(key, String(value));
  const s = params.toString();
  return s ? `?${s}` : '';
}

const isObject = (value: unknown): value is object => value !== null && typeof value === 'object';

function parseObject(text: string): Record<string, unknown> | undefined {
  try {
    const parsed: unknown = JSON.parse(text);
    return parsed !== null && typeof parsed === 'object' ? (parsed as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
