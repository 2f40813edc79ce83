export * from './dispatcher';
export * from './delivery.schemas';
export * from './subscription';
