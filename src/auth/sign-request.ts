import { systemWallClock } from '../clock';
import { sign } from './signature';

export interface SignRequestInput {
  method: string;
  /** Full path with `/v1` and the query string, e.g. `/v1/orders?status=settled`. */
  path: string;
  /** The exact body string you will send (sign the bytes, never a re-serialised object). */
  body?: string;
  clientId: string;
  secretKey: string;
  encryptionKey: string;
  /** Unix ms; defaults to the wall clock now. */
  timestamp?: number;
}

/**
 * The four headers of a secret-key request (spec §5.2), plus `Content-Type` when there is a body.
 * @example
 * const body = JSON.stringify({ from, to });
 * const headers = signRequest({ method: 'POST', path: '/v1/orders/quote', body, clientId, secretKey, encryptionKey });
 * await fetch(`${baseUrl}/v1/orders/quote`, { method: 'POST', headers, body });
 */
export function signRequest(input: SignRequestInput): Record<string, string> {
  const timestamp = String(input.timestamp ?? systemWallClock.now()); // CONTRACT §2 transport time
  const rawBody = input.body ?? '';
  const headers: Record<string, string> = {
    'svc-client-id': input.clientId,
    Authorization: `Bearer ${input.secretKey}`,
    'svc-timestamp': timestamp,
    'svc-signature': sign({ clientId: input.clientId, timestamp, method: input.method, path: input.path, rawBody }, input.encryptionKey),
  };
  if (rawBody) headers['Content-Type'] = 'application/json';
  return headers;
}

/** A ready-to-paste curl command for a signed request. */
export function signedCurl(baseUrl: string, input: SignRequestInput): string {
  const headers = signRequest(input);
  const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
  const parts = [`curl -sS -X ${input.method.toUpperCase()} ${quote(baseUrl + input.path)}`];
  for (const [k, v] of Object.entries(headers)) parts.push(`-H ${quote(`${k}: ${v}`)}`);
  if (input.body) parts.push(`--data-raw ${quote(input.body)}`);
  return parts.join(' \\\n  ');
}
