export { startSandbox } from './start-sandbox';
export { SandboxError } from './sandbox-error';
export type {
  AdvanceResult,
  ClockView,
  CreatePartnerInput,
  DeliveriesFilter,
  DeliveryView,
  Fault,
  FaultInput,
  KeySet,
  OrderDetail,
  PartnerCredentials,
  PartnerView,
  PayinInput,
  PayoutInput,
  RecordedRequest,
  RequestsFilter,
  ResetResult,
  SandboxHandle,
  SendWebhookInput,
  StartSandboxOptions,
  UpdatePartnerInput,
} from './handle.types';
