import { sign } from '../auth';
import type { WebhookEvent } from '../shared/events';

/** What one delivery attempt is signed over and labelled with (CONTRACT §5, spec §6.3 and §6.4). */
export interface DeliverySigning {
  clientId: string;
  /** The `enc_*` key of the delivery's environment. */
  encryptionKey: string;
  /** The receiver's URL: its path and query are signed, never its host. */
  url: URL;
  /** The exact body bytes sent. */
  body: string;
  /** Wall time in Unix ms, as the header carries it. */
  timestamp: string;
  event: WebhookEvent;
  deliveryId: string;
  attempt: number;
}

/**
 * The headers of one delivery attempt, signed per spec §6.4: `sha256=` + hex HMAC-SHA256 of
 * `clientId|timestamp|POST|path?query|rawBody` keyed with `enc_*`. The dispatcher sends these
 * and the webhook signature vectors (vectors.ts) are made with them.
 */
export function deliveryHeaders(d: DeliverySigning): Record<string, string> {
  return {
    'content-type': 'application/json',
    'svc-signature': sign({ clientId: d.clientId, timestamp: d.timestamp, method: 'POST', path: signedPath(d.url), rawBody: d.body }, d.encryptionKey),
    'svc-timestamp': d.timestamp,
    'svc-event': d.event,
    'svc-delivery-id': d.deliveryId,
    'svc-attempt': String(d.attempt),
  };
}

/** Spec §6.4: the path signed is the pathname plus query string of the receiver's URL, no host. */
export function signedPath(url: URL): string {
  return url.pathname + url.search;
}
