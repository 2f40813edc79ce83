import type { z } from 'zod';
import type { KeySet, CreatePartnerBodySchema, PartnerSchema, UpdatePartnerBodySchema } from '../auth/partner.schemas';
import type { ClockViewSchema } from '../clock';
import type { AdvanceResultSchema } from '../http/control/clock.routes';
import type { DeliveriesQuerySchema, SendBodySchema } from '../http/control/webhooks.routes';
import type { FaultInputSchema, FaultSchema } from '../http/faults/fault.schemas';
import type { RecordedRequest, RequestsQuerySchema } from '../http/inspector/request-log.schemas';
import type { ResetResultSchema } from '../http/control/reset.routes';
import type { Sandbox, SandboxOverrides } from '../sandbox/sandbox';
import type { ControlPayinSchema, ControlPayoutSchema, OrderDetail, OrderStatus } from '../orders';
import type { ControlBody, ControlData } from './control-client';
import type { DeliveryMatch, RequestMatch, VerifyOptions, WaitOptions } from './test-helpers';
import type { DeliveryView } from '../webhooks';
import type { StateDocument, StateSummary } from '../sandbox/state/state.schema';
import type { OpenRunBodySchema, ReadinessReport } from '../sandbox/readiness/readiness.schemas';

/**
 * What `startSandbox` takes. The in-process defaults differ from `ramp-sandbox serve` where a
 * test wants them to: a manual clock (nothing moves unless the test advances it), any free
 * port, silent logs. Every other field of the CLI config can be given too (e.g. `adminToken`,
 * `payinWindowMs`, `lifecycleDelays`, `rateLimit`).
 */
export interface StartSandboxOptions
  extends Omit<SandboxOverrides, 'clockMode' | 'clockStart' | 'port' | 'host' | 'logLevel' | 'seed' | 'speed'> {
  /** `manual` (default here): the virtual clock moves only with `clock.advance`; `realtime`: with wall time × speed. */
  clock?: 'manual' | 'realtime';
  /** Same seed, same demo keys, references and faker data (default 1). */
  seed?: number;
  /** Default 0: any free port (read it from `url`). */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** The demo partner's webhook URL (your receiver); without it no webhook is sent. */
  webhookUrl?: string;
  /** Virtual seconds per wall second in realtime mode (default 1). */
  speed?: number;
  /** Virtual start time (default: the wall clock at start). */
  clockStart?: Date | string | number;
  /** pino level (default `silent` in process). */
  logLevel?: string;
}

export type ClockView = z.output<typeof ClockViewSchema>;
export type AdvanceResult = z.output<typeof AdvanceResultSchema>;
export type ResetResult = z.output<typeof ResetResultSchema>;
export type PayinInput = z.input<typeof ControlPayinSchema>;
export type PayoutInput = z.input<typeof ControlPayoutSchema>;
export type FaultInput = z.input<typeof FaultInputSchema>;
export type Fault = z.output<typeof FaultSchema>;
export type SendWebhookInput = z.input<typeof SendBodySchema>;
export type CreatePartnerInput = z.input<typeof CreatePartnerBodySchema>;
export type UpdatePartnerInput = z.input<typeof UpdatePartnerBodySchema>;
/** `POST /sandbox/readiness/runs` body (CONTRACT §21). */
export type OpenReadinessInput = z.input<typeof OpenRunBodySchema>;
export type { ReadinessReport };
/** A partner as the control API shows it (full keys only from `partners.create`). */
export type PartnerView = z.output<typeof PartnerSchema>;

