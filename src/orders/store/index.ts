/**
 * The order store (docs/decisions/028-plain-order-store.md): how orders are kept is this
 * folder's business; the rest of `src/` imports it from here only (test/architecture).
 */
export type { ListFilter, Order, OrderIndex, OrderRecord, OrderSnapshot, OrderStore, OrderStoreOptions, Owner } from './order-store';
export { createPlainStore } from './plain-store';
