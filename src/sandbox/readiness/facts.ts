// What a readiness run keeps of a partner's traffic (CONTRACT §21): one small fact per /v1
// request (read from the inspector's record as it is written) and per delivery (read from the
// delivery log as it changes). The checks (checks.client.ts, checks.receiver.ts) are pure
// functions over these facts; nothing here keeps a request, a body or a delivery alive.
import { createHash } from 'node:crypto';
import { AUTH_MESSAGES, SIGNATURE_MISTAKES } from '../../auth';
import type { Environment } from '../../reference';
import { ORDER_TYPES, type OrderType } from '../../orders/model';
import type { RawRecord } from '../../http/inspector/request-log.record';
import type { ChaosMark, Delivery, ProbeKind } from '../../webhooks';

/** What a request was, as far as the checks care. */
export type RequestKind = 'quote' | 'create' | 'get_order' | 'list_orders' | 'lookup' | 'networks' | 'currencies' | 'other';

/**
 * Why a 401/403 was refused, read from the message the inspector recorded (the diagnosis of
 * auth/authenticate.ts): `seconds` (a timestamp in seconds, sent or signed), `raw_body` (the
 * body signed was re-serialised), `public_on_secret` (the public key on a write), `signature`
 * (any other signature or timestamp failure), `key` (an unknown, revoked or foreign key).
 */
export type AuthFailure = 'seconds' | 'raw_body' | 'public_on_secret' | 'signature' | 'key';

export interface RequestFact {
  /** The inspector's id (`req_…`), the evidence a partner looks up. */
  id: string;
  /** Wall ms the request came in (answered minus its duration), and was answered. */
  start: number;
  end: number;
  method: string;
  /** The path without its query. */
  path: string;
  kind: RequestKind;
  status: number;
  code?: string;
  auth: RawRecord['auth'];
  /** The Bearer token as the inspector masks it (`Bearer sk_test_****abcd`): the rate-limit bucket's name. */
  key?: string;
  keyKind?: 'pk' | 'sk' | 'enc';
  /** The environment the key (or, once authenticated, the request) is of. */
  env?: Environment;
  failure?: AuthFailure;
  retryAfterMs?: number;
  /** A hash of method, path with query and body: a request sent again unchanged has the same. */
  fingerprint: string;
  hasBody: boolean;
  /** The id of the injected fault that answered it, when one did. */
  fault?: string;
  merchantReference?: string;
  /**
   * A create's body but its `merchant_reference`, hashed: the same order asked for again under
   * another merchant_reference has the same (a quote is used once, so another order's differs).
   */
  intent?: string;
  /** A create's `quote_id`, or the quote a quote request made. */
  quoteId?: string;
  orderType?: OrderType;
  /** The order it created, read or was refused for (409: the order holding the merchant reference). */
  reference?: string;
  /** An account lookup's answer, or an offramp create's recipient. */
  accountNumber?: string;
  accountName?: string;
  /** A create refused because its quote had expired (spec §2.5, CONTRACT §3 400). */
  expiredQuote?: boolean;
}

export interface AttemptFact {
  /** The receiver's HTTP status; null when it gave none (refused, timed out). */
  status: number | null;
  ms: number;
  error: string | null;
}

export interface DeliveryFact {
  id: string;
  order: string | null;
  event: string;
  probe?: ProbeKind;
  /**
   * What webhook chaos did to it (CONTRACT §22): a `duplicate` (of `duplicateOf`), `reordered`
   * (a later event of its order went first), `delayed`. Chaos deliveries are ordinary lifecycle
   * deliveries; the marks let `duplicates` and `out_of_order` count them as occasions.
   */
  chaos?: ChaosMark[];
  duplicateOf?: string;
  /** Finished attempts only, in order. */
  attempts: AttemptFact[];
  /** Whether the delivery was aimed at a receiver at all (the partner has a webhook URL or a listener). */
  aimed: boolean;
  /** Whether the log gave up on it (status `failed` after its last automatic attempt). */
  gaveUp: boolean;
}

/** Everything a run has seen, oldest first. */
export interface RunFacts {
  environment: Environment;
  requests: readonly RequestFact[];
  deliveries: readonly DeliveryFact[];
}

