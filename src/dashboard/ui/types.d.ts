// The shapes the dashboard reads from and sends to the sandbox: the control API's answers and
// bodies, the live feed's messages (GET /sandbox/events) and the parts of GET /openapi.json the
// page reads. Type-only (never served: the asset store serves *.js and *.css), checked with the
// UI by `tsc -p tsconfig.dashboard.json`.
//
// Written by hand from the server's zod schemas; each interface names its OpenAPI component
// (`.meta({ id })`, see GET /openapi.json). Issue #17 wants them taken from one typed control
// client instead: this file is the one place to swap. Nothing here is checked at run time: what
// the API answers is taken to be these shapes (api.js, where the JSON is parsed).

// ---- vocabularies ------------------------------------------------------------------------------

export type Environment = 'test' | 'live';
export type OrderType = 'onramp' | 'offramp' | 'swap';
export type OrderStatus =
  | 'initiated'
  | 'pending'
  | 'processing'
  | 'settled'
  | 'awaiting_user_payment'
  | 'awaiting_lp_payment'
  | 'routing'
  | 'executing'
  | 'partially_completed'
  | 'completed'
  | 'cancelled'
  | 'expired'
  | 'failed'
  | 'refunded'
  | 'reverted';
export type WebhookEvent =
  | 'order.created'
  | 'order.assigned'
  | 'order.asset_locked'
  | 'order.fiat_recieved'
  | 'order.asset_released'
  | 'order.asset_refunded'
  | 'order.fiat_sent'
  | 'order.settled'
  | 'order.cancelled'
  | 'order.expired';
/** KybStatus */
export type KybStatus = 'approved' | 'pending' | 'rejected';
/** DeliveryStatus */
export type DeliveryStatus = 'pending' | 'succeeded' | 'retrying' | 'failed';
export type ClockMode = 'realtime' | 'manual';
/** An ISO 8601 instant, as the sandbox renders it. */
export type DateTime = string;

// ---- envelopes -----------------------------------------------------------------------------------

/** PageMeta: the `meta` of a paged answer. */
export interface PageMeta {
  total: number;
  per_page: number;
  current_page: number;
  last_page: number;
}

/** The success envelope around `data` (`meta` on paged lists). */
export interface Envelope<D> {
  status: true;
  message: string;
  data: D;
  meta?: PageMeta;
}

// ---- clock ---------------------------------------------------------------------------------------

/** Clock: GET and POST /sandbox/clock, and the `clock` live message. */
export interface Clock {
  now: DateTime;
  now_ms: number;
  mode: ClockMode;
  speed: number;
  pending_timers: number;
  next_timer_at: DateTime | null;
  started_at: DateTime;
}

/** AdvanceResult: POST /sandbox/clock/advance. */
export interface AdvanceResult {
  clock: Clock;
  fired_count: number;
  fired: Array<{ at: DateTime; label: string }>;
}

/** ResetResult: POST /sandbox/reset. */
export interface ResetResult {
  clock: Clock;
  demo_client_id: string;
}

/** POST /sandbox/clock body. */
export interface ClockBody {
  mode?: ClockMode;
  speed?: number;
}

/** POST /sandbox/clock/advance body: one of `ms`, `to` or `duration`. */
export interface AdvanceBody {
  ms?: number;
  to?: DateTime;
  duration?: string;
}

// ---- partners ------------------------------------------------------------------------------------

/**
 * KeySet: full in the answer that makes it (create, rotation), masked elsewhere. A type, not an
 * interface, so `Object.entries` of one is `[string, string][]` (the page lists every key).
 */
export type KeySet = {
  public_key: string;
  secret_key: string;
  encryption_key: string;
};

/** Partner: GET /sandbox/partners (a list), POST /sandbox/partners, PATCH /sandbox/partners/{client_id}. */
export interface Partner {
  client_id: string;
  name: string;
  kyb_status: KybStatus;
  webhook_url: string | null;
  events: WebhookEvent[];
  ip_whitelist: string[];
  keys: { test: KeySet; live: KeySet };
  created_at: DateTime;
  updated_at: DateTime;
}

/** KeyRotation: POST /sandbox/partners/{client_id}/keys. */
export interface KeyRotation {
  client_id: string;
  environment: Environment;
  keys: KeySet;
}

/**
 * POST /sandbox/partners and PATCH /sandbox/partners/{client_id} bodies, as the page sends them:
 * values picked in a select are the strings the page offered (the vocabularies below); the
 * server checks them.
 */
export interface PartnerBody {
  name?: string;
  kyb_status?: string;
  webhook_url?: string | null;
  events?: string[];
  ip_whitelist?: string[];
}

/** POST /sandbox/partners/{client_id}/keys body. */
export interface RotateKeysBody {
  environment: Environment;
}

// ---- orders --------------------------------------------------------------------------------------

/** OrderLeg: `network` on crypto legs only. */
export interface OrderLeg {
  currency: string;
  network?: string;
  amount: number;
}

