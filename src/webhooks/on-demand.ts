import type { Delivery } from './delivery';

/**
 * Deliveries sent on demand (`POST /sandbox/webhooks/send`, source `manual`) kept in the log: the
 * newest, at most this many and with bodies of at most this many characters in all (CONTRACT §9:
 * memory is bounded). Lifecycle deliveries go with their orders (the dispatcher's `forgetOrders`);
 * a send may name no order, or the same order again and again, so these are bounded on their own.
 */
export const MAX_ON_DEMAND_DELIVERIES = 10_000;
export const MAX_ON_DEMAND_BODY_CHARS = 64 * 1024 * 1024;

/** The on-demand deliveries in a log, oldest first, with their bodies' length. */
export function createOnDemandLog(limits = { count: MAX_ON_DEMAND_DELIVERIES, chars: MAX_ON_DEMAND_BODY_CHARS }) {
  const kept = new Map<Delivery, number>();
  let chars = 0;
  const drop = (delivery: Delivery): void => {
    const length = kept.get(delivery);
    if (length === undefined) return;
    kept.delete(delivery);
    chars -= length;
  };
  return {
    /**
     * Counts a delivery in (`bodyChars`: its body's length) and gives the oldest others past the
     * bounds, no longer counted: the caller forgets them. An attempt in flight is never given.
     */
    add(delivery: Delivery, bodyChars: number): Delivery[] {
      kept.set(delivery, bodyChars);
      chars += bodyChars;
      const over: Delivery[] = [];
      for (const [old] of kept) {
        if (kept.size <= limits.count && chars <= limits.chars) break;
        if (old === delivery || old.inFlight) continue;
        drop(old);
        over.push(old);
      }
      return over;
    },
    /** Counts a restored delivery in, forgetting nothing: a document over the bounds keeps them until the next send. */
    restore(delivery: Delivery, bodyChars: number): void {
      kept.set(delivery, bodyChars);
      chars += bodyChars;
    },
    /** A delivery the log forgot for another reason (its order was evicted). */
    drop,
    clear(): void {
      kept.clear();
      chars = 0;
    },
  };
}
