/**
 * ramp-sandbox's public surface: start a sandbox in process (CONTRACT §14), and the partner
 * helpers (sign requests per spec §5.2, verify webhooks per spec §6.4).
 */
export * from './client';
// Advanced: the sandbox's parts (createSandbox) and the bare server the CLI runs (startServer).
export { createSandbox, VERSION, type Sandbox, type SandboxOverrides } from './sandbox/sandbox';
export { startServer, type RunningSandbox } from './sandbox/server';
export { loadConfig, DEFAULT_CONFIG, type SandboxConfig } from './sandbox/config';
export { signRequest, signedCurl, canonicalString, sign, type SignRequestInput } from './auth';
export {
  verifyWebhook,
  WebhookVerificationError,
  type VerifyWebhookOptions,
  type VerifiedWebhook,
  type WebhookFailure,
} from './client/verify-webhook';
