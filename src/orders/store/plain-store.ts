import { ShardedMap } from '../../shared/sharded-map';
import { OrderSnapshotSchema, type QuoteRecord } from '../model';
import type { ListFilter, Order, OrderIndex, OrderRecord, OrderSnapshot, OrderStore, OrderStoreOptions, Owner } from './order-store';

/**
 * The order store as maps of plain objects: the reference implementation (decision 028). An
 * order is kept as the record intake drafted or a snapshot held, and `update` writes it in
 * place. The index by reference and by merchant reference are sharded (`ShardedMap`, decision
 * 021), so a create never waits for one map of hundreds of thousands to rehash.
 */
export function createPlainStore(options: OrderStoreOptions = {}): OrderStore {
  const byReference = new ShardedMap<string, OrderRecord>();
  const byOwner = new Map<string, OrderRecord[]>();
  const merchantRefs = new ShardedMap<string, string>();
  const quotes = new Map<string, QuoteRecord>();
  const ownerKey = (clientId: string, env: string) => `${clientId}|${env}`;

  function add(order: OrderRecord): void {
    byReference.set(order.reference, order);
    const key = ownerKey(order.clientId, order.env);
    let list = byOwner.get(key);
    if (!list) byOwner.set(key, (list = []));
    list.push(order);
    if (order.merchant_reference) merchantRefs.set(`${key}|${order.merchant_reference}`, order.reference);
  }

  const orders: OrderIndex = {
    get size() {
      return byReference.size;
    },
    get: (reference) => byReference.get(reference),
    has: (reference) => byReference.has(reference),
    keys: () => byReference.keys(),
    values: () => byReference.values(),
  };

  return {
    get size() {
      return byReference.size;
    },
    create(draft) {
      if (byReference.has(draft.reference)) throw new Error(`order ${draft.reference} is kept already`);
      add(draft);
      return draft;
    },
    get: (reference) => byReference.get(reference),
    has: (reference) => byReference.has(reference),
    byMerchantReference(owner: Owner, merchantReference: string) {
      const reference = merchantRefs.get(`${ownerKey(owner.clientId, owner.env)}|${merchantReference}`);
      return reference === undefined ? undefined : byReference.get(reference);
    },
    update(order, change) {
      // The record handed out is the one kept: written in place.
      const record = order as OrderRecord;
      const result = change(record);
      // Counts writes, and wraps rather than pass the largest exact integer: a document saved
      // after any write loads again (CONTRACT §13), and the render cache only compares versions.
      record.version = record.version < Number.MAX_SAFE_INTEGER ? record.version + 1 : 0;
      options.onChange?.(record.reference);
      return result;
    },
    list(filter: ListFilter): Order[] {
      // One owner's orders are a list of their own (the /v1 list); any other filter reads them all.
      const all =
        filter.clientId !== undefined && filter.env !== undefined
          ? (byOwner.get(ownerKey(filter.clientId, filter.env)) ?? [])
          : [...byReference.values()];
      const out: Order[] = [];
      for (let i = all.length - 1; i >= 0; i--) {
        const o = all[i]!;
        if (filter.clientId !== undefined && o.clientId !== filter.clientId) continue;
        if (filter.env !== undefined && o.env !== filter.env) continue;
        if (filter.status !== undefined && o.status !== filter.status) continue;
        if (filter.type !== undefined && o.type !== filter.type) continue;
        out.push(o);
      }
      return out;
    },
    scan: () => byReference.values(),
    remove(order) {
      if (byReference.get(order.reference) !== order) return;
      byReference.delete(order.reference);
      const key = ownerKey(order.clientId, order.env);
      const list = byOwner.get(key);
      const at = list ? list.lastIndexOf(order as OrderRecord) : -1;
      if (list && at >= 0) list.splice(at, 1);
      if (order.merchant_reference) merchantRefs.delete(`${key}|${order.merchant_reference}`);
    },
    evict(evicted) {
      const owners = new Set<string>();
      for (const order of evicted) {
        if (byReference.get(order.reference) !== order) continue;
        byReference.delete(order.reference);
        const key = ownerKey(order.clientId, order.env);
        owners.add(key);
        if (order.merchant_reference) merchantRefs.delete(`${key}|${order.merchant_reference}`);
      }
      for (const key of owners) {
        const kept = (byOwner.get(key) ?? []).filter((o) => !evicted.has(o));
        if (kept.length > 0) byOwner.set(key, kept);
        else byOwner.delete(key);
      }
    },
    clear() {
      byReference.clear();
      byOwner.clear();
      merchantRefs.clear();
      quotes.clear();
    },
    *snapshot() {
      for (const order of byReference.values()) yield structuredClone(snapshotFields(order)) as OrderSnapshot;
    },
    *snapshotJson() {
      // The record itself when its keys are the schema's, in its order (as intake drafts it and
      // zod restores it): no copy of 200,000 orders to write them (store issue item 7).
      for (const order of byReference.values()) yield JSON.stringify(inSchemaOrder(order) ? order : snapshotFields(order));
    },
    restore(entries) {
      byReference.clear();
      byOwner.clear();
      merchantRefs.clear();
      for (const entry of entries) add(entry);
    },
    orders,
    quotes,
  };
}

/** The snapshot's fields, in the schema's order (CONTRACT §13): the document's keys, derived from the schema. */
const SNAPSHOT_FIELDS = Object.keys(OrderSnapshotSchema.shape) as Array<keyof OrderSnapshot>;

/**
 * Whether `JSON.stringify(o)` is the snapshot's text: its keys are some of the schema's, in the
 * schema's order, and no other (a key left out is one `snapshotFields` would give as undefined,
 * which JSON leaves out too). A write that added a key (a memo set after the create) fails it.
 */
function inSchemaOrder(o: Order): boolean {
  let at = 0;
  for (const key in o) {
    while (at < SNAPSHOT_FIELDS.length && SNAPSHOT_FIELDS[at] !== key) at++;
    if (at === SNAPSHOT_FIELDS.length) return false;
    at++;
  }
  return true;
}

/** The order's fields as a snapshot holds them, in the schema's order; a memo only when there is one. */
function snapshotFields(o: Order): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const field of SNAPSHOT_FIELDS) if (o[field] !== undefined || field !== 'memo') out[field] = o[field];
  return out;
}
