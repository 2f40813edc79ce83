import * as z from 'zod';
import { OrderCreatedSummarySchema, OrderSummarySchema } from '../orders/order.responses';
import { ENVIRONMENTS } from '../reference';
import { WEBHOOK_EVENTS, type WebhookEvent } from '../shared/events';
import { DateTime } from '../shared/schemas';
import { CHAOS_MARKS } from './chaos';

/** CONTRACT §4/§5: where a delivery stands. */
export const DeliveryStatusSchema = z.enum(['pending', 'succeeded', 'retrying', 'failed']).meta({ id: 'DeliveryStatus' });
export type DeliveryStatus = z.output<typeof DeliveryStatusSchema>;

export const WebhookEventSchema = z.enum(WEBHOOK_EVENTS).meta({ id: 'WebhookEvent' });

/** Spec §6.2 webhook body of one event: `{event, data: <order summary>}` (order.created: status awaiting_user_payment). */
export function webhookPayloadSchema(event: WebhookEvent) {
  let schema = PAYLOADS.get(event);
  if (!schema) {
    schema = z
      .object({ event: z.literal(event), data: event === 'order.created' ? OrderCreatedSummarySchema : OrderSummarySchema })
      .meta({ id: `Webhook_${event.replace('.', '_')}`, description: `Spec §6.2: the body of an ${event} delivery` });
    PAYLOADS.set(event, schema);
  }
  return schema;
}
/** One schema per event, made once (the OpenAPI document of every app refers to the same). */
const PAYLOADS = new Map<WebhookEvent, z.ZodType>();

export const AttemptSchema = z
  .object({
    number: z.number().int().positive(),
    manual: z.boolean(),
    url: z.string().nullable(),
    virtual_at: DateTime,
    wall_at: DateTime,
    duration_ms: z.number().int().nonnegative(),
    http_status: z.number().int().nullable(),
    error: z.string().nullable(),
    response_excerpt: z.string().nullable(),
    via: z.literal('listener').optional().meta({
      description: 'handed to a `ramp-sandbox listen` (GET /sandbox/listen) instead of POSTed: `url` is where the listener forwarded it',
    }),
  })
  .meta({ id: 'DeliveryAttempt' });

/** CONTRACT §4 delivery log entry. */
export const DeliverySchema = z
  .object({
    id: z.string(),
    client_id: z.string(),
    environment: z.enum(ENVIRONMENTS),
    order: z.string().nullable(),
    event: WebhookEventSchema,
    status: DeliveryStatusSchema,
    in_flight: z.boolean(),
    source: z
      .enum(['lifecycle', 'manual', 'probe'])
      .meta({ description: '`probe`: an adversarial delivery of a readiness run (CONTRACT §21), sent once, never retried' }),
    probe: z
      .object({
        kind: z.enum(['bad_signature', 'stale_timestamp', 'tampered_body', 'duplicate', 'out_of_order']),
        of: z.string().meta({ description: 'the delivery whose body (and, for a duplicate, svc-delivery-id) it repeats' }),
      })
      .optional()
      .meta({
        id: 'DeliveryProbe',
        description:
          'what the probe does; the receiver must refuse bad_signature, stale_timestamp and tampered_body, and acknowledge duplicate and out_of_order',
      }),
    url: z.string().nullable().meta({ description: 'a fixed target given to send; null: the partner’s webhook_url' }),
    payload: z.unknown().meta({ description: 'the body sent, parsed' }),
    raw_body: z.string(),
    attempts: z.array(AttemptSchema),
    next_attempt_at: DateTime.nullable(),
    created_at: DateTime,
    chaos: z
      .array(z.enum(CHAOS_MARKS))
      .optional()
      .meta({
        description:
          'CONTRACT §22, only when webhook chaos touched it: `duplicate` (a second delivery of the same body), `delayed` (its first attempt held), `reordered` (a later event of its order went first)',
        example: ['delayed', 'reordered'],
      }),
    duplicate_of: z
      .string()
      .optional()
      .meta({ description: 'a chaos duplicate: the id of the delivery it repeats', example: 'dlv_8kq2m4x7p1' }),
  })
  .meta({ id: 'Delivery' });
export type DeliveryView = z.output<typeof DeliverySchema>;
