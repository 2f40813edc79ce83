// The shapes the dashboard reads from and sends to the sandbox, for the UI's JSDoc types (checked
// by `tsc -p tsconfig.dashboard.json`; type-only, never served: the asset store serves *.js and
// *.css). The control API's answers and bodies come from the one typed control client
// (src/client/control-client.ts, typed by the route specs), the vocabularies from the modules
// that define them; what remains by hand is what no route spec types: the live feed's messages,
// the parts of GET /openapi.json the page reads, and the sub-shapes of an order the page names.
// Nothing here is checked at run time.

import type { ControlBody, ControlData } from '../../client/control-client';

/**
 * A body as a page form builds it: the control client's body for the route, with every string or
 * number literal widened (a select offers the vocabulary's values as plain strings; the server
 * checks them and answers 422 naming the field).
 */
export type FormBody<T> = T extends string
  ? string
  : T extends number
    ? number
    : T extends readonly (infer U)[]
      ? FormBody<U>[]
      : T extends object
        ? { [K in keyof T]: FormBody<T[K]> }
        : T;

// ---- vocabularies: the server's own, defined once ---------------------------------------------------

export type { Environment } from '../../reference/fixtures.schema';
export type { OrderType, OrderStatus } from '../../orders/model';
export type { WebhookEvent } from '../../shared/events';
export type { KybStatus } from '../../auth/partner.schemas';
export type { DeliveryStatus } from '../../webhooks/delivery.schemas';
export type { ClockMode } from '../../clock/clock.schemas';
import type { OrderType, OrderStatus } from '../../orders/model';
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
export type Clock = ControlData<'getClock'>;

/** AdvanceResult: POST /sandbox/clock/advance. */
export type AdvanceResult = ControlData<'advanceClock'>;

/** ResetResult: POST /sandbox/reset. */
export type ResetResult = ControlData<'reset'>;

/** POST /sandbox/clock body. */
export type ClockBody = ControlBody<'configureClock'>;

/** POST /sandbox/clock/advance body: one of `ms`, `to` or `duration`. */
export type AdvanceBody = ControlBody<'advanceClock'>;

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
export type Partner = ControlData<'getPartner'>;

/** KeyRotation: POST /sandbox/partners/{client_id}/keys. */
export type KeyRotation = ControlData<'rotatePartnerKeys'>;

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
export type RotateKeysBody = ControlBody<'rotatePartnerKeys'>;

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
export type SandboxOrderSummary = ControlData<'sandboxListOrders'>;

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
export type OrderDetail = ControlData<'sandboxGetOrder'>;

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
export type OrderLifecycle = ControlData<'sandboxOrderLifecycle'>;

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
export type CreateOrderBody = FormBody<ControlBody<'sandboxCreateOrder'>>;

/** POST /sandbox/orders/{reference}/payin body. */
export type PayinBody = FormBody<ControlBody<'simulatePayin'>>;

/** POST /sandbox/orders/{reference}/payout body (`percentage` with `partial` only). */
export type PayoutBody = FormBody<ControlBody<'decidePayout'>>;

/** POST /sandbox/orders/{reference}/simulate body, as the page sends it (a status from a select). */
export type SimulateBody = FormBody<ControlBody<'simulateOrder'>>;

/** POST /sandbox/orders/{reference}/simulate: the order detail with `path`, the statuses passed through. */
export type SimulatedOrder = ControlData<'simulateOrder'>;

/** POST /sandbox/orders/{reference}/cancel body. */
export type CancelBody = ControlBody<'sandboxCancelOrder'>;

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
export type Delivery = ControlData<'listDeliveries'>;

/** POST /sandbox/webhooks/send body, as the page sends it (`client_id` as in CreateOrderBody). */
export type SendEventBody = FormBody<ControlBody<'sendWebhook'>>;

// ---- inspector and faults ------------------------------------------------------------------------

/** RecordedRequest: GET /sandbox/requests (a list). */
export type RecordedRequest = ControlData<'getRequest'>;

/** Fault: GET /sandbox/faults (a list), POST /sandbox/faults, DELETE /sandbox/faults/{id}. */
export type Fault = ControlData<'removeFault'>;

/** POST /sandbox/faults body, as the page sends it (numbers as typed; the server checks them). */
export type FaultBody = FormBody<ControlBody<'addFault'>>;

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
export type LiveState = 'connecting' | 'connected' | 'reconnecting' | 'offline';

// ---- what the page is given with its HTML (src/dashboard/vocabulary.ts) ------------------------

export type { DashboardBootstrap as Bootstrap } from '../vocabulary';
import type { DashboardVocabulary } from '../vocabulary';

/** The vocabularies the page offers in its selects (meta.js), the server's own lists. */
export type Meta = DashboardVocabulary;

/** GET /sandbox/partners/{client_id}/keys: a partner's key sets in full. */
export type PartnerKeys = ControlData<'getPartnerKeys'>;

/** One page of a list and its meta (GET /sandbox/webhooks/deliveries, /sandbox/requests, /sandbox/orders). */
export type Paged<T> = Envelope<T[]> & { meta: PageMeta };

// ---- readiness (CONTRACT §21) -------------------------------------------------------------------

/** ReadinessReport: POST /sandbox/readiness/runs, GET …/runs/{id}, POST …/runs/{id}/finish; GET …/runs lists them. */
export type ReadinessReport = ControlData<'getReadinessRun'>;

/** One check of a report: its status, clause, title, evidence and fix. */
export type ReadinessCheck = ReadinessReport['checks'][number];

/** One piece of a check's evidence: a request, a delivery or an order, and why it counts. */
export type ReadinessEvidence = ReadinessCheck['evidence'][number];

/** A probe of a run (an adversarial delivery, a lost create, a 429, a quote ended early). */
export type ReadinessProbe = ReadinessReport['probes'][number];

/** POST /sandbox/readiness/runs body, as the page sends it. */
export type OpenRunBody = FormBody<ControlBody<'openReadinessRun'>>;
