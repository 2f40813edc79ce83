import { sign, type Partner } from '../auth';
import type { WallClock } from '../clock';
import { bodyOf, type Delivery } from './delivery';

/** One attempt as it is sent: the exact body and the headers that go with it (spec §6.3, CONTRACT §5). */
export interface SignedAttempt {
  headers: Record<string, string>;
  body: string;
}

/**
 * The body of a delivery and its headers for attempt `number`, signed per spec §6.4 over `path`
 * (the path and query the receiver sees) with the partner's encryption key of the delivery's
 * environment, with a fresh wall-clock `svc-timestamp`. What goes over HTTP, or to a listener.
 */
export function signAttempt(delivery: Delivery, partner: Partner, path: string, number: number, opts: { wall: WallClock; userAgent: string }): SignedAttempt {
  // Transport time (CONTRACT §2): the receiver checks staleness against its real clock.
  const timestamp = String(opts.wall.now());
  const body = bodyOf(delivery);
  const signature = sign({ clientId: partner.client_id, timestamp, method: 'POST', path, rawBody: body }, partner.keys[delivery.environment].encryption_key);
  return {
    headers: {
      'content-type': 'application/json',
      'user-agent': opts.userAgent,
      'svc-signature': signature,
      'svc-timestamp': timestamp,
      'svc-event': delivery.event,
      'svc-delivery-id': delivery.id,
      'svc-attempt': String(number),
    },
    body,
  };
}
