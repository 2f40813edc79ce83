export * from './order.machine';
export * from './order.schemas';
export * from './order.responses';
export * from './order.service';
export * from './order.view';
export type { Order, OrderRecord, QuoteRecord, TimelineRecord } from './order.records';
export * from './lifecycle-graph';
