import * as z from 'zod';
import { sign } from '../auth';
import type { WebhookEvent } from '../shared/events';
import { deliveryHeaders, signedPath } from './delivery-headers';

/**
 * Webhook signature test vectors (CONTRACT §18): deliveries signed by the sandbox's own signer
 * (`deliveryHeaders`, what the dispatcher sends) and the known mistakes of spec §5.2 and §6.4,
 * each saying whether a correct verifier accepts it. Fixed keys, instants and bodies: the same
 * document every time, committed as docs/webhook-signature-vectors.json, served by
 * `GET /sandbox/webhooks/vectors` and printed by `ramp-sandbox vectors`.
 */

/** Why a verifier refuses a case, named as `verifyWebhook`'s `WebhookVerificationError.reason` does. */
const VECTOR_REASONS = ['bad_signature', 'stale_timestamp', 'bad_timestamp', 'missing_signature', 'missing_timestamp'] as const;
export type VectorReason = (typeof VECTOR_REASONS)[number];

const WebhookVectorSchema = z
  .object({
    name: z.string(),
    description: z.string(),
    client_id: z.string().meta({ description: 'the partner reference the receiver expects' }),
    encryption_key: z.string().meta({ description: 'the enc_* key the receiver holds' }),
    url: z.string().meta({ description: "the receiver's webhook URL: its path and query are what is signed" }),
    now_ms: z.number().int().meta({ description: "the receiver's wall clock when the delivery arrives (Unix ms)" }),
    headers: z.record(z.string(), z.string()).meta({ description: 'the delivery headers as received (lowercase names)' }),
    raw_body: z.string().meta({ description: 'the body as received, to verify before parsing (UTF-8)' }),
    valid: z.boolean().meta({ description: 'whether a correct verifier accepts it' }),
    reason: z.enum(VECTOR_REASONS).optional().meta({ description: 'for an invalid case: the check that refuses it' }),
  })
  .meta({ id: 'WebhookVector' });
export type WebhookVector = z.output<typeof WebhookVectorSchema>;

export const WebhookVectorsSchema = z
  .object({
    description: z.string(),
    canonical_string: z.string(),
    tolerance_ms: z.number().int().meta({ description: 'the staleness tolerance the cases assume, either way from now_ms' }),
    cases: z.array(WebhookVectorSchema),
  })
  .meta({ id: 'WebhookVectors' });
export type WebhookVectors = z.output<typeof WebhookVectorsSchema>;

/** The tolerance the cases assume: verifyWebhook's default, 5 minutes. */
const VECTOR_TOLERANCE_MS = 300_000;

// Fixed, made-up credentials in the formats of spec §5 (prefix, then [A-Za-z0-9_]).
const CLIENT_ID = 'ptr_vectors_7Qm2Xc9LtE4w';
const OTHER_CLIENT_ID = 'ptr_vectors_other_K3v8Rb1N';
const ENC_TEST = 'enc_test_V3ct0rsK3yF0rT3st1ng_2026';
const ENC_LIVE = 'enc_live_V3ct0rsK3yF0rL1v3Us3_2026';
const SK_TEST = 'sk_test_V3ct0rsS3cr3tK3y_N0tF0rS1gn1ng';
const URL_PLAIN = 'https://partner.example/webhooks/ramp';
const URL_QUERY = 'https://partner.example/webhooks/ramp?source=sandbox&tenant=42';
/** The receiver's now (2026-01-15T12:00:00.000Z); deliveries are 2 s old when they arrive. */
const NOW_MS = Date.UTC(2026, 0, 15, 12, 0, 0);
const SENT_MS = NOW_MS - 2_000;

const EVENT: WebhookEvent = 'order.settled';
const SUMMARY = {
  reference: 'ORDVECT0RS2026A1',
  merchant_reference: 'inv_20260115_0042',
  customer_reference: 'cus_vectors',
  type: 'onramp',
  from: { currency: 'NGN', amount: 50000 },
  to: { currency: 'USDT', network: 'base-sepolia', amount: 31.718684 },
  pricing: { base_currency: 'USDT', quote_currency: 'NGN', exchange_rate: 1565.5 },
  fee: { currency: 'NGN', network_fee: 77.5, protocol_fee: 248.28, partner_fee: 0, vat: 18.62, total: 344.4, fee_in_rate: false },
  metadata: null as Record<string, unknown> | null,
  amount_paid: 50000,
  amount_settled: 31.718684,
  amount_refunded: 0,
  percentage_settled: 100,
  status: 'settled',
  created_at: '2026-01-15T11:48:00.000Z',
  updated_at: '2026-01-15T11:59:58.000Z',
};
/** The body exactly as the dispatcher writes one: `JSON.stringify({event, data})`. */
const BODY = JSON.stringify({ event: EVENT, data: SUMMARY });
const BODY_NON_ASCII = JSON.stringify({ event: EVENT, data: { ...SUMMARY, metadata: { note: 'Zoë Ọlámidé — paiement reçu ✓' } } });

