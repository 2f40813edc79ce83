export * from './dispatcher';
export * from './delivery.schemas';
export * from './subscription';
export * from './vectors';
export { deliveryHeaders, signedPath, type DeliverySigning } from './delivery-headers';
export * from './chaos';
