import { createHmac } from 'node:crypto';
import { sign } from '../auth';
import type { DeliveryProbe } from './delivery';
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
    'svc-signature': sign(
      { clientId: d.clientId, timestamp: d.timestamp, method: 'POST', path: signedPath(d.url), rawBody: d.body },
      d.encryptionKey,
    ),
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

/** How far back a stale-timestamp probe's `svc-timestamp` is (CONTRACT §21; twice the 5 min a receiver allows at most). */
const STALE_PROBE_MS = 10 * 60_000;

/**
 * The headers and body one attempt sends: signed as `deliveryHeaders` signs, or, for a readiness
 * probe (CONTRACT §21, the adversarial deliveries of CONTRACT §6), made wrong on purpose:
 * `bad_signature` signed with a key that is not the partner's, `stale_timestamp` signed over a
 * timestamp 10 minutes old, `tampered_body` the body laid out anew after signing (whitespace
 * only: the bytes differ, the parsed JSON does not), `duplicate` the
 * repeated delivery's own `svc-delivery-id` and body, `out_of_order` an older event's body sent
 * after newer ones (both well signed).
 */
export function probeOrPlain(delivery: { probe?: DeliveryProbe }, d: DeliverySigning): { headers: Record<string, string>; body: string } {
  const probe = delivery.probe;
  if (!probe) return { headers: deliveryHeaders(d), body: d.body };
  switch (probe.kind) {
    case 'stale_timestamp':
      return { headers: deliveryHeaders({ ...d, timestamp: String(Number(d.timestamp) - STALE_PROBE_MS) }), body: d.body };
    case 'bad_signature': {
      const headers = deliveryHeaders(d);
      headers['svc-signature'] = `sha256=${createHmac('sha256', 'enc_test_not_the_partner_key_0000').update(d.body).digest('hex')}`;
      return { headers, body: d.body };
    }
    case 'tampered_body':
      return { headers: deliveryHeaders(d), body: tampered(d.body) };
    case 'duplicate':
      return { headers: deliveryHeaders({ ...d, deliveryId: probe.of }), body: d.body };
    case 'out_of_order':
      return { headers: deliveryHeaders(d), body: d.body };
  }
}

/**
 * The same JSON laid out differently after signing: the bytes changed, the parsed value did not.
 * A receiver that verifies the raw bytes (spec §6.4: "the raw body must be read before JSON
 * parsing") refuses it; one that does not verify, or verifies the JSON parsed and serialised
 * again, accepts it.
 */
function tampered(body: string): string {
  try {
    const laidOut = JSON.stringify(JSON.parse(body), null, 1);
    if (laidOut !== body) return laidOut;
  } catch {
    // not JSON: a byte more is a change all the same
  }
  return `${body} `;
}