/** OrderPricing */
export interface OrderPricing {
  base_currency: string;
  quote_currency: string;
  exchange_rate: number;
}

/** OrderFee */
export interface OrderFee {
  currency: string;
  network_fee: number;
  protocol_fee: number;
  partner_fee: number;
  vat: number;
  total: number;
  fee_in_rate: boolean;
}

/** OrderSummary: also the webhook `data`. */
export interface OrderSummary {
  reference: string;
  merchant_reference: string | null;
  customer_reference: string | null;
  type: OrderType;
  from: OrderLeg;
  to: OrderLeg;
  pricing: OrderPricing;
  /** Omitted when the fee is embedded in pricing.exchange_rate (swaps). */
  fee?: OrderFee;
  metadata: Record<string, unknown> | null;
  amount_paid: number;
  amount_settled: number;
  amount_refunded: number;
  percentage_settled: number;
  status: OrderStatus;
  created_at: DateTime;
  updated_at: DateTime;
}

/** SandboxOrderSummary: GET /sandbox/orders (a paged list), an order with its owner. */
export interface SandboxOrderSummary extends OrderSummary {
  client_id: string;
  environment: Environment;
}

/** FiatRecipient */
export interface FiatRecipient {
  institution_code: string;
  account_number: string;
  account_name: string;
  memo?: string;
}

/** CryptoRecipientResult */
export interface CryptoRecipient {
  network: string;
  address: string;
  memo?: string;
}

interface FiatMove {
  currency: string;
  account_name: string;
  account_number: string;
  institution_code: string;
  amount: number;
}

interface CryptoMove {
  asset: string;
  address: string;
  network: string;
  amount: number;
}

/** FiatPayin */
export interface FiatPayin extends FiatMove {
  tx_reference: string[];
  expires_at: DateTime | null;
  paid_at: DateTime | null;
}

/** CryptoPayin */
export interface CryptoPayin extends CryptoMove {
  tx_hash: string[];
  expires_at: DateTime | null;
  paid_at: DateTime | null;
}

/** FiatPayout */
export interface FiatPayout extends FiatMove {
  percentage: number | null;
  tx_reference: string[];
  paid_at: DateTime | null;
}

/** CryptoPayout */
export interface CryptoPayout extends CryptoMove {
  percentage: number | null;
  tx_hash: string[];
  paid_at: DateTime | null;
}

/** FiatRefund */
export interface FiatRefund extends FiatMove {
  tx_reference: string | null;
  refunded_at: DateTime | null;
}

/** CryptoRefund */
export interface CryptoRefund extends CryptoMove {
  tx_hash: string | null;
  refunded_at: DateTime | null;
}

/** TimelineEntry */
export interface TimelineEntry {
  group: 'status' | 'payin' | 'payout' | 'refund' | 'webhook' | 'order';
  event: string;
  details: Record<string, unknown> | null;
  created_at: DateTime;
}

/** OrderDetail: GET /sandbox/orders/{reference} (with every include) and each order control step. */
export interface OrderDetail extends OrderSummary {
  recipient: FiatRecipient | CryptoRecipient;
  payin: FiatPayin | CryptoPayin;
  payout?: Array<FiatPayout | CryptoPayout>;
  refund?: FiatRefund | CryptoRefund;
  timeline?: TimelineEntry[];
}

/** LifecycleEdge: one arrow of an order type's lifecycle. */
export interface LifecycleEdge {
  from: OrderStatus;
  to: OrderStatus;
  /** What moves it: `pay-in`, `after processing (2 min)`, `at once`, `cancel`… */
  on: string;
  /** The guard, in words (empty when unguarded). */
  when: string;
  emits: string[];
}

/** LifecycleGraph */
export interface LifecycleGraph {
  type: OrderType;
  initial: OrderStatus;
  /** The statuses an order of this type can reach, initial first. */
  states: Array<{ id: OrderStatus; final: boolean }>;
  edges: LifecycleEdge[];
}

/** OrderActions: the control steps the order's status allows now. */
export interface OrderActions {
  payin: boolean;
  payin_unconfirmed: boolean;
  fulfil: boolean;
  cancel: boolean;
  expire: boolean;
  payout: boolean;
}

/** OrderLifecycle: GET /sandbox/orders/{reference}/lifecycle. */
export interface OrderLifecycle {
  reference: string;
  client_id: string;
  environment: Environment;
  status: OrderStatus;
  /** The statuses the order went through, in order. */
  path: OrderStatus[];
  actions: OrderActions;
  graph: LifecycleGraph;
}

/** A leg of POST /sandbox/orders as the page sends it. */
export interface OrderLegBody {
  currency: string;
  network?: string;
  amount?: number;
}

/**
 * POST /sandbox/orders body, as the page sends it. `client_id` is undefined (so absent) only when
 * the sandbox has no partner: the server then answers 422 naming it.
 */
export interface CreateOrderBody {
  client_id: string | undefined;
  environment: string;
  from: OrderLegBody;
  to: OrderLegBody;
}

