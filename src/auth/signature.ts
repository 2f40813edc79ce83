import { createHash, createHmac, hash, randomBytes, timingSafeEqual } from 'node:crypto';

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

/** A key's HMAC pads: the inner one as text (ASCII), the outer one with room for the inner digest. */
interface Pads {
  inner: string;
  outer: Buffer;
}
const BLOCK = 64;
const padsByKey = new Map<string, Pads | null>();

/**
 * HMAC-SHA256 (RFC 2104) of the UTF-8 bytes of `message`: the same bytes as `createHmac`, in
 * two one-shot `crypto.hash` calls over the key's pads, computed once per key. Every signed
 * request pays for one, and `createHmac` sets up an OpenSSL context each time (~3 µs, more
 * under load). Keys that are not ASCII of at most 64 bytes (never the sandbox's own) go to
 * `createHmac`.
 */
export function hmacSha256(key: string, message: string): Buffer {
  let pads = padsByKey.get(key);
  if (pads === undefined) {
    pads = padsOf(key);
    if (padsByKey.size >= 10_000) padsByKey.clear();
    padsByKey.set(key, pads);
  }
  if (pads === null) return createHmac('sha256', key).update(message).digest();
  const inner = hash('sha256', pads.inner + message, 'buffer');
  inner.copy(pads.outer, BLOCK);
  return hash('sha256', pads.outer, 'buffer');
}

function padsOf(key: string): Pads | null {
  if (key.length > BLOCK || !/^[\x00-\x7f]*$/.test(key)) return null;
  let inner = '';
  const outer = Buffer.alloc(BLOCK + 32);
  for (let i = 0; i < BLOCK; i++) {
    const k = i < key.length ? key.charCodeAt(i) : 0;
    // ASCII XOR 0x36 / 0x5c stays ASCII, so the inner pad is text whose UTF-8 is its bytes
    inner += String.fromCharCode(k ^ 0x36);
    outer[i] = k ^ 0x5c;
  }
  return { inner, outer };
}
