export * from './schema';
export * from './runner';
export * from './run-all';
export * from './report';
export { BuiltInReceiver } from './receiver';
export { SandboxClient, type PartnerIdentity } from './client';
