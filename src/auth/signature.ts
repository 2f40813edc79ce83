import { createHash, createHmac, createSecretKey, randomBytes, timingSafeEqual, type KeyObject } from 'node:crypto';

/** The pieces of the spec §5.2 / §6.4 canonical string. */
export interface CanonicalParts {
  clientId: string;
  timestamp: string;
  method: string;
  /** Full path including `/v1` and the query string. */
  path: string;
  rawBody: string;
}

/**
 * The canonical parts with the body as received: its text, or its bytes when they are not
 * valid UTF-8 (a string would not give them back; CONTRACT §9 checks the bytes received).
 */
export type ReceivedParts = Omit<CanonicalParts, 'rawBody'> & { rawBody: string | Uint8Array };

/** `clientId|timestamp|METHOD|path|rawBody` (spec §5.2). */
export function canonicalString(p: CanonicalParts): string {
  return `${p.clientId}|${p.timestamp}|${p.method.toUpperCase()}|${p.path}|${p.rawBody}`;
}

/** `sha256=` + lowercase hex HMAC-SHA256 of the canonical string, keyed with the `enc_*` key. */
export function sign(parts: ReceivedParts, encryptionKey: SigningKey): string {
  return `sha256=${hmacOf(parts, encryptionKey)}`;
}

/** The hex HMAC of the canonical string; over the bytes themselves when the body is bytes. */
function hmacOf(p: ReceivedParts, key: SigningKey): string {
  if (typeof p.rawBody === 'string') return hmacSha256Hex(key, canonicalString(p as CanonicalParts));
  const prefix = `${p.clientId}|${p.timestamp}|${p.method.toUpperCase()}|${p.path}|`;
  return createHmac('sha256', key).update(prefix).update(p.rawBody).digest('hex');
}

/**
 * An `enc_*` key: its string, or its `KeyObject` (`signingKeyOf`), the same bytes; given a
 * string, `createHmac` copies it into a new buffer on every signature (decision 002), so the
 * request path passes the `KeyObject` its partner registry keeps.
 */
export type SigningKey = string | KeyObject;

/** The `KeyObject` of a key string: the UTF-8 bytes `createHmac` would take from the string. */
export function signingKeyOf(key: string): KeyObject {
  return createSecretKey(key, 'utf8');
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
 * `parts` under `encryptionKey`: compares the hex digests in constant time (`equalHexDigest`).
 */
export function verify(parts: ReceivedParts, encryptionKey: SigningKey, signature: string): boolean {
  return equalHexDigest(hmacOf(parts, encryptionKey), signature, 7);
}

/**
 * Whether `given` holds `expected` (a hex digest) from index `at` to its end, in time that depends
 * only on the lengths (every character is compared, whatever differs first), as
 * `timingSafeEqual` compares buffers; comparing the strings spares two buffers per request
 * (docs/decisions/002-hmac.md).
 */
export function equalHexDigest(expected: string, given: string, at: number): boolean {
  if (given.length - at !== expected.length) return false;
  let diff = 0;
  for (let i = 0; i < expected.length; i++) diff |= expected.charCodeAt(i) ^ given.charCodeAt(at + i);
  return diff === 0;
}

export const SIGNATURE_FORMAT = /^sha256=[0-9a-f]{64}$/;

/**
 * The `svc-sandbox-hint` value (CONTRACT §3): the canonical string the sandbox computed,
 * minus the body, which is given as its hash and length. Never includes a key.
 */
export function signatureHint(p: ReceivedParts): string {
  const prefix = encodeURIComponent(`${p.clientId}|${p.timestamp}|${p.method.toUpperCase()}|${p.path}|`);
  const body = typeof p.rawBody === 'string' ? Buffer.from(p.rawBody, 'utf8') : p.rawBody;
  const hash = createHash('sha256').update(body).digest('hex');
  return `prefix=${prefix}; body_sha256=${hash}; body_length=${body.length}`;
}

/**
 * HMAC-SHA256 of the UTF-8 bytes of `message` under `key`, as lowercase hex: node's `createHmac`,
 * hex made by node's digest with no buffer in between (docs/decisions/002-hmac.md).
 */
export function hmacSha256Hex(key: SigningKey, message: string): string {
  return createHmac('sha256', key).update(message).digest('hex');
}