/** Query filters take numbers where the HTTP API takes digit strings. */
type Numeric<T, K extends string> = Omit<T, K> & { [P in K]?: number };
/** `GET /sandbox/webhooks/deliveries` filters; without `page`, every matching delivery. */
export type DeliveriesFilter = Numeric<z.input<typeof DeliveriesQuerySchema>, 'page' | 'per_page'>;
/** `GET /sandbox/requests` filters (`limit` or `per_page` default 50, at most 1000; `page` the page of them). */
export type RequestsFilter = Numeric<z.input<typeof RequestsQuerySchema>, 'limit' | 'per_page' | 'page'>;
export type { DeliveryView, KeySet, OrderDetail, OrderStatus, RecordedRequest };
export type { DeliveryMatch, RequestMatch, VerifyOptions, WaitOptions };
/** An order's detail after `orders.simulate`, with `path`: the statuses it passed through. */
export type SimulatedOrder = ControlData<'simulateOrder'>;

/** `POST /sandbox/rates` (CONTRACT §22): a pair and its path of `{at, rate}` points. */
export type RateScriptInput = ControlBody<'scriptRate'>;
export type RateScript = ControlData<'scriptRate'>;
export type RatesView = ControlData<'listRates'>;
/** `PUT /sandbox/partners/{client_id}/webhook-chaos` (CONTRACT §22). */
export type WebhookChaosInput = ControlBody<'setWebhookChaos'>;
export type WebhookChaosView = ControlData<'setWebhookChaos'>;

/** The demo partner: what a partner's test signs with. */
export interface PartnerCredentials {
  clientId: string;
  test: KeySet;
  live: KeySet;
}

/**
 * A sandbox running in this process (CONTRACT §14): its URL, the demo partner's credentials,
 * and the control API as functions. Each function answers what its control route answers and
 * throws a `SandboxError` (status, code, message of the error envelope) exactly when the route
 * answers an error.
 */
