/**
 * A partner's API client for the Partner Order API, written from the spec alone (it imports
 * nothing from the sandbox): what issue 40 calls the reference integration's client side.
 *
 * - Every secret-key request is signed per spec §5.2 over the exact bytes it sends, with a
 *   millisecond timestamp and the `enc_*` key; reads of reference data use the public key (§5.1).
 * - Reference data is read at run time before it is used (§4.2 rule 3, §9).
 * - An offramp recipient is looked up first and the bank's name is used (§4.2 rule 1).
 * - Orders are created from a fresh quote with a stable `merchant_reference`: a 5xx or a lost
 *   answer is retried with the same one, and a 409 reads the order that already exists (CONTRACT
 *   §12); "quote expired" gets a new quote (§2.5); a 422 is fixed, never resent as it was (§7).
 * - A 429 stops every request until `Retry-After` has passed (CONTRACT §3).
 * - GET order is sent at most once a second per order (§8).
 *
 * `Mistakes` (./mistakes) switches one of these off at a time for the readiness matrix.
 */
import { createHmac, randomUUID } from 'node:crypto';
import { NO_MISTAKES, type Mistakes } from './mistakes';

export interface Credentials {
  /** The partner reference, sent as `svc-client-id`. */
  clientId: string;
  publicKey: string;
  secretKey: string;
  encryptionKey: string;
}

export interface ClientOptions {
  /** The API's base address, e.g. `http://127.0.0.1:4010` (paths start with `/v1`). */
  baseUrl: string;
  credentials: Credentials;
  mistakes?: Mistakes;
  /** One line per notable step (retries, fixes); default: silent. */
  log?: (line: string) => void;
}

/** An answer that is not a 2xx, with the error envelope's code and message (spec §7). */
class ApiError extends Error {
  override name = 'ApiError';
  constructor(
    readonly status: number,
    readonly code: string,
    /** The envelope's message, e.g. `customer.dob: must be DD-MM-YYYY`. */
    readonly detail: string,
    readonly retryAfterSeconds?: number,
  ) {
    super(`${status} ${code}: ${detail}`);
  }
}

export interface Leg {
  currency: string;
  network?: string;
  amount?: number;
}

export interface Quote {
  quote_id: string;
  type: string;
  from: Leg;
  to: Leg;
  ttl_in_seconds: number;
}

export interface Order {
  reference: string;
  merchant_reference: string | null;
  type: string;
  status: string;
  [field: string]: unknown;
}

export interface Customer {
  reference: string;
  name: string;
  email: string;
  /** As the customer's profile holds it; a format the API refuses is fixed on its 422. */
  dob?: string;
}

export interface ReferenceData {
  fiat: Array<{ code: string; decimals: number }>;
  crypto: Array<{ symbol: string }>;
  networks: Array<{ identifier: string; is_evm: boolean; is_testnet: boolean }>;
}

/** What a create needs; the client quotes, picks the key and retries. */
export interface OrderIntent {
  /** Stable for this purchase: the partner's own id, kept through every retry. */
  merchantReference: string;
  from: Leg;
  to: Leg;
  customer: Customer;
  /** Onramp and swap: the wallet. */
  address?: string;
  /** Offramp: the bank account; `typedName` is what the customer typed in the form. */
  bankAccount?: { institutionCode: string; accountNumber: string; typedName: string };
}

/** The network list a careless integration compiles in (the `hardCodedNetworks` mistake). */
const COMPILED_IN_NETWORKS = [{ identifier: 'base-sepolia', is_evm: true, is_testnet: true }];

/** Wall ms between two GETs of one order, at least (spec §8: at most once a second). */
const POLL_INTERVAL_MS = 1_000;
const FAST_POLL_MS = 100;
/** Wall slack added to the waits the server asks for (timers may fire a millisecond early). */
const SLACK_MS = 25;
/** Attempts of one create before giving up. */
const MAX_CREATE_ATTEMPTS = 8;

/** The signed client. One per partner and environment. */
export class PartnerClient {
  private readonly mistakes: Mistakes;
  private readonly log: (line: string) => void;
  /** CONTRACT §3: no request before this wall instant (set by a 429's Retry-After). */
  private pausedUntil = 0;
  /** Wall instant each order's last GET was answered. */
  private readonly lastRead = new Map<string, number>();
  /**
   * One request at a time: a request already on its way when a 429 comes back would be "sent
   * before Retry-After" all the same (CONTRACT §3), so none is sent while another is out.
   */
  private line: Promise<unknown> = Promise.resolve();

