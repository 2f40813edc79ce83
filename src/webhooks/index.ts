export * from './dispatcher';
export * from './delivery.schemas';
export * from './subscription';
export * from './vectors';
export type { DeliverySigning } from './delivery-headers';
export * from './chaos';
