import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

/** The pieces of the spec §5.2 / §6.4 canonical string. */
export interface CanonicalParts {
  clientId: string;
  timestamp: string;
  method: string;
  /** Full path including `/v1` and the query string. */
  path: string;
  rawBody: string;
}

/** `clientId|timestamp|METHOD|path|rawBody` (spec §5.2). */
export function canonicalString(p: CanonicalParts): string {
  return `${p.clientId}|${p.timestamp}|${p.method.toUpperCase()}|${p.path}|${p.rawBody}`;
}

/** `sha256=` + lowercase hex HMAC-SHA256 of the canonical string, keyed with the `enc_*` key. */
export function sign(parts: CanonicalParts, encryptionKey: string): string {
  return `sha256=${createHmac('sha256', encryptionKey).update(canonicalString(parts)).digest('hex')}`;
}

/** Constant-time comparison of two signature strings. */
export function safeEqual(a: string, b: string): boolean {
  const ab = Buffer.from(a);
  const bb = Buffer.from(b);
  return ab.length === bb.length && timingSafeEqual(ab, bb);
}

export const SIGNATURE_FORMAT = /^sha256=[0-9a-f]{64}$/;

/**
 * The `svc-sandbox-hint` value (CONTRACT §3): the canonical string the sandbox computed,
 * minus the body, which is given as its hash and length. Never includes a key.
 */
export function signatureHint(p: CanonicalParts): string {
  const prefix = encodeURIComponent(`${p.clientId}|${p.timestamp}|${p.method.toUpperCase()}|${p.path}|`);
  const body = Buffer.from(p.rawBody, 'utf8');
  const hash = createHash('sha256').update(body).digest('hex');
  return `prefix=${prefix}; body_sha256=${hash}; body_length=${body.length}`;
}
