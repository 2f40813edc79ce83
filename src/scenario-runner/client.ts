import { signRequest, type KeySet } from '../auth';
import type { Partner as PartnerView } from '../auth/partner.schemas';
import type { ClockView } from '../clock';
import type { Fault, FaultInput } from '../http/faults/fault.store';
import type { Environment } from '../reference';
import type { OrderDetail, OrderSummary, Quote } from '../orders';
import type { DeliveryView } from '../webhooks';
import { httpRequest } from '../webhooks/http-request';

/** One answer: the parsed envelope, its raw text. */
export interface Reply<T = any> {
  /** 0 when the connection was closed without an answer. */
  status: number;
  body: T;
  text: string;
  /** The connection was closed without an answer (e.g. an injected `drop` fault). */
  dropped?: boolean;
}

/** The success envelope's `data` (and `meta` on a list), or the error envelope. */
export type Envelope<T> = { status?: boolean; message?: string; code?: string; data: T; meta?: { last_page: number } };

/** Who the runner acts as on /v1. */
export interface PartnerIdentity {
  client_id: string;
  keys: { test: KeySet; live: KeySet };
}

/** The order as `GET /v1/orders/{ref}?include=payout,timeline` shows it. */
export type OrderView = OrderDetail & { timeline: NonNullable<OrderDetail['timeline']>; payin: Record<string, any> };
export type { DeliveryView };
type AddressFormat = 'evm' | 'tron' | 'solana';
type Call = { retry429?: boolean };

/** Socket errors that mean the server closed the connection without answering. */
const DROPPED = new Set(['ECONNRESET', 'EPIPE']);

/**
 * The runner's only way to a sandbox: a typed client of its HTTP API. /v1 calls are signed as
 * a partner (`as(identity, env)`), /sandbox calls carry the admin token. Nothing here knows
 * how the sandbox was started.
 */
export class SandboxClient {
  private readonly formats = new Map<string, Promise<Map<string, AddressFormat>>>();

  constructor(
    readonly baseUrl: string,
    private readonly adminToken?: string,
  ) {}

  /** The /v1 API as one partner in one environment. */
  as(identity: PartnerIdentity, env: Environment): PartnerApi {
    return new PartnerApi(this, identity, env);
  }

  createPartner(body: Record<string, unknown>) {
    return this.control<Envelope<PartnerView>>('POST', '/sandbox/partners', body);
  }
  updatePartner(clientId: string, patch: Record<string, unknown>) {
    return this.control<Envelope<PartnerView>>('PATCH', `/sandbox/partners/${clientId}`, patch);
  }
  payin(reference: string, body: Record<string, unknown>) {
    return this.control<Envelope<OrderDetail>>('POST', `/sandbox/orders/${reference}/payin`, body);
  }
  payout(reference: string, body: Record<string, unknown>) {
    return this.control<Envelope<unknown>>('POST', `/sandbox/orders/${reference}/payout`, body);
  }
  expire(reference: string) {
    return this.control<Envelope<OrderDetail>>('POST', `/sandbox/orders/${reference}/expire`);
  }
  clock() {
    return this.control<Envelope<ClockView>>('GET', '/sandbox/clock');
  }
  /** `{duration}` or `{to}` (ISO). */
  advance(body: { duration: string } | { to: string }) {
    return this.control<Envelope<unknown>>('POST', '/sandbox/clock/advance', body);
  }
  /** The order's deliveries, newest first (as the control API lists them). */
  deliveries(reference: string) {
    return this.control<Envelope<DeliveryView[]>>('GET', `/sandbox/webhooks/deliveries?order=${reference}&per_page=500`);
  }
  addFault(input: FaultInput) {
    return this.control<Envelope<Fault>>('POST', '/sandbox/faults', input);
  }
  removeFault(id: string) {
    return this.control<Envelope<Fault>>('DELETE', `/sandbox/faults/${encodeURIComponent(id)}`);
  }

  /** Address format of each network of an environment, read once per sandbox and environment. */
  addressFormats(as: PartnerIdentity, env: Environment): Promise<Map<string, AddressFormat>> {
    let formats = this.formats.get(env);
    if (!formats) {
      formats = this.publicGet<Envelope<Array<{ identifier: string; is_evm: boolean }>>>('/v1/networks', as, env).then((res) => {
        if (res.status !== 200) {
          this.formats.delete(env);
          throw new Error(`GET /v1/networks answered ${res.status}`);
        }
        return new Map(res.body.data.map((n) => [n.identifier, n.is_evm ? 'evm' : n.identifier.includes('tron') ? 'tron' : 'solana'] as const));
      });
      this.formats.set(env, formats);
    }
    return formats;
  }

