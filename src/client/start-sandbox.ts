import { startServer, type RunningSandbox, type SandboxOverrides } from '../sandbox/sandbox';
import type { StateDocument, StateSummary } from '../sandbox/state/state.schema';
import { UpdatePartnerBodySchema } from '../auth/partner.schemas';
import { ApiError, type ErrorCode } from '../shared/errors';
import type { PageMeta } from '../shared/envelope';
import { parseOrThrow } from '../shared/validation';
import type {
  AdvanceResult,
  ClockView,
  DeliveryView,
  Fault,
  OrderDetail,
  PartnerView,
  RecordedRequest,
  ResetResult,
  SandboxHandle,
  StartSandboxOptions,
} from './handle.types';
import { SandboxError } from './sandbox-error';

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
  const settings = webhookUrl === undefined ? undefined : asSandboxError('startSandbox', () => parseOrThrow(UpdatePartnerBodySchema, { webhook_url: webhookUrl }));
  const running = await startServer(overrides);
  const { sandbox } = running;
  if (settings) sandbox.partners.update(sandbox.demoPartner.client_id, settings);
  return createHandle(running);
}

/**
 * The handle over a running sandbox. Each function is one request to the sandbox's own control
 * API, so it validates, answers and fails exactly as the route does (one source of truth).
 */
function createHandle(running: RunningSandbox): SandboxHandle {
  const { sandbox, url } = running;
  const token = sandbox.config.adminToken;
  const demo = sandbox.demoPartner;
  const control = async <T>(method: string, path: string, body?: unknown, query?: object): Promise<{ data: T; meta?: PageMeta }> => {
    const search = query ? queryString(query) : '';
    const headers: Record<string, string> = { accept: 'application/json' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (token) headers.authorization = `Bearer ${token}`;
    const res = await fetch(`${url}${path}${search}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    const envelope = parseEnvelope(text);
    if (res.ok && envelope?.status === true) return envelope as { data: T; meta?: PageMeta };
    const route = `${method} ${path}`;
    if (envelope && typeof envelope.code === 'string') throw new SandboxError(res.status, envelope.code as ErrorCode, String(envelope.message), route);
    throw new Error(`${route}: unexpected answer ${res.status} ${text.slice(0, 200)}`);
  };
  const data = async <T>(method: string, path: string, body?: unknown, query?: object) => (await control<T>(method, path, body, query)).data;
  const order = (reference: string, action = '') => `/sandbox/orders/${encodeURIComponent(reference)}${action}`;

  return {
    url,
    partner: { clientId: demo.client_id, test: { ...demo.keys.test }, live: { ...demo.keys.live } },
    clock: {
      now: () => new Date(sandbox.clock.now()),
      get: () => data<ClockView>('GET', '/sandbox/clock'),
      advance: (duration) => data<AdvanceResult>('POST', '/sandbox/clock/advance', typeof duration === 'number' ? { ms: duration } : { duration }),
      advanceTo: (to) => data<AdvanceResult>('POST', '/sandbox/clock/advance', { to: isoOrAsGiven(to) }),
    },
    orders: {
      get: (reference) => data<OrderDetail>('GET', order(reference)),
      payin: (reference, body = {}) => data<OrderDetail>('POST', order(reference, '/payin'), body),
      payout: (reference, body) => data<OrderDetail>('POST', order(reference, '/payout'), body),
      expire: (reference) => data<OrderDetail>('POST', order(reference, '/expire'), {}),
    },
    async deliveries(filter = {}) {
      const path = '/sandbox/webhooks/deliveries';
      if (filter.page !== undefined) return data<DeliveryView[]>('GET', path, undefined, filter);
      const all: DeliveryView[] = [];
      for (let page = 1; ; page++) {
        const { data: items, meta } = await control<DeliveryView[]>('GET', path, undefined, { per_page: ALL_PER_PAGE, ...filter, page });
        all.push(...items);
        if (!meta || meta.current_page >= meta.last_page) return all;
      }
    },
    webhooks: {
      retry: (id) => data<DeliveryView>('POST', `/sandbox/webhooks/deliveries/${encodeURIComponent(id)}/retry`, {}),
      send: (body) => data<DeliveryView>('POST', '/sandbox/webhooks/send', body),
    },
    requests: (filter = {}) => data<RecordedRequest[]>('GET', '/sandbox/requests', undefined, filter),
    faults: {
      add: (input) => data<Fault>('POST', '/sandbox/faults', input),
      list: () => data<Fault[]>('GET', '/sandbox/faults'),
      remove: (id) => data<Fault>('DELETE', `/sandbox/faults/${encodeURIComponent(id)}`),
      clear: () => data<{ removed: number }>('DELETE', '/sandbox/faults'),
    },
    partners: {
      create: (body = {}) => data<PartnerView>('POST', '/sandbox/partners', body),
      update: (clientId, patch) => data<PartnerView>('PATCH', `/sandbox/partners/${encodeURIComponent(clientId)}`, patch),
    },
    state: () => data<StateDocument>('GET', '/sandbox/state'),
    restore: (doc) => data<StateSummary>('PUT', '/sandbox/state', doc),
    reset: () => data<ResetResult>('POST', '/sandbox/reset', {}),
    close: () => running.close(),
    sandbox,
  };
}

function parseEnvelope(text: string): Record<string, unknown> | undefined {
  try {
    const parsed: unknown = JSON.parse(text);
    return parsed !== null && typeof parsed === 'object' ? (parsed as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** `?a=1&b=x` of the defined fields; numbers and booleans as the HTTP API's strings. */
function queryString(query: object): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) if (value !== undefined) params.set(key, String(value));
  const s = params.toString();
  return s ? `?${s}` : '';
}

/** An ISO instant; what cannot be one is passed as given, for the route to reject with its message. */
function isoOrAsGiven(to: Date | string | number): string {
  if (typeof to === 'string') return to;
  const date = new Date(to);
  return Number.isNaN(date.getTime()) ? String(to) : date.toISOString();
}

function instant(value: Date | string | number, field: string): number {
  const ms = value instanceof Date ? value.getTime() : typeof value === 'number' ? value : Date.parse(value);
  if (!Number.isFinite(ms)) throw new SandboxError(422, 'E_VALIDATION_ERROR', `${field}: must be a Date, an ISO date-time or Unix ms`, 'startSandbox');
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
