import { signRequest, type KeySet } from '../../auth';
import { createControlClient, type ControlBody, type ControlClient, type ControlFetch } from '../../client/control-client';
import { SandboxError } from '../../client/sandbox-error';
import type { FaultInput } from '../../http/faults/fault.schemas';
import type { Environment } from '../../reference';
import type { OrderDetail, OrderSummary, Quote } from '../../orders';
import type { DeliveryView } from '../../webhooks';
import { httpRequest } from '../../webhooks/http-request';

/** One answer: the parsed envelope, its raw text. */
export interface Reply<T = unknown> {
  /** 0 when the connection was closed without an answer. */
  status: number;
  body: T;
  text: string;
  /** The connection was closed without an answer (e.g. an injected `drop` fault). */
  dropped?: boolean;
}

/** The success envelope's `data` (and `meta` on a list), or the error envelope. */
export type Envelope<T> = { status?: boolean; message?: string; code?: string; data: T; meta?: { last_page: number } };

/** A control call's outcome: its `data`, or the SandboxError the control API answered. */
export type Outcome<T> = { ok: true; data: T } | { ok: false; error: SandboxError };

/** A control call's Outcome; any other failure (no connection) still throws. */
async function outcomeOf<T>(call: Promise<T>): Promise<Outcome<T>> {
  try {
    return { ok: true, data: await call };
  } catch (error) {
    if (error instanceof SandboxError) return { ok: false, error };
    throw error;
  }
}

/** Who the runner acts as on /v1. */
export interface PartnerIdentity {
  client_id: string;
  keys: { test: KeySet; live: KeySet };
}

type PayinView = OrderDetail['payin'];
/**
 * The order as `GET /v1/orders/{ref}?include=payout,timeline` shows it. Its pay-in is typed with
 * the fields of both kinds: a step reads those of the order's `type` (onramp: fiat, offramp: crypto).
 */
export type OrderView = OrderDetail & {
  timeline: NonNullable<OrderDetail['timeline']>;
  payin: Extract<PayinView, { tx_reference: unknown }> & Extract<PayinView, { tx_hash: unknown }>;
};
export type { DeliveryView };
type AddressFormat = 'evm' | 'tron' | 'solana';
type Call = { retry429?: boolean };

/** Socket errors that mean the server closed the connection without answering. */
const DROPPED: ReadonlySet<string> = new Set(['ECONNRESET', 'EPIPE']);

/** The control client's transport: node:http with keep-alive, as /v1 calls (cheaper than fetch). */
const viaHttpRequest: ControlFetch = async (url, init) => {
  const res = await httpRequest(url, init);
  return { status: res.status, text: async () => res.text };
};

/**
 * The runner's only way to a sandbox: a typed client of its HTTP API. /v1 calls are signed as
 * a partner (`as(identity, env)`); /sandbox calls go through the control client (`control`),
 * with the admin token. Nothing here knows how the sandbox was started.
 */
export class SandboxClient {
  private readonly formats = new Map<string, Promise<Map<string, AddressFormat>>>();
  /** The control API, typed by operation. */
  readonly control: ControlClient;

  constructor(
    readonly baseUrl: string,
    adminToken?: string,
  ) {
    this.control = createControlClient({ baseUrl, adminToken, fetch: viaHttpRequest });
  }

  /** The /v1 API as one partner in one environment. */
  as(identity: PartnerIdentity, env: Environment): PartnerApi {
    return new PartnerApi(this, identity, env);
  }

