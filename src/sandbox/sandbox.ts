// Over 300 lines on purpose: the composition root wires every module (config, stores, routes,
// state) and holds no behaviour of its own; `server.ts` listens and stops gracefully.
import type Koa from 'koa';
import pino, { type Logger } from 'pino';
import { createPartnerRegistry, createRateLimiter, KEY_PREFIX, type Partner, type PartnerRegistry, type RateLimiter } from '../auth';
import { systemWallClock, VirtualClock, type FiredTimer, type WallClock, type WorkSlicing } from '../clock';
import { checkConfig, DEFAULT_CONFIG, type SandboxConfig } from './config';
import { controlGuards } from '../http/edge/admin';
import { registerClockRoutes } from '../http/control/clock.routes';
import { registerPartnerRoutes } from '../http/control/partners.routes';
import { registerResetRoute } from '../http/control/reset.routes';
import { createApp } from '../http/edge/app';
import { registerHealthRoutes } from '../http/routes/health.routes';
import { registerReferenceRoutes } from '../http/routes/reference.routes';
import { registerOrderRoutes } from '../http/routes/orders.routes';
import { registerOrderControlRoutes } from '../http/control/orders.routes';
import { LiveFeed, registerDashboard } from '../http/routes/dashboard.routes';
import { createOrderService, type OrderEvents, type OrderService } from '../orders';
import { createDispatcher, routeOrderEvents, webhookPayloadSchema, type DeliveryEvents, type Dispatcher } from '../webhooks';
import { registerWebhookRoutes } from '../http/control/webhooks.routes';
import { registerTailRoute } from '../http/control/tail.routes';
import { TailFeed } from '../http/inspector/tail-feed';
import type { CutInfo } from '../shared/sse-stream';
import { registerListenRoutes } from '../http/control/listen.routes';
import { registerStateRoutes } from './state/state.routes';
import { writeStateFile } from './state/file';
import { exportState, exportStateChunks, exportStateStream, restoreState, summarise, type StateParts } from './state/snapshot';
import { StateDocumentSchema, type StateDocument } from './state/state.schema';
import { parseOrThrow } from '../shared/validation';
import { registerFaultRoutes, registerRequestRoutes } from '../http/control/inspector.routes';
import { registerRateRoutes } from '../http/control/rates.routes';
import { registerWebhookChaosRoutes } from '../http/control/webhook-chaos.routes';
import { registerExportRoutes } from '../http/control/exports.routes';
import { FaultStore } from '../http/faults/fault.store';
import { RequestLog } from '../http/inspector/request-log';
import { recordRequests, type RequestEvents } from '../http/inspector/recorder';
import { createReferenceStore, loadFixturesOnce, type ReferenceStore } from '../reference';
import { WEBHOOK_EVENTS, WEBHOOK_SUMMARIES } from '../shared/events';
import { requireAuth } from '../http/edge/authenticate';
import { createBus, type Bus } from '../shared/bus';
import { ChangeGate } from '../shared/change-gate';
import { createIds, type Ids } from '../shared/ids';
import { createSimulation } from './simulation';
import { PACKAGE_VERSION } from '../shared/package-root';
import { createReadiness, registerReadinessRoutes, type Readiness } from './readiness';

/** The package's version (package.json), read once in shared/package-root.ts. */
export const VERSION: string = PACKAGE_VERSION;

/**
 * What the sandbox's modules publish on its one bus: orders their webhook events and changes,
 * the dispatcher its deliveries, the inspector each /v1 request; webhooks and the dashboard's
 * live feed subscribe.
 */
export type SandboxEvents = OrderEvents & DeliveryEvents & RequestEvents;