  constructor(private readonly options: ClientOptions) {
    this.mistakes = options.mistakes ?? NO_MISTAKES;
    this.log = options.log ?? (() => {});
  }

  // ---- reference data (spec §4.2) ----

  /** Fiat, crypto and networks as the API lists them now (spec §4.2 rule 3: never assumed). */
  async referenceData(): Promise<ReferenceData> {
    const fiat = await this.read<ReferenceData['fiat']>('/v1/fiat-currencies');
    const crypto = await this.read<ReferenceData['crypto']>('/v1/crypto-currencies');
    const networks = this.mistakes.hardCodedNetworks ? COMPILED_IN_NETWORKS : await this.read<ReferenceData['networks']>('/v1/networks');
    return { fiat, crypto, networks };
  }

  /**
   * A network where every one of `symbols` is available, read from the API: the first EVM one
   * (the wallets here are EVM addresses).
   */
  async networkFor(symbols: string[], data: ReferenceData): Promise<string> {
    for (const n of data.networks.filter((x) => x.is_evm)) {
      if (this.mistakes.hardCodedNetworks) return n.identifier;
      const onIt = await this.read<Array<{ symbol: string }>>(`/v1/networks/${encodeURIComponent(n.identifier)}/crypto-currencies`);
      if (symbols.every((s) => onIt.some((c) => c.symbol === s))) return n.identifier;
    }
    throw new Error(`no network carries ${symbols.join(' and ')}`);
  }

  /** The institutions for a fiat code (CONTRACT §7 shape). */
  institutions(fiat: string): Promise<Array<{ code: string; name: string; type: string }>> {
    return this.read(`/v1/institutions?fiat=${encodeURIComponent(fiat)}`);
  }

  /** The bank's record of an account (spec §4.2 rule 1). */
  lookupAccount(bankCode: string, accountNumber: string): Promise<{ account_name: string; account_number: string; bank_code: string }> {
    return this.read(`/v1/account-lookup?account_number=${encodeURIComponent(accountNumber)}&bank_code=${encodeURIComponent(bankCode)}`);
  }

  // ---- quotes and orders (spec §4.1) ----

  /** A quote for the legs. */
  async quote(from: Leg, to: Leg): Promise<Quote> {
    const body = { from, to };
    if (this.mistakes.publicKeyOnQuote) {
      try {
        return await this.call<Quote>('POST', '/v1/orders/quote', body, 'public');
      } catch (error) {
        if (!(error instanceof ApiError && (error.status === 401 || error.status === 403))) throw error;
        this.log('quote: the public key was refused; again with the secret key');
      }
    }
    return this.call<Quote>('POST', '/v1/orders/quote', body);
  }

