import type { Environment } from '../reference';
import type { Priced, OrderType } from '../pricing/pricing';
import type { MagicAmountBehaviour } from '../reference';
import type { OrderContext, OrderStatus } from './order.machine';

export interface TimelineRecord {
  group: 'status' | 'payin' | 'payout' | 'refund' | 'webhook' | 'order';
  event: string;
  details: Record<string, unknown> | null;
  at: number;
}

export type PayinTarget =
  | { kind: 'fiat'; currency: string; institution_code: string; account_number: string; account_name: string }
  | { kind: 'crypto'; asset: string; network: string; address: string };

export type Recipient =
  | { kind: 'fiat'; institution_code: string; account_number: string; account_name: string; memo?: string }
  | { kind: 'crypto'; network: string; address: string; memo?: string };

/** One order as stored: plain data plus its machine status and context (no live actor). */
export interface OrderRecord extends Priced {
  env: Environment;
  clientId: string;
  reference: string;
  merchant_reference: string | null;
  customer_reference: string | null;
  metadata: Record<string, unknown> | null;
  memo: string | undefined;
  recipient: Recipient;
  payin: PayinTarget;
  payinRefs: string[];
  payinExpiresAt: number | null;
  payinPaidAt: number | null;
  payout: { refs: string[]; paidAt: number | null; amount: number; percentage: number; state: 'sent' | 'failed' | 'reverted' } | null;
  refundTarget: Recipient;
  refund: { ref: string | null; refundedAt: number | null } | null;
  timeline: TimelineRecord[];
  status: OrderStatus;
  context: OrderContext;
  created_at: number;
  updated_at: number;
  /** Bumped on every change: the key of the rendered-JSON cache. */
  version: number;
  /** Pending virtual-clock timers: [xstate delayed-event id, clock timer id] pairs (usually 0 or 1). */
  timers: Array<[string, number]>;
}

export interface QuoteRecord extends Priced {
  quote_id: string;
  env: Environment;
  clientId: string;
  partnerFeePercent: number;
  magic: MagicAmountBehaviour | undefined;
  created_at: number;
  expires_at: number;
  used: boolean;
}

/** In-memory indexes of orders and quotes. */
export class OrderStore {
  readonly orders = new Map<string, OrderRecord>();
  readonly quotes = new Map<string, QuoteRecord>();
  private readonly byOwner = new Map<string, OrderRecord[]>();
  private readonly merchantRefs = new Map<string, string>();

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
  }
}