/** The body of every case's delivery (a test checks it is a valid spec §6.2 payload). */
export const VECTOR_BODIES = [BODY, BODY_NON_ASCII] as const;

interface Signing {
  url?: string;
  body?: string;
  timestamp?: string;
  clientId?: string;
  key?: string;
}

/** The headers the sandbox sends for one delivery (its own signer), with what a case changes. */
function delivered(s: Signing = {}): Record<string, string> {
  return deliveryHeaders({
    clientId: s.clientId ?? CLIENT_ID,
    encryptionKey: s.key ?? ENC_TEST,
    url: new URL(s.url ?? URL_PLAIN),
    body: s.body ?? BODY,
    timestamp: s.timestamp ?? String(SENT_MS),
    event: EVENT,
    deliveryId: 'dlv_vectors0001',
    attempt: 1,
  });
}

type CaseInput = Pick<WebhookVector, 'name' | 'description'> & Partial<Omit<WebhookVector, 'name' | 'description'>>;

function vector(c: CaseInput): WebhookVector {
  const out: WebhookVector = {
    name: c.name,
    description: c.description,
    client_id: c.client_id ?? CLIENT_ID,
    encryption_key: c.encryption_key ?? ENC_TEST,
    url: c.url ?? URL_PLAIN,
    now_ms: c.now_ms ?? NOW_MS,
    headers: c.headers ?? delivered(),
    raw_body: c.raw_body ?? BODY,
    valid: c.reason === undefined,
  };
  if (c.reason !== undefined) out.reason = c.reason;
  return out;
}

/** `headers` with one header replaced (or removed with `undefined`). */
function withHeader(headers: Record<string, string>, name: string, value: string | undefined): Record<string, string> {
  const out = { ...headers };
  if (value === undefined) delete out[name];
  else out[name] = value;
  return out;
}

/** Reorders an object's keys, last first, at every level: the same JSON value, other bytes. */
function reversedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reversedKeys);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value)
      .reverse()
      .map(([k, v]) => [k, reversedKeys(v)]),
  );
}

