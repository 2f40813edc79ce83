import { AssertionError } from 'node:assert';
import { globMatches } from '../http/faults/glob';
import type { RecordedRequest } from '../http/inspector/request-log.schemas';
import type { OrderDetail, OrderStatus } from '../orders';
import type { Sandbox } from '../sandbox/sandbox';
import { deliveryView, type Delivery, type DeliveryView } from '../webhooks';

/** CONTRACT §18: what `waitFor.delivery` matches; every field given must match. */
export interface DeliveryMatch {
  order?: string;
  event?: string;
  /** `succeeded`, `retrying`, `failed` (or `pending`) as the delivery log says after the attempt. */
  status?: DeliveryView['status'];
  client_id?: string;
}

/** CONTRACT §18: what `verify` matches among the recorded `/v1` requests. */
export interface RequestMatch {
  method?: string;
  /** The path without its query, exactly, or a glob (`/v1/orders/*`, `**`); with a `?`, the path with its query. */
  path?: string;
  status?: number;
  client_id?: string;
}

export interface WaitOptions {
  /** Wall ms before the wait rejects (default 5000). */
  timeoutMs?: number;
}

export interface VerifyOptions {
  /** Exactly this many matching requests. */
  times?: number;
  /** At least this many (the default, 1, when neither is given). */
  atLeast?: number;
}

/** How many seen deliveries or requests a failure message lists. */
const LISTED = 20;
const DEFAULT_TIMEOUT_MS = 5000;

/**
 * `waitFor.delivery`, `waitFor.status` and `verify` on the in-process handle (CONTRACT §18): they
 * read the sandbox in this process (its bus and logs), so they wait for what happens instead of
 * sleeping and polling, and a failure says what was seen.
 */
export function createTestHelpers(sandbox: Sandbox) {
  const { bus, dispatcher, orders, requests } = sandbox;

  const matchesDelivery = (d: Delivery, m: DeliveryMatch, view: () => DeliveryView): boolean => {
    if (m.order !== undefined && d.order !== m.order) return false;
    if (m.event !== undefined && d.event !== m.event) return false;
    if (m.client_id !== undefined && d.client_id !== m.client_id) return false;
    const v = view();
    // Its first attempt done: logged with its answer, not merely under way.
    if (v.attempts.length === 0 || (v.attempts.length === 1 && v.in_flight)) return false;
    return m.status === undefined || v.status === m.status;
  };

  function delivery(match: DeliveryMatch = {}, options: WaitOptions = {}): Promise<DeliveryView> {
    return new Promise((resolve, reject) => {
      const timeoutMs = checkTimeout(options.timeoutMs, 'waitFor.delivery');
      const test = (d: Delivery): DeliveryView | undefined => {
        let view: DeliveryView | undefined;
        const get = () => (view ??= deliveryView(d));
        return matchesDelivery(d, match, get) ? get() : undefined;
      };
      for (const d of dispatcher.list()) {
        const found = test(d);
        if (found) return resolve(found);
      }
      const off = bus.on('delivery.changed', (d) => {
        if (d === null) return;
        const found = test(d);
        if (!found) return;
        done();
        resolve(found);
      });
      const timer = setTimeout(() => {
        done();
        reject(
          new Error(
            `waitFor.delivery(${JSON.stringify(match)}): no matching delivery with its first attempt done after ${timeoutMs} ms. ${seenDeliveries(dispatcher.list())}`,
          ),
        );
      }, timeoutMs);
      const done = () => {
        off();
        clearTimeout(timer);
      };
    });
  }

  function status(reference: string, wanted: OrderStatus, options: WaitOptions = {}): Promise<OrderDetail> {
    return new Promise((resolve, reject) => {
      const timeoutMs = checkTimeout(options.timeoutMs, 'waitFor.status');
      const current = () => orders.store.orders.get(reference);
      if (current()?.status === wanted) return resolve(orders.detail(reference));
      const off = bus.on('order.changed', (ref) => {
        if ((ref !== null && ref !== reference) || current()?.status !== wanted) return;
        done();
        resolve(orders.detail(reference));
      });
      const timer = setTimeout(() => {
        done();
        const order = current();
        const seen = order ? order.timeline.filter((e) => e.group === 'status').map((e) => e.event) : [];
        reject(
          new Error(
            order
              ? `waitFor.status(${reference}, ${wanted}): the order is ${order.status} after ${timeoutMs} ms; statuses seen: ${seen.join(' → ')}. ` +
                  `On a manual clock nothing moves by itself: advance the clock (sandbox.clock.advance) or take the order there (sandbox.orders.simulate).`
              : `waitFor.status(${reference}, ${wanted}): no order ${reference} after ${timeoutMs} ms (${orders.store.orders.size} orders in the sandbox)`,
          ),
        );
      }, timeoutMs);
      const done = () => {
        off();
        clearTimeout(timer);
      };
    });
  }

  /** Checks the request inspector now; resolves with the matching requests, oldest first. */
  async function verify(match: RequestMatch = {}, options: VerifyOptions = {}): Promise<RecordedRequest[]> {
    const { times, atLeast } = options;
    for (const [name, n] of [
      ['times', times],
      ['atLeast', atLeast],
    ] as const) {
      if (n !== undefined && !(Number.isInteger(n) && n >= 0)) throw new TypeError(`verify: ${name} must be a non-negative integer`);
    }
    // Both at once is a contradiction or a repetition; its failure read "Values have same
    // structure but are not reference-equal" (node:assert drops the message when actual equals expected).
    if (times !== undefined && atLeast !== undefined) throw new TypeError('verify: give times or atLeast, not both');
    const all = requests.list({ limit: requests.size }).reverse();
    const matching = all.filter((r) => matchesRequest(r, match));
    if (times !== undefined ? matching.length === times : matching.length >= (atLeast ?? 1)) return matching;
    const expected = times !== undefined ? `exactly ${times}` : `at least ${atLeast ?? 1}`;
    throw new AssertionError({
      message:
        `verify(${JSON.stringify(match)}): expected ${expected} matching request${(times ?? atLeast ?? 1) === 1 ? '' : 's'}, found ${matching.length}. ` +
        `Recorded requests (${all.length}${all.length > LISTED ? `, the last ${LISTED}` : ''}):` +
        (all.length === 0 ? ' none' : `\n${all.slice(-LISTED).map(requestLine).join('\n')}`),
      actual: matching.length,
      expected: times ?? atLeast ?? 1,
      operator: times !== undefined ? 'strictEqual' : '>=',
    });
  }

  return { waitFor: { delivery, status }, verify };
}

