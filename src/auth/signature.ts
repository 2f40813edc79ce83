import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

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
  return `sha256=${hmacSha256(encryptionKey, canonicalString(parts)).toString('hex')}`;
}

const EQUALITY_KEY = randomBytes(32);

/** Constant-time comparison of two secrets (signatures, the admin token), whatever their lengths. */
export function safeEqual(a: string, b: string): boolean {
  // Digests have one length whatever the inputs, so the time taken says nothing about `b`,
  // not even its length (CONTRACT §9); the per-process key keeps the digests unguessable.
  const da = createHmac('sha256', EQUALITY_KEY).update(a).digest();
  const db = createHmac('sha256', EQUALITY_KEY).update(b).digest();
  return timingSafeEqual(da, db);
}

/**
 * Whether `signature` (`sha256=<64 lowercase hex>`, format already checked) is the HMAC of
 * `parts` under `encryptionKey`: compares the raw digests in constant time.
 */
export function verify(parts: CanonicalParts, encryptionKey: string, signature: string): boolean {
  const expected = hmacSha256(encryptionKey, canonicalString(parts));
  const given = Buffer.from(signature.slice(7), 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
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

/**
 * HMAC-SHA256 of the UTF-8 bytes of `message` under `key`: node's `createHmac`. Two one-shot
 * `crypto.hash` calls over pads kept per key were measured against it and dropped: no faster
 * here, and a few hundred ns at most of a signed request (docs/decisions/002-hmac.md).
 */
export function hmacSha256(key: string, message: string): Buffer {
  return createHmac('sha256', key).update(message).digest();
}