  /**
   * Quotes and creates an order, and gets it created exactly once whatever happens on the way
   * (see the file's comment). Resolves with the order's detail.
   */
  async placeOrder(intent: OrderIntent): Promise<Order> {
    let recipient: Record<string, string>;
    if (intent.bankAccount) {
      const { institutionCode, accountNumber, typedName } = intent.bankAccount;
      // Spec §4.2 rule 1: the name on the order is the bank's, as the lookup gives it.
      const name = this.mistakes.skipAccountLookup ? typedName : (await this.lookupAccount(institutionCode, accountNumber)).account_name;
      recipient = { institution_code: institutionCode, account_number: accountNumber, account_name: name };
    } else {
      recipient = { address: intent.address ?? '' };
    }
    let quote = await this.quote(intent.from, intent.to);
    let merchantReference = intent.merchantReference;
    let customer: Customer = { ...intent.customer };
    let resentExpired = false;
    let resent422 = false;
    const body = () => ({ quote_id: quote.quote_id, merchant_reference: merchantReference, recipient, customer });

    for (let attempt = 1; attempt <= MAX_CREATE_ATTEMPTS; attempt++) {
      try {
        return await this.call<Order>('POST', '/v1/orders', body());
      } catch (error) {
        if (!(error instanceof ApiError)) throw error;
        if (error.status >= 500 || error.status === 0) {
          // A 5xx or no answer: the order may exist. CONTRACT §12: retry with the same reference.
          this.log(`create ${merchantReference}: ${error.message}; retrying`);
          if (this.mistakes.newMerchantReferenceOnRetry) merchantReference = `${intent.merchantReference}-${randomUUID().slice(0, 8)}`;
          await sleep(100 * attempt);
          continue;
        }
        if (error.status === 409) {
          // The earlier attempt made it: read that order rather than make a second one.
          const existing = await this.findByMerchantReference(merchantReference);
          if (existing) return this.getOrder(existing);
          this.log(`create ${merchantReference}: ${error.message}; no order of ours, quoting again`);
          quote = await this.quote(intent.from, intent.to); // the conflict was the quote (already used)
          continue;
        }
        if (error.status === 400 && /^quote_id: .*expired/.test(error.detail)) {
          if (this.mistakes.retryExpiredQuote && !resentExpired) {
            resentExpired = true;
            continue;
          }
          this.log(`create ${merchantReference}: the quote expired; quoting again`);
          quote = await this.quote(intent.from, intent.to);
          continue;
        }
        if (error.status === 422) {
          if (this.mistakes.resendValidationError && !resent422) {
            resent422 = true;
            continue;
          }
          const fixed = fixCustomer(customer, error.detail);
          if (!fixed) throw error; // nothing we know how to fix: a bug to surface, not to resend
          this.log(`create ${merchantReference}: ${error.message}; fixed`);
          customer = fixed;
          continue;
        }
        throw error;
      }
    }
    throw new Error(`create ${intent.merchantReference}: gave up after ${MAX_CREATE_ATTEMPTS} attempts`);
  }

  /** GET order, at most once a second per order (spec §8): waits out the rest of the second. */
  async getOrder(reference: string): Promise<Order> {
    const interval = this.mistakes.pollFast ? FAST_POLL_MS : POLL_INTERVAL_MS + SLACK_MS;
    const last = this.lastRead.get(reference);
    if (last !== undefined) await sleep(last + interval - Date.now());
    try {
      return await this.call<Order>('GET', `/v1/orders/${encodeURIComponent(reference)}`);
    } finally {
      // Counted from the answer, which comes after the server saw the request.
      this.lastRead.set(reference, Date.now());
    }
  }

  /** Polls the order until `done` holds, at most once a second; `between` runs between polls. */
  async pollOrder(
    reference: string,
    done: (o: Order) => boolean,
    between: () => Promise<void> = async () => {},
    maxPolls = 30,
  ): Promise<Order> {
    for (let i = 0; i < maxPolls; i++) {
      const order = await this.getOrder(reference);
      if (done(order)) return order;
      await between();
    }
    throw new Error(`order ${reference}: not done after ${maxPolls} polls`);
  }

  /** The reference of our order with this merchant_reference, if one exists (CONTRACT §7 list). */
  async findByMerchantReference(merchantReference: string): Promise<string | undefined> {
    for (let page = 1; page <= 10; page++) {
      const { data, meta } = await this.callPaged<Order>(`/v1/orders?per_page=100&page=${page}`);
      const found = data.find((o) => o.merchant_reference === merchantReference);
      if (found) return found.reference;
      if (page >= meta.last_page) return undefined;
    }
    return undefined;
  }

  // ---- transport ----

  /** A reference-data read with the public key (spec §5.1). */
  private read<T>(path: string): Promise<T> {
    return this.call<T>('GET', path, undefined, 'public');
  }

  private async callPaged<T>(path: string): Promise<{ data: T[]; meta: { last_page: number } }> {
    const json = (await this.send('GET', path, undefined, 'secret')) as { data: T[]; meta: { last_page: number } };
    return json;
  }

  private async call<T>(method: string, path: string, payload?: unknown, key: 'public' | 'secret' = 'secret'): Promise<T> {
    return ((await this.send(method, path, payload, key)) as { data: T }).data;
  }

  /**
   * One request, waiting out any 429 (CONTRACT §3) and retrying reads on a 5xx or no answer.
   * Creates are retried by `placeOrder`, which knows how to do it safely.
   */
  private send(method: string, path: string, payload: unknown, key: 'public' | 'secret'): Promise<unknown> {
    const turn = this.line.then(() => this.sendNow(method, path, payload, key));
    this.line = turn.catch(() => {});
    return turn;
  }