export type TestHelpers = ReturnType<typeof createTestHelpers>;

function matchesRequest(r: RecordedRequest, m: RequestMatch): boolean {
  if (m.method !== undefined && r.method !== m.method.toUpperCase()) return false;
  if (m.status !== undefined && r.status !== m.status) return false;
  if (m.client_id !== undefined && r.client_id !== m.client_id) return false;
  if (m.path !== undefined) {
    const path = m.path.includes('?') ? r.path : r.path.split('?', 1)[0]!;
    if (m.path.includes('*') ? !globMatches(m.path, path) : path !== m.path) return false;
  }
  return true;
}

function requestLine(r: RecordedRequest): string {
  return `  ${r.method} ${r.path} → ${r.status}${r.code ? ` ${r.code}` : ''}${r.client_id ? ` (${r.client_id})` : ''}`;
}

function seenDeliveries(all: readonly Delivery[]): string {
  if (all.length === 0) return 'No deliveries in the log (has the partner a webhook_url?).';
  const lines = all.slice(-LISTED).map((d) => {
    const v = deliveryView(d);
    return `  ${v.id} ${v.event} order=${v.order ?? '-'} ${v.status} (${v.attempts.length} attempt${v.attempts.length === 1 ? '' : 's'}${v.in_flight ? ', one in flight' : ''})`;
  });
  return `Deliveries seen (${all.length}${all.length > LISTED ? `, the last ${LISTED}` : ''}):\n${lines.join('\n')}`;
}

function checkTimeout(ms: number | undefined, name: string): number {
  if (ms === undefined) return DEFAULT_TIMEOUT_MS;
  if (!Number.isFinite(ms) || ms < 0 || ms > 2_147_483_647)
    throw new TypeError(`${name}: timeoutMs must be a number of ms from 0 to 2147483647`);
  return ms;
}
