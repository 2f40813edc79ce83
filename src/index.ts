/**
 * ramp-sandbox's public surface: start a sandbox in process, and the partner helpers
 * (sign requests exactly as spec §5.2 says).
 */
export { createSandbox, startSandbox, VERSION, type Sandbox, type RunningSandbox } from './main';
export { loadConfig, DEFAULT_CONFIG, type SandboxConfig } from './config';
export { signRequest, signedCurl, canonicalString, sign, type SignRequestInput } from './auth';
