import { conflict } from '../shared/errors';
import { isFinal } from './model';
import type { Order } from './model';
import type { OrderStore } from './store';

/** What the once-only warning says about the store (CONTRACT §9). */
export interface NearlyFull {
  /** Orders held when the store passed 90% of the limit. */
  orders: number;
  maxOrders: number;
  /** Of them, orders not in a final status (never evicted). */
  unfinished: number;
}

export interface EvictionDeps {
  store: OrderStore;
  /** An order's pending timers (the lifecycle's): an order with one is never evicted. */
  pendingTimers: (order: Order) => readonly unknown[];
  /** At most this many orders are kept (CONTRACT §9, `--max-orders`). */
  maxOrders: number;
  /** Called once per batch with the orders just dropped, to forget what hangs off them. */
  onEvicted: (orders: ReadonlySet<Order>) => void;
  /** Called once when the store passes 90% of `maxOrders` (see `afterAdd`). */
  onNearlyFull?: (info: NearlyFull) => void;
}

/** The store is over this fraction of the limit: warn once. */
const NEARLY_FULL = 0.9;

/**
 * Bounded memory (CONTRACT §9). The rules:
 * - Only orders in a final status (the machine's `final` tag) with no timer pending are evicted,
 *   oldest first, with their quote; an order still running is never dropped.
 * - Before a create (`makeRoom`, before anything is stored or any id drawn): at `maxOrders` the
 *   oldest evictable orders go, a batch of 1% of the limit at once so the scan is paid once per
 *   batch, not per order; when that cannot bring the store under the limit the create is refused
 *   (409 E_CONFLICT naming the limit and what frees room) and nothing is evicted. So creates never
 *   take the store past the limit.
 * - Whenever an order is in a final status after a step of its lifecycle (`afterFinal`), a store
 *   over the limit (a restored document bigger than `--max-orders`) evicts down to it at once.
 * - The warning (`onNearlyFull`) is given once when a create takes the store past 90% of the
 *   limit; only `reset` (POST /sandbox/reset, a restore) arms it again. Near the limit a store
 *   that evicts stays there, so a warning each time it crossed back would repeat for nothing.
 *
 * Scans are bounded: after a scan of the whole store (it found too few evictable orders), every
 * evictable order is known, because an order only becomes evictable at the end of a lifecycle step
 * in a final status, which `afterFinal` reports. From then on the candidates are those reported
 * (in the order they finished) and nothing is scanned again until `reset`: a store full of
 * running orders refuses creates in O(1).
 */
export function createEviction(deps: EvictionDeps) {
  const { store, maxOrders } = deps;
  const batch = Math.max(1, Math.floor(maxOrders / 100));
  const warnAbove = Math.floor(maxOrders * NEARLY_FULL);
  let evicted = 0;
  let warned = false;
  /** True once a scan went through the whole store: every evictable order is then in `fresh`. */
  let known = false;
  /** While `known`: orders reported final since (evictable unless a timer is pending again). */
  const fresh = new Set<Order>();

  const evictable = (order: Order) => isFinal(order.status) && deps.pendingTimers(order).length === 0;

  /** Up to `wanted` evictable orders, oldest first (or, once all are known, in the order they finished). */
  function candidates(wanted: number): Set<Order> {
    const chosen = new Set<Order>();
    if (known) {
      for (const order of fresh) {
        if (chosen.size >= wanted) break;
        if (store.get(order.reference) !== order) fresh.delete(order);
        else if (evictable(order)) chosen.add(order);
      }
      return chosen;
    }
    for (const order of store.scan()) {
      if (chosen.size >= wanted) return chosen;
      if (evictable(order)) chosen.add(order);
    }
    if (chosen.size < wanted) {
      // The whole store was read: these are all the evictable orders there are.
      known = true;
      for (const order of chosen) fresh.add(order);
    }
    return chosen;
  }

  function drop(chosen: Set<Order>): void {
    store.evict(chosen);
    for (const order of chosen) {
      fresh.delete(order);
      // The quotes they used, if still remembered.
      for (const entry of order.timeline) {
        if (entry.event === 'quote_used') store.quotes.delete(String(entry.details?.quote_id));
      }
    }
    // A count for /health and the document: it stops at the largest exact integer rather than
    // pass it, so what is saved loads again (CONTRACT §13).
    evicted = Math.min(evicted + chosen.size, Number.MAX_SAFE_INTEGER);
    deps.onEvicted(chosen);
  }

  /** Before a create, before anything is stored or drawn: room for one more order, or a 409. */
  function makeRoom(): void {
    const size = store.size;
    if (size < maxOrders) return;
    const chosen = candidates(size - maxOrders + batch);
    if (size - chosen.size >= maxOrders) {
      throw conflict(
        `The sandbox holds ${size} orders, its limit (--max-orders ${maxOrders}), and ${chosen.size === 0 ? 'none' : `only ${chosen.size}`} can be evicted: ` +
          'only orders in a final status with no timer pending are. Free room by advancing the clock so orders finish (POST /sandbox/clock/advance), ' +
          'expiring orders awaiting payment (POST /sandbox/orders/{reference}/expire), POST /sandbox/reset, or restarting with a larger --max-orders',
      );
    }
    drop(chosen);
  }

  /** After a create stored its order: the once-only warning past 90% of the limit. */
  function afterAdd(): void {
    const size = store.size;
    if (warned || size <= warnAbove) return;
    warned = true;
    let unfinished = 0;
    for (const order of store.scan()) if (!isFinal(order.status)) unfinished++;
    deps.onNearlyFull?.({ orders: size, maxOrders, unfinished });
  }

  /** After a lifecycle step left `order` in a final status: it may be evictable now. */
  function afterFinal(order: Order): void {
    if (known) fresh.add(order);
    const size = store.size;
    if (size <= maxOrders) return;
    const chosen = candidates(size - maxOrders + batch - 1);
    if (chosen.size > 0) drop(chosen);
  }

  return {
    makeRoom,
    afterAdd,
    afterFinal,
    /** Orders evicted since the start (or the last reset). */
    get count() {
      return evicted;
    },
    /** The store was cleared or replaced: nothing is known about it, the warning is armed again. */
    reset(count = 0): void {
      evicted = count;
      known = false;
      fresh.clear();
      warned = false;
    },
  };
}

export type Eviction = ReturnType<typeof createEviction>;
