export * from './order.machine';
export * from './order.schemas';
export * from './order.responses';
export * from './order.service';
export * from './order.view';
export type { OrderRecord, QuoteRecord, TimelineRecord } from './order.store';
export * from './lifecycle-graph';
