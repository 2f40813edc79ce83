import type { Environment } from '../../reference';
import type { Order, OrderRecord, OrderSnapshot, QuoteRecord } from '../model';
import type { OrderStatus, OrderType } from '../model';

export type { Order, OrderRecord, OrderSnapshot } from '../model';

/** Whose orders: a partner's client id in one environment (a list is always one owner's). */
export interface Owner {
  clientId: string;
  env: Environment;
}

/** What a list keeps (the routes' filters: /v1's, an owner's, CONTRACT §7; the control API's, §15); a field left out keeps all. */
export interface ListFilter {
  clientId?: string;
  env?: Environment;
  status?: OrderStatus;
  type?: OrderType;
}

/** A read-only look at the orders by reference, oldest first (tools, benches, logs). */
export interface OrderIndex {
  readonly size: number;
  get(reference: string): Order | undefined;
  has(reference: string): boolean;
  keys(): IterableIterator<string>;
  values(): IterableIterator<Order>;
}

/**
 * How orders are kept, behind one interface (docs/decisions/028-plain-order-store.md): every
 * implementation passes `order-store.contract.test.ts`. The domain reads plain records (the
 * zod-inferred `OrderRecord`, read-only) and writes only through `update`, where the version,
 * the change event and anything the implementation keeps beside an order happen, once per write.
 */
export interface OrderStore {
  /** Orders kept. */
  readonly size: number;
  /** Keeps a new order, as intake drafted it (it must not be kept already); the order as kept. */
  create(draft: OrderRecord): Order;
  get(reference: string): Order | undefined;
  has(reference: string): boolean;
  /** The owner's order with this merchant reference, if any (intake's uniqueness check). */
  byMerchantReference(owner: Owner, merchantReference: string): Order | undefined;
  /**
   * The one write: `change` is given the order to write; then its version goes up by one and
   * its change is published. What `change` returns is returned.
   * @example store.update(order, (o) => o.timeline.push(entry) - 1)
   */
  update<R>(order: Order, change: (order: OrderRecord) => R): R;
  /** The orders that pass the filter, newest first. */
  list(filter: ListFilter): Order[];
  /** Every order, oldest first (eviction's scan). */
  scan(): IterableIterator<Order>;
  /** Drops one order (a create that could not complete). */
  remove(order: Order): void;
  /** Drops many orders at once (eviction, CONTRACT §9). */
  evict(orders: ReadonlySet<Order>): void;
  /** Drops every order and quote (a reset). */
  clear(): void;
  /** Every order as a state snapshot holds it (fresh copies, CONTRACT §13), oldest first. */
  snapshot(): IterableIterator<OrderSnapshot>;
  /** `snapshot()` as JSON, one order at a time, without copying them first (a streamed save). */
  snapshotJson(): IterableIterator<string>;
  /** Replaces every order with a validated snapshot's, which it takes over (not the quotes). */
  restore(entries: Iterable<OrderSnapshot>): void;
  /** A read-only look by reference. */
  readonly orders: OrderIndex;
  /** Quotes by id (their `used` flag is theirs to set). */
  readonly quotes: Map<string, QuoteRecord>;
}

/** What a store is given: where an order's change is told (the bus's `order.changed`). */
export interface OrderStoreOptions {
  onChange?: (reference: string) => void;
}
