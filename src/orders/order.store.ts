import type { Environment } from '../reference';
import { ShardedMap } from '../shared/sharded-map';
import type { OrderRecord, QuoteRecord } from './order.records';
import { forgetDecodedTerms } from './order-terms';

export type { OrderRecord, PayinTarget, QuoteRecord, Recipient, TimelineRecord } from './order.records';

/**
 * In-memory indexes of orders and quotes. The indexes that grow with every order are sharded
 * (`ShardedMap`, decision 021), so a create never waits for one map of a million to rehash.
 */
export class OrderStore {
  readonly orders = new ShardedMap<string, OrderRecord>();
  readonly quotes = new Map<string, QuoteRecord>();
  private readonly byOwner = new Map<string, OrderRecord[]>();
  private readonly merchantRefs = new ShardedMap<string, string>();

  static owner(clientId: string, env: Environment): string {
    return `${clientId}|${env}`;
  }

  add(order: OrderRecord): void {
    this.orders.set(order.reference, order);
    const key = OrderStore.owner(order.clientId, order.env);
    let list = this.byOwner.get(key);
    if (!list) this.byOwner.set(key, (list = []));
    list.push(order);
    if (order.merchant_reference) this.merchantRefs.set(`${key}|${order.merchant_reference}`, order.reference);
  }

  /** Drops an order from every index (a create that could not complete). */
  remove(order: OrderRecord): void {
    this.orders.delete(order.reference);
    const key = OrderStore.owner(order.clientId, order.env);
    const list = this.byOwner.get(key);
    const at = list ? list.lastIndexOf(order) : -1;
    if (list && at >= 0) list.splice(at, 1);
    if (order.merchant_reference) this.merchantRefs.delete(`${key}|${order.merchant_reference}`);
  }

  /** Drops many orders at once (eviction): each owner's list is filtered once. */
  evict(orders: ReadonlySet<OrderRecord>): void {
    const owners = new Set<string>();
    for (const order of orders) {
      this.orders.delete(order.reference);
      const key = OrderStore.owner(order.clientId, order.env);
      owners.add(key);
      if (order.merchant_reference) this.merchantRefs.delete(`${key}|${order.merchant_reference}`);
    }
    for (const key of owners) {
      const kept = (this.byOwner.get(key) ?? []).filter((o) => !orders.has(o));
      if (kept.length > 0) this.byOwner.set(key, kept);
      else this.byOwner.delete(key);
    }
  }

  hasMerchantReference(clientId: string, env: Environment, merchantReference: string): boolean {
    return this.merchantRefs.has(`${OrderStore.owner(clientId, env)}|${merchantReference}`);
  }

  /** The owner's orders, oldest first. */
  ownedBy(clientId: string, env: Environment): readonly OrderRecord[] {
    return this.byOwner.get(OrderStore.owner(clientId, env)) ?? [];
  }

  clear(): void {
    this.orders.clear();
    this.quotes.clear();
    this.byOwner.clear();
    this.merchantRefs.clear();
    forgetDecodedTerms();
  }
}

