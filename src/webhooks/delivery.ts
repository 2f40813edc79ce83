import { ISO } from '../clock';
import type { Environment } from '../reference';
import type { WebhookEvent } from '../shared/events';
import type { DeliveryStatus, DeliveryView } from './delivery.schemas';

export type { DeliveryStatus };

/** Delivery state: one event to one receiver, with every attempt (CONTRACT §5). */
export interface Attempt {
  number: number;
  manual: boolean;
  url: string | null;
  virtual_at: number;
  wall_at: number;
  duration_ms: number;
  http_status: number | null;
  error: string | null;
  response_excerpt: string | null;
}

export interface Delivery {
  id: string;
  client_id: string;
  environment: Environment;
  order: string | null;
  event: WebhookEvent;
  /** The exact body sent on every attempt. */
  body: string;
  /** A fixed target (control `send` with `url`); otherwise the partner's current webhook_url. */
  urlOverride: string | null;
  source: 'lifecycle' | 'manual';
  status: DeliveryStatus;
  attempts: Attempt[];
  automaticAttempts: number;
  next_attempt_at: number | null;
  created_at: number;
  inFlight: boolean;
  timer: number | null;
}

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

