import { describe, expect, it } from 'vitest';
import { webhookSignatureVectors } from '../webhooks';
import { verifyWebhook, WebhookVerificationError, type WebhookFailure } from './verify-webhook';

/** What verifyWebhook makes of one vector: accepted, or the reason it refuses it. */
function verdict(c: ReturnType<typeof webhookSignatureVectors>['cases'][number]): 'accepted' | WebhookFailure {
  const { pathname, search } = new URL(c.url);
  try {
    verifyWebhook(c.raw_body, c.headers, {
      clientId: c.client_id,
      encryptionKey: c.encryption_key,
      path: pathname + search,
      now: c.now_ms,
    });
    return 'accepted';
  } catch (error) {
    if (error instanceof WebhookVerificationError) return error.reason;
    throw error;
  }
}

describe('verifyWebhook and the signature vectors (CONTRACT §18)', () => {
  const { cases } = webhookSignatureVectors();

  it.each(cases.map((c) => [c.name, c] as const))('%s: agrees with the vector', (_name, c) => {
    expect(verdict(c)).toBe(c.valid ? 'accepted' : c.reason);
  });

  it('names a timestamp in seconds as such, not as 56 years stale', () => {
    const seconds = cases.find((c) => c.name === 'timestamp_in_seconds')!;
    const { pathname } = new URL(seconds.url);
    expect(() =>
      verifyWebhook(seconds.raw_body, seconds.headers, {
        clientId: seconds.client_id,
        encryptionKey: seconds.encryption_key,
        path: pathname,
        now: seconds.now_ms,
      }),
    ).toThrow('svc-timestamp is in seconds; it must be Unix milliseconds');
  });

  it('takes the headers as a Headers object and the body as bytes too', () => {
    const valid = cases.find((c) => c.name === 'valid_non_ascii_body')!;
    const verified = verifyWebhook(Buffer.from(valid.raw_body, 'utf8'), new Headers(valid.headers), {
      clientId: valid.client_id,
      encryptionKey: valid.encryption_key,
      path: new URL(valid.url).pathname,
      now: valid.now_ms,
    });
    expect(verified).toMatchObject({ event: 'order.settled', deliveryId: 'dlv_vectors0001', attempt: 1 });
  });
});