/** The test vectors of CONTRACT §18, built afresh (a pure function of the constants above). */
export function webhookSignatureVectors(): WebhookVectors {
  const sig = (s: Signing) => delivered(s)['svc-signature']!;
  const plainPath = signedPath(new URL(URL_PLAIN));
  const cases: WebhookVector[] = [
    vector({
      name: 'valid',
      description: 'A delivery as the sandbox sends it, 2 s old: accept it.',
    }),
    vector({
      name: 'valid_query_string',
      description:
        'The webhook URL has a query string: the signed path is the pathname plus the query (`/webhooks/ramp?source=sandbox&tenant=42`).',
      url: URL_QUERY,
      headers: delivered({ url: URL_QUERY }),
    }),
    vector({
      name: 'valid_live_environment',
      description: "A live order's delivery, signed with the live enc_* key the receiver holds for live deliveries.",
      encryption_key: ENC_LIVE,
      headers: delivered({ key: ENC_LIVE }),
    }),
    vector({
      name: 'valid_non_ascii_body',
      description: 'The body holds non-ASCII characters: the HMAC is over its UTF-8 bytes, exactly as received.',
      raw_body: BODY_NON_ASCII,
      headers: delivered({ body: BODY_NON_ASCII }),
    }),
    vector({
      name: 'tampered_body',
      description: 'The body was changed after signing (amount_settled): the signature no longer matches.',
      raw_body: BODY.replace('"amount_settled":31.718684', '"amount_settled":317.18684'),
      reason: 'bad_signature',
    }),
    vector({
      name: 'signed_with_secret_key',
      description: 'Signed with the sk_* secret key instead of the enc_* encryption key (spec §5.2: a known mistake).',
      headers: delivered({ key: SK_TEST }),
      reason: 'bad_signature',
    }),
    vector({
      name: 'signed_with_other_environment_key',
      description: "A test delivery signed with the live enc_* key: the receiver verifies with the key of the delivery's environment.",
      headers: delivered({ key: ENC_LIVE }),
      reason: 'bad_signature',
    }),
    vector({
      name: 'signed_with_other_client_id',
      description: 'Signed with another partner reference in the canonical string.',
      headers: delivered({ clientId: OTHER_CLIENT_ID }),
      reason: 'bad_signature',
    }),
    vector({
      name: 'signed_path_without_query',
      description: 'The URL has a query string but the signature covers the pathname alone.',
      url: URL_QUERY,
      headers: withHeader(delivered({ url: URL_QUERY }), 'svc-signature', sig({ url: URL_PLAIN })),
      reason: 'bad_signature',
    }),
    vector({
      name: 'signed_full_url',
      description: `The signature covers the whole URL (scheme and host too) instead of the path \`${plainPath}\`.`,
      headers: withHeader(
        delivered(),
        'svc-signature',
        sign({ clientId: CLIENT_ID, timestamp: String(SENT_MS), method: 'POST', path: URL_PLAIN, rawBody: BODY }, ENC_TEST),
      ),
      reason: 'bad_signature',
    }),
    vector({
      name: 'timestamp_in_seconds',
      description: 'svc-timestamp (and the signed string) in Unix seconds, not milliseconds: refuse it, however well it is signed.',
      headers: delivered({ timestamp: String(Math.floor(SENT_MS / 1000)) }),
      reason: 'bad_timestamp',
    }),
    vector({
      name: 'stale_timestamp',
      description: `Correctly signed, but sent 301 s before now_ms: older than the ${VECTOR_TOLERANCE_MS / 1000} s tolerance (a replay).`,
      headers: delivered({ timestamp: String(NOW_MS - 301_000) }),
      reason: 'stale_timestamp',
    }),
    vector({
      name: 'future_timestamp',
      description: `Correctly signed, but stamped 301 s after now_ms: beyond the ${VECTOR_TOLERANCE_MS / 1000} s tolerance the other way.`,
      headers: delivered({ timestamp: String(NOW_MS + 301_000) }),
      reason: 'stale_timestamp',
    }),
    vector({
      name: 'missing_signature_header',
      description: 'No svc-signature header.',
      headers: withHeader(delivered(), 'svc-signature', undefined),
      reason: 'missing_signature',
    }),
    vector({
      name: 'missing_timestamp_header',
      description: 'No svc-timestamp header.',
      headers: withHeader(delivered(), 'svc-timestamp', undefined),
      reason: 'missing_timestamp',
    }),
    vector({
      name: 'reserialised_body',
      description:
        'The signature is over the bytes sent, but the body given to the verifier was parsed and serialised again with its keys in another order: the same JSON value, other bytes. Verify the raw body before parsing it.',
      raw_body: JSON.stringify(reversedKeys(JSON.parse(BODY))),
      reason: 'bad_signature',
    }),
    vector({
      name: 'signature_without_prefix',
      description: 'The right HMAC in hex, without the `sha256=` prefix.',
      headers: withHeader(delivered(), 'svc-signature', sig({}).slice('sha256='.length)),
      reason: 'bad_signature',
    }),
    vector({
      name: 'uppercase_hex',
      description:
        'The right HMAC with its hex in uppercase: the header is `sha256=` and lowercase hex (spec §5.2), compared as a string in constant time.',
      headers: withHeader(delivered(), 'svc-signature', `sha256=${sig({}).slice('sha256='.length).toUpperCase()}`),
      reason: 'bad_signature',
    }),
  ];
  return {
    description:
      'Webhook signature test vectors of ramp-sandbox (CONTRACT §18, spec §6.4). For each case, verify raw_body and headers as your receiver would, with client_id, encryption_key, the path and query of url, and now_ms as the current time; accept exactly the cases where valid is true.',
    canonical_string:
      'clientId|svc-timestamp|POST|path?query|rawBody, HMAC-SHA256 keyed with enc_*, sent as svc-signature: sha256=<lowercase hex>',
    tolerance_ms: VECTOR_TOLERANCE_MS,
    cases,
  };
}

/** The vectors as the committed file and `ramp-sandbox vectors` write them: 2-space JSON and a newline. */
export function webhookSignatureVectorsJson(vectors: WebhookVectors = webhookSignatureVectors()): string {
  return `${JSON.stringify(vectors, null, 2)}\n`;
}