  private async sendNow(method: string, path: string, payload: unknown, key: 'public' | 'secret'): Promise<unknown> {
    for (let attempt = 1; ; attempt++) {
      await sleep(this.pausedUntil - Date.now());
      try {
        return await this.once(method, path, payload, key);
      } catch (error) {
        if (!(error instanceof ApiError) || attempt >= 5) throw error;
        if (error.status === 429) {
          const wait = this.mistakes.ignoreRetryAfter ? 0 : (error.retryAfterSeconds ?? 1) * 1000 + SLACK_MS;
          // Every request waits, not only this one: the limit is the key's.
          this.pausedUntil = Math.max(this.pausedUntil, Date.now() + wait);
          this.log(`${method} ${path}: rate limited; waiting ${wait} ms`);
          continue;
        }
        if (method === 'GET' && (error.status >= 500 || error.status === 0)) {
          await sleep(100 * attempt);
          continue;
        }
        throw error;
      }
    }
  }

  private async once(method: string, path: string, payload: unknown, key: 'public' | 'secret'): Promise<unknown> {
    const { clientId, publicKey, secretKey, encryptionKey } = this.options.credentials;
    // The exact bytes sent, signed as they are (spec §5.2: rawBody).
    const compact = payload === undefined ? undefined : JSON.stringify(payload);
    // The mistake: the HTTP layer serialises the object again its own way (as Python's
    // json.dumps does, `{"a": 1}`), so the bytes sent are not the string signed.
    const raw = compact !== undefined && this.mistakes.signReserialisedBody ? spacedJson(payload) : compact;
    const headers: Record<string, string> = { 'svc-client-id': clientId, accept: 'application/json' };
    if (raw !== undefined) headers['content-type'] = 'application/json';
    if (key === 'public') {
      headers.authorization = `Bearer ${publicKey}`;
    } else {
      headers.authorization = `Bearer ${secretKey}`;
      const timestamp = this.mistakes.timestampInSeconds ? String(Math.floor(Date.now() / 1000)) : String(Date.now());
      const signed = compact ?? '';
      const canonical = `${clientId}|${timestamp}|${method.toUpperCase()}|${path}|${signed}`;
      const hmacKey = this.mistakes.signWithSecretKey ? secretKey : encryptionKey;
      headers['svc-timestamp'] = timestamp;
      headers['svc-signature'] = `sha256=${createHmac('sha256', hmacKey).update(canonical).digest('hex')}`;
    }
    let res: Response;
    try {
      res = await fetch(this.options.baseUrl + path, { method, headers, body: raw });
    } catch (error) {
      throw new ApiError(0, 'E_NO_ANSWER', (error as Error).message); // the connection dropped: a lost answer
    }
    const text = await res.text();
    let json: { status?: unknown; code?: string; message?: string } = {};
    try {
      json = JSON.parse(text);
    } catch {
      // not JSON: reported below with the HTTP status
    }
    if (res.ok) return json;
    const retryAfter = Number(res.headers.get('retry-after')) || undefined;
    throw new ApiError(res.status, json.code ?? 'E_UNKNOWN', json.message ?? text.slice(0, 200), retryAfter);
  }
}

/** Fixes what a 422 names in the customer (spec §2.4), or undefined when it cannot. */
function fixCustomer(customer: Customer, message: string): Customer | undefined {
  if (/customer\.dob: /.test(message) && customer.dob) {
    const iso = /^(\d{4})-(\d{2})-(\d{2})$/.exec(customer.dob);
    if (iso) return { ...customer, dob: `${iso[3]}-${iso[2]}-${iso[1]}` }; // DD-MM-YYYY
    const { dob: _dob, ...rest } = customer; // optional: better without it than refused
    return rest;
  }
  return undefined;
}

/** JSON with a space after `,` and `:`, as Python's json.dumps writes it by default. */
function spacedJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(spacedJson).join(', ')}]`;
  if (value && typeof value === 'object') {
    const fields = Object.entries(value).filter(([, v]) => v !== undefined);
    return `{${fields.map(([k, v]) => `${JSON.stringify(k)}: ${spacedJson(v)}`).join(', ')}}`;
  }
  return JSON.stringify(value);
}

function sleep(ms: number): Promise<void> {
  return ms > 0 ? new Promise((resolve) => setTimeout(resolve, ms)) : Promise.resolve();
}
