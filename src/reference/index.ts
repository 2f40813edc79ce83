export * from './fixtures.schema';
export * from './fixtures.loader';
export * from './reference.store';
export * from './magic';
export * from './reference.schemas';
export * from './market';
