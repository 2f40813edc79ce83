import { ISO } from '../clock';
import { z } from 'zod';
import { ENVIRONMENTS } from '../reference/fixtures.schema';
import { DeliveryStatusSchema, WebhookEventSchema, type DeliveryStatus, type DeliveryView } from './delivery.schemas';

export type { DeliveryStatus };

const Instant = z.number().int().nonnegative();

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
/** A delivery as the log holds it (`timer`: its pending retry on the clock, never in a snapshot). */
export type Delivery = z.output<typeof DeliveryRecordSchema> & { timer: number | null };

/** The delivery log's view of a delivery (CONTRACT §4). */
export function deliveryView(d: Delivery): DeliveryView {
  let payload: unknown = d.body;
  try {
    payload = JSON.parse(d.body);
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
    raw_body: d.body,
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