/** Everything one running sandbox holds; tests build one with `createSandbox`. */
export interface Sandbox {
  config: SandboxConfig;
  app: Koa;
  clock: VirtualClock;
  wall: WallClock;
  ids: Ids;
  reference: ReferenceStore;
  partners: PartnerRegistry;
  rateLimiter: RateLimiter;
  logger: Logger;
  demoPartner: Partner;
  orders: OrderService;
  dispatcher: Dispatcher;
  /** Where the modules publish what happened (see SandboxEvents). */
  bus: Bus<SandboxEvents>;
  /** The request inspector's log (CONTRACT §11). */
  requests: RequestLog;
  /** Injected faults (CONTRACT §12). */
  faults: FaultStore;
  /** Readiness runs (CONTRACT §21). */
  readiness: Readiness;
  /** Where requests that may change the state wait while the state document streams (CONTRACT §13). */
  changes: ChangeGate;
  /** CONTRACT §4 reset: drops everything but the demo partner; clock back to its start. */
  reset(): void;
  /**
   * Advances the virtual clock, letting webhook attempts (those already under way, and those
   * that fire on the way) finish at their own virtual time, so the retries they schedule
   * inside the span fire too.
   */
  advance(ms: number): Promise<FiredTimer[]>;
  advanceTo(target: number): Promise<FiredTimer[]>;
  /** The whole state as one document (CONTRACT §13). */
  exportState(): StateDocument;
  /** Replaces the whole state with a document (422 ApiError and nothing changed when invalid). */
  restoreState(doc: unknown): void;
  /** The whole state as JSON in chunks, never one string (CONTRACT §13: no size ceiling). */
  exportStateChunks(): string[];
  /**
   * Writes the state to `config.statePath` atomically; the bytes written (0 when none is set).
   * Rejects with a StateSaveError naming the cause.
   */
  saveState(): Promise<number>;
  /**
   * Ends the open event streams (the dashboard's live feed, `ramp-sandbox tail`, listeners) and
   * refuses new ones: a graceful stop does this as soon as the server stops accepting, as an open
   * stream is a request that would hold it for its whole grace.
   */
  closeStreams(): void;
  /** Stops the clock's host timer and ends the event streams. */
  close(): void;
}

export interface SandboxOverrides extends Partial<SandboxConfig> {
  /** A state to start from: `--state FILE` as `startServer` has read it (CONTRACT §13). */
  initialState?: StateDocument;
  /** How long reading `initialState` from its file took (ms): the `state loaded` line says the whole load. */
  stateReadMs?: number;
  wall?: WallClock;
  logger?: Logger;
  /** How a streamed state document shares the event loop (tests: a slice of 0 ms, a yield they hold). */
  stateSlicing?: Partial<WorkSlicing>;
}

/** The config the overrides make, checked (ConfigError naming the first value no flag could give). */
export function configOf(overrides: SandboxOverrides): SandboxConfig {
  const { wall, logger, initialState, stateReadMs, stateSlicing, ...rest } = overrides;
  return checkConfig({ ...DEFAULT_CONFIG, ...rest });
}

