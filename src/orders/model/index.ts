/**
 * What an order IS (store issue): the lifecycle vocabulary, the pricing and request schemas and
 * the stored records' schemas and types. It imports nothing else of `src/orders/`, so the
 * domain's files and `orders/store/` both stand on it without a loop; the rest of `src/` imports
 * it from here only (test/architecture).
 */
export * from './order.vocabulary';
export * from './pricing.schemas';
export * from './order.schemas';
export * from './order.records';