const ORDER_PATH = /^\/v1\/orders\/([^/]+)$/i;

/**
 * A request's path as the router matched it: one trailing slash dropped, and (`kindOf`) in any
 * case. A client that read `/v1/orders/{ref}/` every 100 ms was answered 200 each time and was
 * never seen polling: its reads were filed as `other`.
 */
function routedPath(path: string): string {
  return path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
}

function kindOf(method: string, routed: string): RequestKind {
  const path = routed.toLowerCase();
  if (method === 'POST' && path === '/v1/orders/quote') return 'quote';
  if (method === 'POST' && path === '/v1/orders') return 'create';
  if (method === 'GET' && path === '/v1/orders') return 'list_orders';
  if (method === 'GET' && ORDER_PATH.test(path) && path !== '/v1/orders/quote') return 'get_order';
  if (method === 'GET' && path === '/v1/account-lookup') return 'lookup';
  if (method === 'GET' && (path === '/v1/networks' || /^\/v1\/crypto-currencies\/[^/]+\/networks$/.test(path))) return 'networks';
  if (
    method === 'GET' &&
    (path === '/v1/crypto-currencies' || path === '/v1/fiat-currencies' || /^\/v1\/networks\/[^/]+\/crypto-currencies$/.test(path))
  )
    return 'currencies';
  return 'other';
}

/** The failure a refused request's recorded message names (see AuthFailure). */
export function classifyAuthFailure(status: number, message: string | undefined): AuthFailure | undefined {
  if (status !== 401 && status !== 403) return undefined;
  const m = message ?? '';
  if (m === AUTH_MESSAGES.secondsTimestamp || m.includes(SIGNATURE_MISTAKES.seconds)) return 'seconds';
  if (m.includes(SIGNATURE_MISTAKES.reserialised)) return 'raw_body';
  if (m === AUTH_MESSAGES.publicOnSecretRoute) return 'public_on_secret';
  if (
    m.startsWith(AUTH_MESSAGES.badSignature) ||
    m === AUTH_MESSAGES.missingSignature ||
    m === AUTH_MESSAGES.badSignatureFormat ||
    m === AUTH_MESSAGES.missingTimestamp ||
    m === AUTH_MESSAGES.badTimestamp ||
    m.startsWith('svc-timestamp is ')
  ) {
    return 'signature';
  }
  return status === 401 ? 'key' : undefined;
}

const BEARER = /^Bearer\s+(pk|sk|enc)_(test|live)_/;

function json(text: string | undefined): Record<string, unknown> | undefined {
  if (!text) return undefined;
  try {
    const parsed: unknown = JSON.parse(text);
    return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : undefined;
  } catch {
    return undefined; // cut at 4 KiB, or not JSON: nothing to read
  }
}

/** A path segment decoded, or as it is when it does not decode (a stray `%`). */
function decoded(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

const text = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v.slice(0, 128) : undefined);
const record = (v: unknown): Record<string, unknown> | undefined =>
  v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
const isOrderType = (type: string): type is OrderType => (ORDER_TYPES as readonly string[]).includes(type);

/** The order type legs describe (spec §4.1 create quote): crypto legs carry a network. */
function typeOfLegs(body: Record<string, unknown>): OrderType | undefined {
  const from = record(body.from);
  const to = record(body.to);
  if (!from || !to) return undefined;
  const a = from.network !== undefined;
  const b = to.network !== undefined;
  return a && b ? 'swap' : a ? 'offramp' : b ? 'onramp' : undefined;
}

/**
 * The fact of one recorded /v1 request. `quoteTypes` (the types of quotes the run saw made) and
 * `existing` (the order holding a merchant reference, read through the order store) fill in what
 * a create's own record does not say.
 */