/** Wires a sandbox from config: the composition root. */
export function createSandbox(overrides: SandboxOverrides = {}): Sandbox {
  const { wall = systemWallClock, logger: givenLogger, initialState: saved, stateReadMs = 0, stateSlicing } = overrides;
  const config = configOf(overrides);
  const logger = givenLogger ?? pino({ level: config.logLevel });
  // CONTRACT §13: a saved state brings its seed, so the demo partner and later ids match it.
  if (saved && saved.seed !== config.seed) {
    logger.info({ seed: saved.seed, given: config.seed }, 'using the seed the state file was saved with');
    config.seed = saved.seed;
  }
  const clock = new VirtualClock({
    start: config.clockStart ?? wall.now(),
    mode: config.clockMode,
    speed: config.speed,
    wall,
    onError: (err, label) => logger.error({ err, timer: label }, 'timer failed'),
  });
  const fixtures = loadFixturesOnce(config.fixturesDir);
  const reference = createReferenceStore(fixtures, {
    seed: config.seed,
    clock,
    market: { rates: config.rates, rateVolatility: config.rateVolatility },
  });

  // The demo partner has its own id stream, so its keys depend on the seed alone.
  const demoIds = createIds(config.seed);
  const runSeed = (config.seed * 7919 + 104_729) >>> 0;
  const ids = createIds(runSeed);
  const partners = createPartnerRegistry({ ids, clock });
  const demoKeys = (env: 'test' | 'live') => ({
    public_key: demoIds.key(`${KEY_PREFIX.public}_${env}_`),
    secret_key: demoIds.key(`${KEY_PREFIX.secret}_${env}_`),
    encryption_key: demoIds.key(`${KEY_PREFIX.encryption}_${env}_`),
  });
  const demoPartner = partners.create({
    client_id: demoIds.id('ptr_demo_'),
    name: 'Demo Partner',
    kyb_status: 'approved',
    keys: { test: demoKeys('test'), live: demoKeys('live') },
  });
  const rateLimiter = createRateLimiter(config.rateLimit, wall);
  const bus = createBus<SandboxEvents>();
  const orders = createOrderService({
    clock,
    reference,
    ids,
    bus,
    quoteTtlMs: config.quoteTtlMs,
    timings: { ...config.lifecycleDelays, payinWindow: config.payinWindowMs },
    maxOrders: config.maxOrders,
    onEvicted: (evicted) => {
      const deliveries = dispatcher.forgetOrders(new Set([...evicted].map((o) => o.reference)));
      logger.info(
        {
          evicted: evicted.size,
          deliveries,
          evictedTotal: orders.evictedCount,
          kept: orders.store.orders.size,
          maxOrders: config.maxOrders,
        },
        'evicted the oldest finished orders (--max-orders)',
      );
    },
    // Once per process (again after a reset or restore): near the limit the store stays there.
    onNearlyFull: (info) => {
      logger.warn(
        info,
        'the order store is over 90% of --max-orders: at the limit, creates are refused (409) unless finished orders can be evicted',
      );
    },
  });
  const startedAt = wall.now();
  const dispatcher = createDispatcher({
    clock,
    wall,
    ids,
    partners,
    bus,
    options: { timeoutMs: config.webhookTimeoutMs, retryScheduleMs: config.webhookRetryScheduleMs },
    userAgent: `ramp-sandbox/${VERSION}`,
    seed: config.seed,
    onError: (err) => logger.error({ err }, 'webhook attempt failed unexpectedly'),
  });
  routeOrderEvents({ bus, orders, partners, dispatcher });

  const requests = new RequestLog(config.inspectLimit);
  const faults = new FaultStore(config.seed, () => clock.now());
  // An event stream whose reader falls too far behind is cut: one line says which and whose.
  const onCut = (info: CutInfo) => logger.warn(info, 'event stream cut: its reader left too much unread (it may reconnect)');
  const live = new LiveFeed({ clock, bus, onCut });
  const tail = new TailFeed({ bus, onCut });

  // CONTRACT §13: while the state streams, requests that may change it wait here.
  const changes = new ChangeGate();
  const stateParts: StateParts = {
    seed: config.seed,
    version: VERSION,
    clock,
    ids,
    partners,
    orders,
    dispatcher,
    faults,
    market: reference.market,
    changes,
  };
  const streamState = (onTaken?: () => void) => exportStateStream(stateParts, { slicing: stateSlicing, ...(onTaken ? { onTaken } : {}) });
  if (saved) {
    const restoring = performance.now();
    restoreState(stateParts, saved);
    const ms = Math.round(stateReadMs + performance.now() - restoring);
    logger.info({ path: config.statePath, ...summarise(stateParts), ms }, 'state loaded');
  }

  const readiness = createReadiness({
    bus,
    wall,
    partners,
    orders,
    dispatcher,
    faults,
    seed: config.seed,
    onError: (err) => logger.error({ err }, 'readiness run: a fact could not be counted'),
  });

  const simulation = createSimulation({
    clock,
    dispatcher,
    orders,
    partners,
    rateLimiter,
    faults,
    requests,
    ids,
    runSeed,
    demoClientId: demoPartner.client_id,
    market: reference.market,
  });

  // CONTRACT §21: a reset ends every readiness run (their probes' faults go with the reset).
  const reset = () => {
    readiness.reset();
    simulation.reset();
  };

  const authDeps = {
    partners,
    wall,
    rateLimiter,
    authOptions: { skewMs: config.skewMs },
    faults,
  };
  const secretOrRead = (access: 'read' | 'secret', cost: number) => requireAuth(authDeps, access, cost);
  const control = controlGuards(config.adminToken, { host: config.host, allowedHosts: config.allowedHosts });
  const app = createApp({
    logger,
    changes,
    observe: recordRequests(requests, clock, wall, bus, config.adminToken),
    adminToken: config.adminToken,
    version: VERSION,
    webhooks: WEBHOOK_EVENTS.map((event) => ({ event, summary: WEBHOOK_SUMMARIES[event], payload: webhookPayloadSchema(event) })),
    // Each route's own auth kind is what guards it (CONTRACT §4: the control API, §15: the page).
    guard: (auth, cost) =>
      auth === 'read' || auth === 'secret'
        ? secretOrRead(auth, cost)
        : auth === 'admin'
          ? control.admin
          : auth === 'page'
            ? control.page
            : undefined,
    register: (api) => {
      registerHealthRoutes(api, {
        clock,
        version: VERSION,
        startedAt,
        uptimeMs: () => wall.now() - startedAt,
        evictedOrders: () => orders.evictedCount,
      });
      registerReferenceRoutes(api, { reference });
      registerOrderRoutes(api, { orders });
      registerPartnerRoutes(api, { partners });
      registerClockRoutes(api, { clock, advanceTo: simulation.advanceTo });
      registerOrderControlRoutes(api, { orders, partners, reference, deliveriesIdle: simulation.deliveriesIdle });
      registerWebhookRoutes(api, { dispatcher, partners, orders, demoClientId: demoPartner.client_id });
      registerListenRoutes(api, { dispatcher, partners, timeoutMs: config.webhookTimeoutMs, onCut });
      registerRequestRoutes(api, { requests });
      registerFaultRoutes(api, { faults });
      registerRateRoutes(api, { market: reference.market, clock });
      registerWebhookChaosRoutes(api, { dispatcher, partners });
      registerReadinessRoutes(api, { readiness });
      registerExportRoutes(api, { requests, partners, reference, demoClientId: demoPartner.client_id, version: VERSION });
      registerDashboard(api, { live, demoClientId: () => demoPartner.client_id, timings: orders.timings });
      registerTailRoute(api, { tail });
      registerStateRoutes(api, {
        exportChunks: () => streamState(),
        restoreState: (doc) => {
          restoreState(stateParts, doc);
          readiness.reset('restore');
        },
        summary: () => summarise(stateParts),
        statePath: config.statePath,
        async save(path) {
          let summary = summarise(stateParts);
          const bytes = await writeStateFile(
            path,
            streamState(() => (summary = summarise(stateParts))),
          );
          return { bytes, summary };
        },
      });
      registerResetRoute(api, { reset, clock, demoClientId: demoPartner.client_id });
    },
  });

  const sandbox: Sandbox = {
    config,
    app,
    clock,
    wall,
    ids,
    reference,
    partners,
    rateLimiter,
    logger,
    /** The registry's record (a restored state may carry rotated keys). */
    get demoPartner() {
      return partners.get(demoPartner.client_id) ?? demoPartner;
    },
    orders,
    dispatcher,
    bus,
    requests,
    faults,
    readiness,
    changes,
    reset,
    advance: simulation.advance,
    advanceTo: simulation.advanceTo,
    exportState: () => exportState(stateParts),
    restoreState(doc) {
      // The restore takes over what it is handed: a caller's own object is copied first.
      restoreState(stateParts, parseOrThrow(StateDocumentSchema, structuredClone(doc)));
      readiness.reset('restore');
    },
    exportStateChunks: () => exportStateChunks(stateParts),
    async saveState() {
      return config.statePath ? writeStateFile(config.statePath, streamState()) : 0;
    },
    closeStreams() {
      live.close();
      tail.close();
      dispatcher.closeListeners();
    },
    close() {
      clock.stop();
      sandbox.closeStreams();
    },
  };
  return sandbox;
}
