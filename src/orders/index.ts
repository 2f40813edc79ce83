export * from './order.machine';
export * from './model';
export * from './order.responses';
export * from './order.service';
export * from './order.view';
export type { Order, OrderRecord, QuoteRecord, TimelineRecord } from './model';
export * from './lifecycle-graph';