  /** A /sandbox call. */
  async control<T = any>(method: string, path: string, body?: unknown): Promise<Reply<T>> {
    const headers: Record<string, string> = {};
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (this.adminToken) headers.authorization = `Bearer ${this.adminToken}`;
    return this.send(method, path, headers, body === undefined ? undefined : JSON.stringify(body));
  }

  /**
   * A signed /v1 call; a 429 is waited out (Retry-After) and tried again, as a partner client
   * should, unless `retry429` is false (a step that expects the 429).
   */
  async v1<T = any>(method: string, path: string, as: PartnerIdentity, env: Environment, body?: unknown, retry429 = true): Promise<Reply<T>> {
    const raw = body === undefined ? undefined : JSON.stringify(body);
    const keys = as.keys[env];
    return this.withRetryAfter(retry429, () => {
      // Signed per attempt: each retry carries a fresh timestamp.
      const headers = signRequest({ method, path, body: raw, clientId: as.client_id, secretKey: keys.secret_key, encryptionKey: keys.encryption_key });
      return this.send(method, path, headers, raw);
    });
  }

  /** A /v1 call with the public key (no HMAC). */
  async publicGet<T = any>(path: string, as: PartnerIdentity, env: Environment): Promise<Reply<T>> {
    return this.withRetryAfter(true, () => this.send('GET', path, { 'svc-client-id': as.client_id, authorization: `Bearer ${as.keys[env].public_key}` }));
  }

  private async withRetryAfter(retry: boolean, call: () => Promise<Reply & { retryAfter?: number }>): Promise<Reply> {
    for (let attempt = 0; ; attempt++) {
      const res = await call();
      if (!retry || res.status !== 429 || attempt >= 20) return res;
      await new Promise((r) => setTimeout(r, Math.min(5, res.retryAfter ?? 1) * 1000));
    }
  }

  private async send(method: string, path: string, headers: Record<string, string>, body?: string): Promise<Reply & { retryAfter?: number }> {
    let res;
    try {
      res = await httpRequest(this.baseUrl + path, { method, headers, body });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code && DROPPED.has(code)) return { status: 0, body: undefined, text: `connection closed without an answer (${code})`, dropped: true };
      throw error;
    }
    const retryAfter = Number(res.headers['retry-after'] ?? '') || undefined;
    const text = res.text;
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    return { status: res.status, body: parsed, text, retryAfter };
  }
}

/** The partner API (/v1) as one partner in one environment: every call signed. */
export class PartnerApi {
  constructor(
    private readonly client: SandboxClient,
    readonly identity: PartnerIdentity,
    readonly env: Environment,
  ) {}

  quote(body: unknown, call: Call = {}) {
    return this.v1<Envelope<Quote>>('POST', '/v1/orders/quote', body, call);
  }
  createOrder(body: unknown, call: Call = {}) {
    return this.v1<Envelope<OrderDetail>>('POST', '/v1/orders', body, call);
  }
  getOrder(reference: string) {
    return this.v1<Envelope<OrderView>>('GET', `/v1/orders/${reference}?include=payout,timeline`);
  }
  listOrders(query: { page: number; per_page: number; status?: string }) {
    const status = query.status ? `&status=${query.status}` : '';
    return this.v1<Envelope<OrderSummary[]>>('GET', `/v1/orders?per_page=${query.per_page}&page=${query.page}${status}`);
  }
  fulfil(reference: string, body: unknown, call: Call = {}) {
    return this.v1<Envelope<OrderDetail>>('POST', `/v1/orders/${reference}/fulfill`, body, call);
  }
  cancel(reference: string, body: { reason?: string }, call: Call = {}) {
    return this.v1<Envelope<OrderDetail>>('PATCH', `/v1/orders/${reference}/cancel`, body, call);
  }
  accountLookup(bankCode: string, accountNumber: string) {
    return this.client.publicGet<Envelope<{ account_name: string }>>(`/v1/account-lookup?account_number=${accountNumber}&bank_code=${encodeURIComponent(bankCode)}`, this.identity, this.env);
  }
  addressFormats() {
    return this.client.addressFormats(this.identity, this.env);
  }

  private v1<T>(method: string, path: string, body?: unknown, call: Call = {}): Promise<Reply<T>> {
    return this.client.v1<T>(method, path, this.identity, this.env, body, call.retry429 ?? true);
  }
}
