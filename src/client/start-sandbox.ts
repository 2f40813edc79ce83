import type { SandboxOverrides } from '../sandbox/sandbox';
import { ConfigError } from '../sandbox/config';
import { startServer, type RunningSandbox } from '../sandbox/server';
import { UpdatePartnerBodySchema } from '../auth/partner.schemas';
import { ApiError } from '../shared/errors';
import { parseOrThrow } from '../shared/validation';
import { createControlClient } from './control-client';
import type { DeliveryView, SandboxHandle, StartSandboxOptions } from './handle.types';
import { SandboxError } from './sandbox-error';
import { createTestHelpers } from './test-helpers';

/** Deliveries fetched per control request when listing them all. */
const ALL_PER_PAGE = 500;

/**
 * Starts a sandbox in this process (CONTRACT §14): a manual clock by default, any free port,
 * silent logs. Every test file can have its own: start and close take a few milliseconds.
 * @example
 * const sandbox = await startSandbox({ seed: 7, webhookUrl: `${receiver}/webhooks` });
 * // ... quote and create an order through sandbox.url with signRequest ...
 * await sandbox.orders.payin(reference);
 * await sandbox.clock.advance('10m');
 * await sandbox.close();
 */
export async function startSandbox(options: StartSandboxOptions = {}): Promise<SandboxHandle> {
  const { clock = 'manual', clockStart, webhookUrl, logLevel = 'silent', port = 0, host = '127.0.0.1', ...rest } = options;
  const overrides: SandboxOverrides = { ...withoutUndefined(rest), port, host, logLevel, clockMode: clock };
  if (clockStart !== undefined) overrides.clockStart = instant(clockStart, 'clockStart');
  // Checked before listening, with the control API's own schema: a bad URL is its 422.
  const settings =
    webhookUrl === undefined
      ? undefined
      : asSandboxError('startSandbox', () => parseOrThrow(UpdatePartnerBodySchema, { webhook_url: webhookUrl }));
  let running: RunningSandbox;
  try {
    running = await startServer(overrides);
  } catch (error) {
    // An option no flag could give (a NaN delay, a seed of 1.5, a typo'd name): the control
    // API's 422, as for webhookUrl, naming the option.
    if (error instanceof ConfigError) {
      // The options' own names where the config's differ.
      const message = error.message.replace(/^clockMode:/, 'clock:');
      throw new SandboxError(422, 'E_VALIDATION_ERROR', message, 'startSandbox');
    }
    throw error;
  }
  const { sandbox } = running;
  if (settings) sandbox.partners.update(sandbox.demoPartner.client_id, settings);
  return createHandle(running);
}

/**
 * The handle over a running sandbox. Each function is one request to the sandbox's own control
 * API through the control client, so it validates, answers and fails exactly as the route does
 * (one source of truth).
 */
function createHandle(running: RunningSandbox): SandboxHandle {
  const { sandbox, url } = running;
  // After close() the port may be another sandbox's (a fixed port, or one the system gave again):
  // a call then changed that one. Refused, naming why, before anything is sent.
  let closed = false;
  const control = createControlClient({
    baseUrl: url,
    adminToken: sandbox.config.adminToken,
    fetch: (target, init) => {
      if (closed) {
        const route = `${init.method} ${new URL(target).pathname}`;
        return Promise.reject(
          new SandboxError(409, 'E_CONFLICT', 'This sandbox is closed (close() was called): start another with startSandbox()', route),
        );
      }
      return fetch(target, init);
    },
  });
  const demo = sandbox.demoPartner;

  return {
    url,
    partner: { clientId: demo.client_id, test: { ...demo.keys.test }, live: { ...demo.keys.live } },
    clock: {
      now: () => new Date(sandbox.clock.now()),
      get: () => control.getClock(),
      advance: (duration) => control.advanceClock({ body: typeof duration === 'number' ? { ms: duration } : { duration } }),
      advanceTo: (to) => control.advanceClock({ body: { to: isoOrAsGiven(to) } }),
    },
    orders: {
      get: (reference) => control.sandboxGetOrder({ params: { reference } }),
      payin: (reference, body = {}) => control.simulatePayin({ params: { reference }, body }),
      payout: (reference, body) => control.decidePayout({ params: { reference }, body }),
      expire: (reference) => control.expireOrder({ params: { reference } }),
      simulate: (reference, status, options = {}) => control.simulateOrder({ params: { reference }, body: { status, ...options } }),
    },
    ...createTestHelpers(sandbox),
    async deliveries(filter = {}) {
      if (filter.page !== undefined) return (await control.listDeliveries({ query: filter })).data;
      const all: DeliveryView[] = [];
      for (let page = 1; ; page++) {
        const { data, meta } = await control.listDeliveries({ query: { per_page: ALL_PER_PAGE, ...filter, page } });
        all.push(...data);
        if (meta.current_page >= meta.last_page) return all;
      }
    },
    webhooks: {
      retry: (id) => control.retryDelivery({ params: { id } }),
      send: (body) => control.sendWebhook({ body }),
    },
    requests: async (filter = {}) => (await control.listRequests({ query: filter })).data,
    faults: {
      add: (input) => control.addFault({ body: input }),
      list: () => control.listFaults(),
      remove: (id) => control.removeFault({ params: { id } }),
      clear: () => control.clearFaults(),
    },
    rates: {
      list: () => control.listRates(),
      script: (input) => control.scriptRate({ body: input }),
      remove: (pair) => control.removeRateScript({ params: { pair } }),
    },
    webhookChaos: {
      set: (input, clientId = demo.client_id) => control.setWebhookChaos({ params: { client_id: clientId }, body: input }),
      get: (clientId = demo.client_id) => control.getWebhookChaos({ params: { client_id: clientId } }),
      remove: (clientId = demo.client_id) => control.removeWebhookChaos({ params: { client_id: clientId } }),
    },
    partners: {
      create: (body = {}) => control.createPartner({ body }),
      update: (clientId, patch) => control.updatePartner({ params: { client_id: clientId }, body: patch }),
    },
    readiness: {
      open: (input) => control.openReadinessRun({ body: input }),
      report: (id) => control.getReadinessRun({ params: { id } }),
      finish: (id) => control.finishReadinessRun({ params: { id } }),
      list: (clientId) => control.listReadinessRuns({ query: clientId === undefined ? {} : { client_id: clientId } }),
    },
    state: () => control.getState(),
    restore: (doc) => control.putState({ body: doc }),
    reset: () => control.reset(),
    close: () => {
      closed = true;
      return running.close();
    },
    sandbox,
  };
}

/** An ISO instant; what cannot be one is passed as given, for the route to reject with its message. */
function isoOrAsGiven(to: Date | string | number): string {
  if (typeof to === 'string') return to;
  const date = new Date(to);
  return Number.isNaN(date.getTime()) ? String(to) : date.toISOString();
}

function instant(value: Date | string | number, field: string): number {
  const ms = value instanceof Date ? value.getTime() : typeof value === 'number' ? value : Date.parse(value);
  if (!Number.isFinite(ms))
    throw new SandboxError(422, 'E_VALIDATION_ERROR', `${field}: must be a Date, an ISO date-time or Unix ms`, 'startSandbox');
  return ms;
}

function asSandboxError<T>(route: string, fn: () => T): T {
  try {
    return fn();
  } catch (error) {
    if (error instanceof ApiError) throw new SandboxError(error.status, error.code, error.message, route);
    throw error;
  }
}

function withoutUndefined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
