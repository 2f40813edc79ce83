import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { ISO } from '../clock';
import { z } from 'zod';
import { ENVIRONMENTS } from '../reference/fixtures.schema';
import { Instant } from '../shared/schemas';
import { DeliveryStatusSchema, WebhookEventSchema, type DeliveryStatus, type DeliveryView } from './delivery.schemas';

export type { DeliveryStatus };


/** Delivery state: one event to one receiver, with every attempt (CONTRACT §5); a snapshot's check. */
export const AttemptRecordSchema = z.object({
  number: z.number().int().positive(),
  manual: z.boolean(),
  url: z.string().nullable(),
  virtual_at: Instant,
  wall_at: Instant,
  duration_ms: z.number().nonnegative(),
  http_status: z.number().int().nullable(),
  error: z.string().nullable(),
  response_excerpt: z.string().nullable(),
});

export const DeliveryRecordSchema = z.object({
  id: z.string().min(1),
  client_id: z.string().min(1),
  environment: z.enum(ENVIRONMENTS),
  order: z.string().nullable(),
  event: WebhookEventSchema,
  body: z.string(),
  urlOverride: z.string().nullable(),
  source: z.enum(['lifecycle', 'manual']),
  status: DeliveryStatusSchema,
  attempts: z.array(AttemptRecordSchema),
  automaticAttempts: z.number().int().nonnegative(),
  next_attempt_at: Instant.nullable(),
  created_at: Instant,
  inFlight: z.boolean(),
});

export type Attempt = z.output<typeof AttemptRecordSchema>;
export type DeliveryRecord = z.output<typeof DeliveryRecordSchema>;
/**
 * A delivery as the log holds it: `timer` is its pending retry on the clock; once it is done
 * (succeeded or failed) its body is kept deflated (`packed`), read back with `bodyOf`. Neither
 * is in a snapshot.
 */
export type Delivery = DeliveryRecord & { timer: number | null; packed: boolean };

/**
 * A preset dictionary for webhook bodies: the keys and common values of `{event, data: <order
 * summary>}`, so a ~650-byte body deflates to ~100 (issue 12: memory with every event delivered).
 */
const DICTIONARY = Buffer.from(
  '{"event":"order.asset_released","data":{"reference":"ORD","merchant_reference":null,"customer_reference":"","type":"onramp",' +
    '"from":{"currency":"NGN","network":"base-sepolia","amount":},"to":{"currency":"USDT","network":"base-sepolia","amount":},' +
    '"pricing":{"base_currency":"USDT","quote_currency":"NGN","exchange_rate":},"fee":{"currency":"NGN","network_fee":,"protocol_fee":,' +
    '"partner_fee":0,"vat":,"total":,"fee_in_rate":false},"metadata":null,"amount_paid":0,"amount_settled":0,"amount_refunded":0,' +
    '"percentage_settled":0,"status":"awaiting_user_payment","created_at":"2026-01-15T12:00:00.000Z","updated_at":"2026-01-15T12:00:00.000Z"}}',
);

/** Keeps a finished delivery's body deflated (a one-byte string: no Buffer overhead per delivery). */
export function packBody(d: Delivery): void {
  if (d.packed) return;
  d.body = deflateRawSync(d.body, { dictionary: DICTIONARY }).toString('latin1');
  d.packed = true;
}

/** The exact body sent, whether or not it is kept deflated. */
export function bodyOf(d: Delivery): string {
  return d.packed ? inflateRawSync(Buffer.from(d.body, 'latin1'), { dictionary: DICTIONARY }).toString('utf8') : d.body;
}

/** The delivery as a snapshot keeps it (CONTRACT §13): the body as sent, no live handles. */
export function deliveryRecord(d: Delivery): DeliveryRecord {
  return structuredClone(deliveryRecordView(d));
}

/** The snapshot record of a delivery sharing the live one's attempts: to serialise at once, not to keep. */
export function deliveryRecordView(d: Delivery): DeliveryRecord {
  const { timer: _timer, packed: _packed, ...rest } = d;
  return { ...rest, body: bodyOf(d) };
}

/** The delivery log's view of a delivery (CONTRACT §4). */
export function deliveryView(d: Delivery): DeliveryView {
  const body = bodyOf(d);
  let payload: unknown = body;
  try {
    payload = JSON.parse(body);
  } catch {
    // keep the raw string
  }
  return {
    id: d.id,
    client_id: d.client_id,
    environment: d.environment,
    order: d.order,
    event: d.event,
    status: d.status,
    in_flight: d.inFlight,
    source: d.source,
    url: d.urlOverride,
    payload,
    raw_body: body,
    attempts: d.attempts.map((a) => ({
      number: a.number,
      manual: a.manual,
      url: a.url,
      virtual_at: ISO(a.virtual_at),
      wall_at: ISO(a.wall_at),
      duration_ms: a.duration_ms,
      http_status: a.http_status,
      error: a.error,
      response_excerpt: a.response_excerpt,
    })),
    next_attempt_at: d.next_attempt_at === null ? null : ISO(d.next_attempt_at),
    created_at: ISO(d.created_at),
  };
}

