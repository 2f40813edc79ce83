export * from './dispatcher';
export * from './delivery.schemas';
