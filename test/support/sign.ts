/**
 * An independent, minimal signer written straight from spec §5.2 — deliberately not importing
 * src/auth, so the sandbox's verification is checked against a second implementation.
 */
import { createHmac } from 'node:crypto';

export interface TestKeys {
  public_key: string;
  secret_key: string;
  encryption_key: string;
}

export interface SignOptions {
  clientId: string;
  keys: TestKeys;
  method: string;
  path: string;
  body?: string;
  timestamp?: number | string;
  /** Sign with this key instead of the encryption key (to test mistakes). */
  signingKey?: string;
  /** Sign this path instead of the one sent. */
  signedPath?: string;
  /** Sign this body instead of the one sent. */
  signedBody?: string;
  signedTimestamp?: string;
}

/** hex HMAC-SHA256 of `clientId|timestamp|METHOD|path|rawBody`. */
function hmacHex(key: string, text: string): string {
  return createHmac('sha256', key).update(text, 'utf8').digest('hex');
}

export function signedHeaders(o: SignOptions): Record<string, string> {
  const ts = String(o.timestamp ?? Date.now());
  const canonical = [
    o.clientId,
    o.signedTimestamp ?? ts,
    o.method.toUpperCase(),
    o.signedPath ?? o.path,
    o.signedBody ?? o.body ?? '',
  ].join('|');
  const headers: Record<string, string> = {
    'svc-client-id': o.clientId,
    authorization: `Bearer ${o.keys.secret_key}`,
    'svc-timestamp': ts,
    'svc-signature': `sha256=${hmacHex(o.signingKey ?? o.keys.encryption_key, canonical)}`,
  };
  if (o.body !== undefined) headers['content-type'] = 'application/json';
  return headers;
}