  // The control calls steps make. Bodies come from scenario files as written: the route judges
  // them (a step may expect its 422), so they are passed on as the operation's body.
  createPartner(body: Record<string, unknown>) {
    return outcomeOf(this.control.createPartner({ body: body as ControlBody<'createPartner'> }));
  }
  updatePartner(clientId: string, patch: Record<string, unknown>) {
    return outcomeOf(this.control.updatePartner({ params: { client_id: clientId }, body: patch as ControlBody<'updatePartner'> }));
  }
  payin(reference: string, body: Record<string, unknown>) {
    return outcomeOf(this.control.simulatePayin({ params: { reference }, body: body as ControlBody<'simulatePayin'> }));
  }
  payout(reference: string, body: Record<string, unknown>) {
    return outcomeOf(this.control.decidePayout({ params: { reference }, body: body as ControlBody<'decidePayout'> }));
  }
  expire(reference: string) {
    return outcomeOf(this.control.expireOrder({ params: { reference } }));
  }
  simulate(reference: string, body: Record<string, unknown>) {
    return outcomeOf(this.control.simulateOrder({ params: { reference }, body: body as ControlBody<'simulateOrder'> }));
  }
  clock() {
    return outcomeOf(this.control.getClock());
  }
  /** `{duration}` or `{to}` (ISO). */
  advance(body: { duration: string } | { to: string }) {
    return outcomeOf(this.control.advanceClock({ body }));
  }
  /** The order's deliveries, newest first (as the control API lists them). */
  deliveries(reference: string) {
    return outcomeOf(this.control.listDeliveries({ query: { order: reference, per_page: 500 } }).then((page) => page.data));
  }
  addFault(input: FaultInput) {
    return outcomeOf(this.control.addFault({ body: input }));
  }
  removeFault(id: string) {
    return outcomeOf(this.control.removeFault({ params: { id } }));
  }
  scriptRate(body: Record<string, unknown>) {
    return outcomeOf(this.control.scriptRate({ body: body as ControlBody<'scriptRate'> }));
  }
  removeRateScript(pair: string) {
    return outcomeOf(this.control.removeRateScript({ params: { pair } }));
  }
  setWebhookChaos(clientId: string, body: Record<string, unknown>) {
    return outcomeOf(this.control.setWebhookChaos({ params: { client_id: clientId }, body: body as ControlBody<'setWebhookChaos'> }));
  }
  removeWebhookChaos(clientId: string) {
    return outcomeOf(this.control.removeWebhookChaos({ params: { client_id: clientId } }));
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
        return new Map(
          res.body.data.map((n) => [n.identifier, n.is_evm ? 'evm' : n.identifier.includes('tron') ? 'tron' : 'solana'] as const),
        );
      });
      this.formats.set(env, formats);
    }
    return formats;
  }

  /**
   * A signed /v1 call; a 429 is waited out (Retry-After) and tried again, as a partner client
   * should, unless `retry429` is false (a step that expects the 429).
   */
  async v1<T = unknown>(
    method: string,
    path: string,
    as: PartnerIdentity,
    env: Environment,
    body?: unknown,
    retry429 = true,
  ): Promise<Reply<T>> {
    const raw = body === undefined ? undefined : JSON.stringify(body);
    const keys = as.keys[env];
    // The body is the server's JSON: T is what the caller's route answers (the steps check it).
    const reply = await this.withRetryAfter(retry429, () => {
      // Signed per attempt: each retry carries a fresh timestamp.
      const headers = signRequest({
        method,
        path,
        body: raw,
        clientId: as.client_id,
        secretKey: keys.secret_key,
        encryptionKey: keys.encryption_key,
      });
      return this.send(method, path, headers, raw);
    });
    return reply as Reply<T>;
  }

  /** A /v1 call with the public key (no HMAC). */
  async publicGet<T = unknown>(path: string, as: PartnerIdentity, env: Environment): Promise<Reply<T>> {
    const reply = await this.withRetryAfter(true, () =>
      this.send('GET', path, { 'svc-client-id': as.client_id, authorization: `Bearer ${as.keys[env].public_key}` }),
    );
    return reply as Reply<T>;
  }

  private async withRetryAfter(retry: boolean, call: () => Promise<Reply & { retryAfter?: number }>): Promise<Reply> {
    for (let attempt = 0; ; attempt++) {
      const res = await call();
      if (!retry || res.status !== 429 || attempt >= 20) return res;
      await new Promise((r) => setTimeout(r, Math.min(5, res.retryAfter ?? 1) * 1000));
    }
  }

  private async send(
    method: string,
    path: string,
    headers: Record<string, string>,
    body?: string,
  ): Promise<Reply & { retryAfter?: number }> {
    let res: Awaited<ReturnType<typeof httpRequest>>;
    try {
      res = await httpRequest(this.baseUrl + path, { method, headers, body });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code && DROPPED.has(code))
        return { status: 0, body: undefined, text: `connection closed without an answer (${code})`, dropped: true };
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
    return this.client.publicGet<Envelope<{ account_name: string }>>(
      `/v1/account-lookup?account_number=${accountNumber}&bank_code=${encodeURIComponent(bankCode)}`,
      this.identity,
      this.env,
    );
  }
  addressFormats() {
    return this.client.addressFormats(this.identity, this.env);
  }

  private v1<T>(method: string, path: string, body?: unknown, call: Call = {}): Promise<Reply<T>> {
    return this.client.v1<T>(method, path, this.identity, this.env, body, call.retry429 ?? true);
  }
}