export interface SandboxHandle {
  /** Base URL, e.g. `http://127.0.0.1:40123` (no trailing slash). */
  readonly url: string;
  readonly partner: PartnerCredentials;
  readonly clock: {
    /** The virtual now. */
    now(): Date;
    /** `GET /sandbox/clock`. */
    get(): Promise<ClockView>;
    /** Moves the virtual clock by a duration (`90s`, `5m`, `2h`, `1d`, `1h30m`) or ms, firing every due timer (webhook attempts included) before it resolves. */
    advance(duration: string | number): Promise<AdvanceResult>;
    /** Moves the virtual clock to an instant (never back). */
    advanceTo(to: Date | string | number): Promise<AdvanceResult>;
  };
  readonly orders: {
    /** Any order's detail, with payout and timeline (`GET /sandbox/orders/{reference}`). */
    get(reference: string): Promise<OrderDetail>;
    /** Simulates the pay-in arriving: exact by default; `amount` for partial or over, `confirmed: false` for unconfirmed. */
    payin(reference: string, body?: PayinInput): Promise<OrderDetail>;
    /** Decides how the payout ends: `success`, `fail`, `revert`, `partial` (+ `percentage`). */
    payout(reference: string, body: PayoutInput): Promise<OrderDetail>;
    /** Ends the pay-in window now. */
    expire(reference: string): Promise<OrderDetail>;
    /**
     * Takes the order to `status` along its lifecycle's shortest path, sending every webhook on
     * the way, the virtual clock unmoved (CONTRACT §16); resolves once the first attempt of each
     * delivery is done, with the detail and `path` (the statuses passed through).
     */
    simulate(reference: string, status: OrderStatus, options?: { reason?: string }): Promise<SimulatedOrder>;
  };
  /** Waits for what happens in the sandbox instead of sleeping (CONTRACT §18); rejects after `timeoutMs` (default 5000, wall) listing what was seen. */
  readonly waitFor: {
    /** The first delivery matching (`order`, `event`, `status`, `client_id`) once its first attempt is done: already logged, or when it comes. */
    delivery(match?: DeliveryMatch, options?: WaitOptions): Promise<DeliveryView>;
    /** The order's detail once it is in `status` (at once if it is). */
    status(reference: string, status: OrderStatus, options?: WaitOptions): Promise<OrderDetail>;
  };
  /**
   * Checks the request inspector (CONTRACT §18): resolves with the matching `/v1` requests, oldest
   * first, or rejects with an `AssertionError` listing the recorded ones. Default: at least one.
   * @example await sandbox.verify({ method: 'POST', path: '/v1/orders', status: 200 }, { times: 1 });
   */
  verify(match?: RequestMatch, options?: VerifyOptions): Promise<RecordedRequest[]>;
  /** The webhook delivery log, newest first, each with its payload and attempts. */
  deliveries(filter?: DeliveriesFilter): Promise<DeliveryView[]>;
  readonly webhooks: {
    /** Sends a delivery again now; resolves once the attempt is done. */
    retry(deliveryId: string): Promise<DeliveryView>;
    /** Sends one signed delivery of any event on demand. */
    send(body: SendWebhookInput): Promise<DeliveryView>;
  };
  /** The recorded `/v1` requests, newest first (CONTRACT §11). */
  requests(filter?: RequestsFilter): Promise<RecordedRequest[]>;
  readonly faults: {
    /**
     * Injects a fault on matching `/v1` requests (CONTRACT §12): `latency_ms`, `error`, `drop`, and
     * (CONTRACT §22) `reset`, `truncate` and `malformed`, in a virtual-time `window`, after `skip`.
     * @example await sandbox.faults.add({ path: '/v1/orders', error: { status: 503 }, window: { from: '1m', to: '6m' } })
     */
    add(input: FaultInput): Promise<Fault>;
    list(): Promise<Fault[]>;
    remove(id: string): Promise<Fault>;
    /** Removes every fault. */
    clear(): Promise<{ removed: number }>;
  };
  /** Market rates on the virtual clock (CONTRACT §22). */
  readonly rates: {
    /** The mode (`fixed` or `walk`), its volatility and the scripted pairs. */
    list(): Promise<RatesView>;
    /** Scripts a pair's rate: each point's rate holds from its `at` (an instant, or a duration from now) until the next. */
    script(input: RateScriptInput): Promise<RateScript>;
    /** Removes a pair's script. */
    remove(pair: string): Promise<RateScript>;
  };
  /** Webhook chaos per partner (CONTRACT §22); `clientId` defaults to the demo partner. */
  readonly webhookChaos: {
    set(input: WebhookChaosInput, clientId?: string): Promise<WebhookChaosView>;
    get(clientId?: string): Promise<WebhookChaosView>;
    remove(clientId?: string): Promise<WebhookChaosView>;
  };
  readonly partners: {
    /** Another partner (full keys in the answer). */
    create(body?: CreatePartnerInput): Promise<PartnerView>;
    update(clientId: string, patch: UpdatePartnerInput): Promise<PartnerView>;
  };
  /** Readiness runs (CONTRACT §21): is the partner's integration ready to go live? */
  readonly readiness: {
    /** Opens a run for a partner: its /v1 traffic and receiver's answers count from now on (probes by default). */
    open(input: OpenReadinessInput): Promise<ReadinessReport>;
    /** The report so far (the final one once the run has ended). */
    report(id: string): Promise<ReadinessReport>;
    /** Finishes the run: the final report. */
    finish(id: string): Promise<ReadinessReport>;
    /** Runs, newest first: one partner's, or every partner's. */
    list(clientId?: string): Promise<ReadinessReport[]>;
  };
  /** The whole state as one document (CONTRACT §13): keep it, and `restore` it later or in another sandbox of the same seed. */
  state(): Promise<StateDocument>;
  /** Replaces the whole state with a document from `state()`; a `SandboxError` (422) and nothing changed when it does not validate. */
  restore(doc: StateDocument): Promise<StateSummary>;
  /** Drops orders, quotes, deliveries, requests, faults and partners but the demo partner (its settings kept); clock back to its start. */
  reset(): Promise<ResetResult>;
  /** Stops the listener (cutting open connections) and the clock; the port is free when it resolves. */
  close(): Promise<void>;
  /** The sandbox's internals, for what the control API does not cover (advanced; not a stable API). */
  readonly sandbox: Sandbox;
}