/** POST /sandbox/orders/{reference}/payin body. */
export interface PayinBody {
  amount?: number;
  confirmed?: boolean;
}

/** POST /sandbox/orders/{reference}/payout body (`percentage` with `partial` only). */
export interface PayoutBody {
  outcome: string;
  percentage?: number;
}

/** POST /sandbox/orders/{reference}/cancel body. */
export interface CancelBody {
  reason?: string;
}

// ---- webhooks ------------------------------------------------------------------------------------

/** DeliveryAttempt */
export interface DeliveryAttempt {
  number: number;
  manual: boolean;
  url: string | null;
  virtual_at: DateTime;
  wall_at: DateTime;
  duration_ms: number;
  http_status: number | null;
  error: string | null;
  response_excerpt: string | null;
}

/** Delivery: GET /sandbox/webhooks/deliveries (a paged list), a retry, a send. */
export interface Delivery {
  id: string;
  client_id: string;
  environment: Environment;
  order: string | null;
  event: WebhookEvent;
  status: DeliveryStatus;
  in_flight: boolean;
  source: 'lifecycle' | 'manual';
  /** A fixed target given to send; null: the partner's webhook_url. */
  url: string | null;
  /** The body sent, parsed. */
  payload: unknown;
  raw_body: string;
  attempts: DeliveryAttempt[];
  next_attempt_at: DateTime | null;
  created_at: DateTime;
}

/** POST /sandbox/webhooks/send body, as the page sends it (`client_id` as in CreateOrderBody). */
export interface SendEventBody {
  client_id: string | undefined;
  event: string;
  order?: string;
  url?: string;
  data?: unknown;
}

// ---- inspector and faults ------------------------------------------------------------------------

/** RecordedRequest: GET /sandbox/requests (a list). */
export interface RecordedRequest {
  id: string;
  /** Wall time. */
  at: DateTime;
  virtual_at: DateTime;
  method: string;
  /** With the query string. */
  path: string;
  status: number;
  code?: string;
  message?: string;
  duration_ms: number;
  client_id?: string;
  environment?: Environment;
  auth: 'public' | 'secret' | 'none' | 'failed';
  /** The svc-sandbox-hint of a failed signature check. */
  hint?: string;
  /** The id of the injected fault. */
  fault?: string;
  /** Request headers; authorization and svc-signature masked. */
  headers: Record<string, string>;
  request_body?: string;
  response_body?: string;
}

/** Fault: GET /sandbox/faults (a list), POST /sandbox/faults, DELETE /sandbox/faults/{id}. */
export interface Fault {
  id: string;
  client_id?: string;
  environment?: Environment;
  method?: string;
  path?: string;
  latency_ms?: number | { min: number; max: number };
  error?: { status: 429 | 500 | 502 | 503 | 504; rate?: number };
  drop?: number;
  times?: number;
  phase: 'before' | 'after';
  /** Applications left (null: unlimited). */
  remaining: number | null;
  applied: number;
}

/** POST /sandbox/faults body, as the page sends it (numbers as typed; the server checks them). */
export interface FaultBody {
  phase: string;
  path?: string;
  method?: string;
  client_id?: string;
  error?: { status: number };
  latency_ms?: number;
  drop?: number;
  times?: number;
}

// ---- live feed: GET /sandbox/events --------------------------------------------------------------

/**
 * One message of the live feed, parsed: what changed (the page then refetches what it shows).
 * `reconnect` is the page's own: the stream was (re)opened, so anything may have been missed.
 */
export type LiveMessage =
  | { event: 'order'; data: { all: boolean; references: string[] } }
  | { event: 'delivery'; data: { all: boolean; ids: string[] } }
  | { event: 'request'; data: { count: number } }
  | { event: 'clock'; data: Clock }
  | { event: 'reconnect'; data: Record<string, never> };

export type LiveKind = LiveMessage['event'];

/** The state of the live connection, shown in the top bar. */
export type LiveState = 'connecting' | 'live' | 'offline';

// ---- vocabularies from GET /openapi.json ---------------------------------------------------------

/** The vocabularies the page offers in its selects (meta.js). */
export interface Meta {
  statuses: OrderStatus[];
  events: WebhookEvent[];
  types: OrderType[];
  kyb: KybStatus[];
  deliveryStatuses: DeliveryStatus[];
  environments: Environment[];
}

/** The parts of the OpenAPI document (GET /openapi.json) meta.js reads them from. */
export interface OpenApiVocabularies {
  components: {
    schemas: {
      OrderSummary: { properties: { status: { enum: OrderStatus[] } } };
      WebhookEvent: { enum: WebhookEvent[] };
      OrderType: { enum: OrderType[] };
      KybStatus: { enum: KybStatus[] };
      DeliveryStatus: { enum: DeliveryStatus[] };
      SandboxOrderSummary: { properties: { environment: { enum: Environment[] } } };
    };
  };
}
