export * from './script/schema';
export * from './runner';
export * from './run-all';
export * from './report';
export { BuiltInReceiver } from './partner/receiver';
export { SandboxClient, type PartnerIdentity, type Reply, type Envelope } from './partner/client';
export type { StepContext, StepHandler, StepOf } from './steps';
