import { createHmac, timingSafeEqual } from 'node:crypto';

export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

export interface VerifyWebhookOptions {
  /** Your partner reference (svc-client-id). */
  clientId: string;
  /** The `enc_*` key of the environment the webhook belongs to. */
  encryptionKey: string;
  /** Path plus query string of your webhook URL, no host: what the request line says (`req.url`). */
  path: string;
  /** Reject timestamps further than this from now, ms (default 300 000: 5 minutes). */
  toleranceMs?: number;
  /** Now, Unix ms (default: the wall clock). */
  now?: number;
}

export type WebhookFailure =
  | 'missing_signature'
  | 'missing_timestamp'
  | 'bad_timestamp'
  | 'stale_timestamp'
  | 'bad_signature'
  | 'malformed_body';

/** Thrown by `verifyWebhook`; `reason` says which check failed. */
export class WebhookVerificationError extends Error {
  override name = 'WebhookVerificationError';
  constructor(
    readonly reason: WebhookFailure,
    message: string,
  ) {
    super(message);
  }
}

export interface VerifiedWebhook {
  event: string;
  data: Record<string, unknown>;
  timestamp: number;
  deliveryId: string | undefined;
  attempt: number | undefined;
}

/**
 * Verifies a webhook exactly as spec §6.4 says: HMAC-SHA256 of
 * `clientId|timestamp|POST|path|rawBody` keyed with `enc_*`, compared in constant time, and a
 * timestamp within `toleranceMs`. Pass the raw body as received, before any JSON parsing.
 * @example
 * const raw = await readRawBody(req);
 * const { event, data } = verifyWebhook(raw, req.headers, { clientId, encryptionKey, path: req.url });
 */
export function verifyWebhook(rawBody: string | Uint8Array, headers: WebhookHeaders, options: VerifyWebhookOptions): VerifiedWebhook {
  const header = (name: string): string | undefined => {
    if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
    const record = headers as Record<string, string | string[] | undefined>;
    const value = record[name] ?? record[Object.keys(record).find((k) => k.toLowerCase() === name) ?? ''];
    return Array.isArray(value) ? value[0] : value;
  };
  const signature = header('svc-signature');
  const timestamp = header('svc-timestamp');
  if (!signature) throw new WebhookVerificationError('missing_signature', 'missing svc-signature header');
  if (!timestamp) throw new WebhookVerificationError('missing_timestamp', 'missing svc-timestamp header');
  if (!/^\d{1,16}$/.test(timestamp)) throw new WebhookVerificationError('bad_timestamp', 'svc-timestamp must be Unix milliseconds');
  const ts = Number(timestamp);
  const now = options.now ?? Date.now(); // wall clock: the receiver checks staleness against its real clock
  const tolerance = options.toleranceMs ?? 300_000;
  if (Math.abs(now - ts) > tolerance) {
    // Spec §5.2 names seconds as a known mistake: say so rather than "56 years old".
    if (Math.abs(now - ts * 1000) <= tolerance)
      throw new WebhookVerificationError('bad_timestamp', 'svc-timestamp is in seconds; it must be Unix milliseconds');
    throw new WebhookVerificationError(
      'stale_timestamp',
      `svc-timestamp is ${Math.round(Math.abs(now - ts) / 1000)} s from now (tolerance ${tolerance / 1000} s)`,
    );
  }
  const body = typeof rawBody === 'string' ? rawBody : Buffer.from(rawBody).toString('utf8');
  const canonical = `${options.clientId}|${timestamp}|POST|${options.path}|${body}`;
  const expected = Buffer.from(`sha256=${createHmac('sha256', options.encryptionKey).update(canonical).digest('hex')}`);
  const given = Buffer.from(signature);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    throw new WebhookVerificationError('bad_signature', 'signature does not match');
  }
  let parsed: { event?: unknown; data?: unknown };
  try {
    parsed = JSON.parse(body);
  } catch {
    throw new WebhookVerificationError('malformed_body', 'body is not JSON');
  }
  if (typeof parsed?.event !== 'string' || typeof parsed.data !== 'object' || parsed.data === null) {
    throw new WebhookVerificationError('malformed_body', 'body is not {event, data}');
  }
  const attempt = header('svc-attempt');
  return {
    event: parsed.event,
    data: parsed.data as Record<string, unknown>,
    timestamp: ts,
    deliveryId: header('svc-delivery-id'),
    attempt: attempt ? Number(attempt) : undefined,
  };
}
