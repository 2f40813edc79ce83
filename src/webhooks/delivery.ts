import { ISO } from '../clock';
import * as z from 'zod';
import { ENVIRONMENTS } from '../reference/fixtures.schema';
import { DueInstant, Instant } from '../shared/schemas';
import { DeliveryStatusSchema, WebhookEventSchema, type DeliveryStatus, type DeliveryView } from './delivery.schemas';
import { PackedBody } from './packed-body';
import { CHAOS_MARKS } from './chaos';

export type { DeliveryStatus };

/** How much of a receiver's answer the log keeps (characters). */
export const RESPONSE_EXCERPT = 500;

/** Delivery state: one event to one receiver, with every attempt (CONTRACT §5); a snapshot's check. */
export const AttemptRecordSchema = z.object({
  number: z.number().int().positive(),
  manual: z.boolean(),
  url: z.string().nullable(),
  virtual_at: Instant,
  wall_at: Instant,
  duration_ms: z.number().int().nonnegative(),
  http_status: z.number().int().nullable(),
  error: z.string().nullable(),
  response_excerpt: z.string().nullable(),
  /** Handed to a listener (CONTRACT §17 `listen`) instead of POSTed to `url`. */
  via: z.literal('listener').optional(),
});

/** CONTRACT §21: the adversarial deliveries of spec §6 a readiness run sends once each. */
export const PROBE_KINDS = ['bad_signature', 'stale_timestamp', 'tampered_body', 'duplicate', 'out_of_order'] as const;
export type ProbeKind = (typeof PROBE_KINDS)[number];
/** A probe delivery: which kind, and the delivery whose body (and, for a duplicate, id) it repeats. */
export const DeliveryProbeSchema = z.object({ kind: z.enum(PROBE_KINDS), of: z.string().min(1) });
export type DeliveryProbe = z.output<typeof DeliveryProbeSchema>;

export const DeliveryRecordSchema = z.object({
  id: z.string().min(1),
  client_id: z.string().min(1),
  environment: z.enum(ENVIRONMENTS),
  order: z.string().nullable(),
  event: WebhookEventSchema,
  body: z.string(),
  urlOverride: z.string().nullable(),
  source: z.enum(['lifecycle', 'manual', 'probe']),
  /** A readiness probe (CONTRACT §21): sent once, never retried. */
  probe: DeliveryProbeSchema.optional(),
  status: DeliveryStatusSchema,
  attempts: z.array(AttemptRecordSchema),
  automaticAttempts: z.number().int().nonnegative(),
  next_attempt_at: DueInstant.nullable(),
  created_at: Instant,
  inFlight: z.boolean(),
  /** CONTRACT §22: what webhook chaos did to it (absent: nothing). */
  chaos: z.array(z.enum(CHAOS_MARKS)).max(CHAOS_MARKS.length).optional(),
  /** A chaos duplicate: the delivery it repeats. */
  duplicate_of: z.string().optional(),
});

export type Attempt = z.output<typeof AttemptRecordSchema>;
export type DeliveryRecord = z.output<typeof DeliveryRecordSchema>;
/**
 * A delivery as the log holds it: `timer` is its pending retry on the clock; `body` is the JSON
 * as sent while the delivery may still be sent, and a `PackedBody` once it is done (succeeded or
 * failed), read back with `bodyOf`. A snapshot keeps neither the timer nor the packing.
 */
export type Delivery = Omit<DeliveryRecord, 'body'> & { body: string | PackedBody; timer: number | null };

/**
 * Keeps a finished delivery packed (once: packing a packed body changes nothing): its body
 * deflated, its attempts in an array of their exact number (a pushed array keeps room for 17,
 * ~130 bytes of slack per delivery for as long as the log keeps it), and a short answer of the
 * receiver (`ok`, `{"received":true}`) shared with every other attempt of the same log that got
 * the same one (`answers`: the log's own table, never the process's).
 */
export function packBody(d: Delivery, answers: SharedAnswers): void {
  if (typeof d.body === 'string') d.body = PackedBody.pack(d.body);
  d.attempts = d.attempts.slice();
  for (const a of d.attempts) if (a.response_excerpt !== null) a.response_excerpt = shared(a.response_excerpt, answers);
}

/** Short answers a delivery log has seen, each kept once; at most SHARED_MAX (then new ones are kept as they are). */
export type SharedAnswers = Map<string, string>;
const SHARED_MAX = 1024;
const SHARED_LENGTH = 64;

function shared(text: string, answers: SharedAnswers): string {
  if (text.length > SHARED_LENGTH) return text;
  const known = answers.get(text);
  if (known !== undefined) return known;
  if (answers.size < SHARED_MAX) answers.set(text, text);
  return text;
}

/** The exact body sent, whether or not it is kept packed. */
export function bodyOf(d: Delivery): string {
  return typeof d.body === 'string' ? d.body : d.body.unpack();
}

/** The delivery as a snapshot keeps it (CONTRACT §13): the body as sent, no live handles. */
export function deliveryRecord(d: Delivery): DeliveryRecord {
  return structuredClone(deliveryRecordView(d));
}

/** The snapshot record of a delivery sharing the live one's attempts: to serialise at once, not to keep. */
export function deliveryRecordView(d: Delivery): DeliveryRecord {
  const { timer: _timer, ...rest } = d;
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
    ...(d.probe ? { probe: d.probe } : {}),
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
      ...(a.via ? { via: a.via } : {}),
    })),
    next_attempt_at: d.next_attempt_at === null ? null : ISO(d.next_attempt_at),
    created_at: ISO(d.created_at),
    ...(d.chaos ? { chaos: [...d.chaos] } : {}),
    ...(d.duplicate_of !== undefined ? { duplicate_of: d.duplicate_of } : {}),
  };
}