export function requestFact(
  id: string,
  raw: Readonly<RawRecord>,
  look: { quoteType(quoteId: string): OrderType | undefined; existing(merchantReference: string): string | undefined },
): RequestFact {
  const q = raw.path.indexOf('?');
  const path = q < 0 ? raw.path : raw.path.slice(0, q);
  const query = q < 0 ? '' : raw.path.slice(q + 1);
  const kind = kindOf(raw.method, routedPath(path));
  const bearer = BEARER.exec(raw.headers.authorization ?? '');
  const body = raw.requestBody ?? '';
  const fact: RequestFact = {
    id,
    start: raw.wallMs - raw.ms,
    end: raw.wallMs,
    method: raw.method,
    path,
    kind,
    status: raw.status,
    auth: raw.auth,
    fingerprint: createHash('sha1').update(`${raw.method} ${raw.path}\n${body}`).digest('base64'),
    hasBody: body !== '',
  };
  if (raw.code) fact.code = raw.code;
  if (raw.headers.authorization) fact.key = raw.headers.authorization;
  if (bearer) {
    fact.keyKind = bearer[1] as RequestFact['keyKind'];
    fact.env = bearer[2] as Environment;
  }
  if (raw.environment) fact.env = raw.environment;
  const failure = classifyAuthFailure(raw.status, raw.message);
  if (failure) fact.failure = failure;
  const retryAfter = Number(raw.responseHeaders?.['retry-after']);
  if (raw.status === 429 && Number.isFinite(retryAfter)) fact.retryAfterMs = retryAfter * 1000;
  if (raw.fault) fact.fault = raw.fault;
  const sent = json(raw.requestBody);
  const answer = record(json(raw.responseBody)?.data);
  if (kind === 'quote') {
    const quoteId = text(answer?.quote_id);
    if (quoteId) fact.quoteId = quoteId;
    const type = text(answer?.type) ?? (sent && typeOfLegs(sent));
    if (type && isOrderType(type)) fact.orderType = type;
  } else if (kind === 'create') {
    const merchantReference = text(sent?.merchant_reference);
    if (merchantReference) fact.merchantReference = merchantReference;
    if (sent) {
      const { merchant_reference: _, ...rest } = sent;
      fact.intent = createHash('sha1').update(JSON.stringify(rest)).digest('base64');
    }
    const quoteId = text(sent?.quote_id);
    if (quoteId) fact.quoteId = quoteId;
    const type = text(answer?.type) ?? (quoteId ? look.quoteType(quoteId) : sent && typeOfLegs(sent));
    if (type && isOrderType(type)) fact.orderType = type;
    const recipient = record(sent?.recipient);
    const accountName = text(recipient?.account_name);
    if (accountName) fact.accountName = accountName;
    const accountNumber = text(recipient?.account_number);
    if (accountNumber) fact.accountNumber = accountNumber;
    // The order behind a 409, or the one a create answered 5xx (or not at all) made anyway: a
    // client that then reads it has reconciled.
    const made = raw.status === 409 || raw.status === 0 || raw.status >= 500;
    const reference = text(answer?.reference) ?? (made && merchantReference ? look.existing(merchantReference) : undefined);
    if (reference) fact.reference = reference;
    if (raw.status === 400 && (raw.message ?? '').startsWith('quote_id: quote expired')) fact.expiredQuote = true;
  } else if (kind === 'get_order') {
    fact.reference = decoded(ORDER_PATH.exec(routedPath(path))![1]!);
  } else if (kind === 'lookup') {
    const number = text(answer?.account_number) ?? text(new URLSearchParams(query).get('account_number'));
    if (number) fact.accountNumber = number;
    const name = text(answer?.account_name);
    if (name) fact.accountName = name;
  }
  return fact;
}

/** The fact of a delivery as the log holds it now (its finished attempts). */
export function deliveryFact(d: Readonly<Delivery>): DeliveryFact {
  const attempts = d.attempts
    .slice(0, d.inFlight ? -1 : undefined)
    .map((a) => ({ status: a.http_status, ms: a.duration_ms, error: a.error }));
  return {
    id: d.id,
    order: d.order,
    event: d.event,
    ...(d.probe ? { probe: d.probe.kind } : {}),
    ...(d.chaos?.length ? { chaos: [...d.chaos] } : {}),
    ...(d.duplicate_of !== undefined ? { duplicateOf: d.duplicate_of } : {}),
    attempts,
    aimed: d.attempts.some((a) => a.url !== null),
    gaveUp: d.status === 'failed',
  };
}
