export * from './dispatcher';
