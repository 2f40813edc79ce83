import { STATUSES_TAGGED } from './order.machine';
import type { OrderRecord, OrderStore } from './order.store';

export interface EvictionDeps {
  store: OrderStore;
  /** At most this many orders are kept (CONTRACT §9, `--max-orders`). */
  maxOrders: number;
  /** Called once per batch with the orders just dropped, to forget what hangs off them. */
  onEvicted: (orders: ReadonlySet<OrderRecord>) => void;
}

/**
 * Bounded memory (CONTRACT §9): past `maxOrders`, the oldest orders in a final status (the
 * machine's `final` tag) with no timer pending are dropped, in batches of 1% so the scan is paid
 * once per batch, not per order. Orders not in a final status are never evicted; when too few
 * are final the store grows past the bound, and the next scan waits for another batch of orders.
 */
export function createEviction(deps: EvictionDeps) {
  const { store, maxOrders } = deps;
  const batch = Math.max(1, Math.floor(maxOrders / 100));
  let evicted = 0;
  let nextScanAt = maxOrders + 1;

  function afterAdd(): void {
    const size = store.orders.size;
    if (size < nextScanAt) return;
    const wanted = size - maxOrders + batch - 1;
    const chosen = new Set<OrderRecord>();
    for (const order of store.orders.values()) {
      if (chosen.size >= wanted) break;
      if (STATUSES_TAGGED.final.has(order.status) && order.timers.length === 0) chosen.add(order);
    }
    nextScanAt = chosen.size >= wanted ? maxOrders + 1 : size + batch;
    if (chosen.size === 0) return;
    store.evict(chosen);
    // The quotes they used, if still remembered.
    for (const order of chosen) {
      for (const entry of order.timeline) {
        if (entry.event === 'quote_used') store.quotes.delete(String(entry.details?.quote_id));
      }
    }
    evicted += chosen.size;
    deps.onEvicted(chosen);
  }

  return {
    afterAdd,
    /** Orders evicted since the start (or the last reset). */
    get count() {
      return evicted;
    },
    reset(count = 0): void {
      evicted = count;
      nextScanAt = maxOrders + 1;
    },
  };
}
