import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { packagePath } from '../shared/package-root';
import { webhookPayloadSchema } from './delivery.schemas';
import { VECTOR_BODIES, WebhookVectorsSchema, webhookSignatureVectors, webhookSignatureVectorsJson } from './vectors';

// CONTRACT §18: the webhook signature test vectors, one document wherever a partner finds it.
const vectors = webhookSignatureVectors();
const byName = (name: string) => vectors.cases.find((c) => c.name === name)!;

/** spec §6.4 with node:crypto alone, not the sandbox's signer: an independent check. */
const hmac = (key: string, clientId: string, ts: string, url: string, body: string) => {
  const { pathname, search } = new URL(url);
  return `sha256=${createHmac('sha256', key).update(`${clientId}|${ts}|POST|${pathname}${search}|${body}`, 'utf8').digest('hex')}`;
};

describe('webhook signature vectors (CONTRACT §18)', () => {
  it('are the committed docs/webhook-signature-vectors.json, byte for byte (regenerate it with ramp-sandbox vectors --out)', () => {
    expect(readFileSync(packagePath('docs/webhook-signature-vectors.json'), 'utf8')).toBe(webhookSignatureVectorsJson());
  });

  it('are the same document every time, and match their schema', () => {
    expect(webhookSignatureVectors()).toEqual(vectors);
    expect(WebhookVectorsSchema.parse(vectors)).toEqual(vectors);
  });

  it('hold at least the cases the contract lists, each name once', () => {
    const names = vectors.cases.map((c) => c.name);
    expect(new Set(names).size).toBe(names.length);
    expect(names).toEqual(
      expect.arrayContaining([
        'valid',
        'valid_query_string',
        'tampered_body',
        'signed_with_secret_key',
        'signed_with_other_environment_key',
        'timestamp_in_seconds',
        'stale_timestamp',
        'future_timestamp',
        'missing_signature_header',
        'reserialised_body',
        'signature_without_prefix',
        'uppercase_hex',
      ]),
    );
    for (const c of vectors.cases) expect(c.valid, c.name).toBe(c.reason === undefined);
  });

  it('sign the valid cases exactly as spec §6.4 says, over the path and query of url', () => {
    const valid = vectors.cases.filter((c) => c.valid);
    expect(valid.map((c) => c.name)).toEqual(['valid', 'valid_query_string', 'valid_live_environment', 'valid_non_ascii_body']);
    for (const c of valid) {
      expect(c.headers['svc-signature'], c.name).toBe(hmac(c.encryption_key, c.client_id, c.headers['svc-timestamp']!, c.url, c.raw_body));
      expect(c.headers['svc-signature'], c.name).toMatch(/^sha256=[0-9a-f]{64}$/);
      expect(Math.abs(c.now_ms - Number(c.headers['svc-timestamp']))).toBeLessThanOrEqual(vectors.tolerance_ms);
    }
  });

  it('make each invalid case by the one mistake it names', () => {
    const valid = byName('valid');
    const sig = valid.headers['svc-signature']!;
    const ts = valid.headers['svc-timestamp']!;
    expect(byName('tampered_body').headers).toEqual(valid.headers);
    expect(byName('tampered_body').raw_body).not.toBe(valid.raw_body);
    expect(JSON.parse(byName('reserialised_body').raw_body)).toEqual(JSON.parse(valid.raw_body));
    expect(byName('reserialised_body').raw_body).not.toBe(valid.raw_body);
    expect(byName('signature_without_prefix').headers['svc-signature']).toBe(sig.slice(7));
    expect(byName('uppercase_hex').headers['svc-signature']).toBe(`sha256=${sig.slice(7).toUpperCase()}`);
    expect(byName('missing_signature_header').headers).not.toHaveProperty('svc-signature');
    expect(byName('timestamp_in_seconds').headers['svc-timestamp']).toBe(String(Math.floor(Number(ts) / 1000)));
    expect(Number(byName('stale_timestamp').headers['svc-timestamp'])).toBeLessThan(valid.now_ms - vectors.tolerance_ms);
    expect(Number(byName('future_timestamp').headers['svc-timestamp'])).toBeGreaterThan(valid.now_ms + vectors.tolerance_ms);
    // Correctly signed but for their timestamps: what is refused is the instant, not the HMAC.
    for (const name of ['timestamp_in_seconds', 'stale_timestamp', 'future_timestamp']) {
      const c = byName(name);
      expect(c.headers['svc-signature'], name).toBe(hmac(c.encryption_key, c.client_id, c.headers['svc-timestamp']!, c.url, c.raw_body));
    }
    expect(byName('signed_with_secret_key').headers['svc-signature']).toMatch(/^sha256=[0-9a-f]{64}$/);
    expect(byName('signed_with_secret_key').headers['svc-signature']).not.toBe(sig);
    expect(byName('signed_with_other_environment_key').headers['svc-signature']).toBe(
      hmac(byName('valid_live_environment').encryption_key, valid.client_id, ts, valid.url, valid.raw_body),
    );
  });

  it('carry bodies that are spec §6.2 payloads, as the dispatcher writes them', () => {
    for (const body of VECTOR_BODIES) {
      const parsed = JSON.parse(body) as { event: 'order.settled' };
      expect(webhookPayloadSchema(parsed.event).parse(parsed)).toEqual(parsed);
      expect(JSON.stringify(parsed)).toBe(body);
    }
  });
});
