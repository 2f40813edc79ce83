import type { Partner } from '../auth';
import type { WallClock } from '../clock';
import { httpRequest } from './http-request';
import { bodyOf, type Attempt, type Delivery } from './delivery';
import { probeOrPlain } from './delivery-headers';

/** How much of a receiver's answer the log keeps. */
const EXCERPT = 500;

export interface TransportOptions {
  wall: WallClock;
  /** Wall ms a receiver has to answer. */
  timeoutMs: number;
  userAgent: string;
}

/**
 * One attempt over HTTP: the body signed per spec §6.4 with the partner's encryption key of the
 * delivery's environment, the `svc-*` headers, the answer (or failure) written into `record`.
 * True when the receiver answered 2xx.
 */
export async function postAttempt(
  delivery: Delivery,
  partner: Partner,
  url: string,
  number: number,
  record: Attempt,
  opts: TransportOptions,
): Promise<boolean> {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    record.error = `invalid webhook URL ${url}`;
    return false;
  }
  // Transport time (CONTRACT §2): the receiver checks staleness against its real clock.
  const timestamp = String(opts.wall.now());
  const { headers, body } = probeOrPlain(delivery, {
    clientId: partner.client_id,
    encryptionKey: partner.keys[delivery.environment].encryption_key,
    url: target,
    timestamp,
    event: delivery.event,
    deliveryId: delivery.id,
    attempt: number,
    body: bodyOf(delivery),
  });
  const started = performance.now();
  try {
    const res = await httpRequest(target, {
      method: 'POST',
      headers: { ...headers, 'user-agent': opts.userAgent },
      body,
      timeoutMs: opts.timeoutMs,
      maxBodyChars: EXCERPT,
    });
    record.http_status = res.status;
    record.response_excerpt = res.text;
    if (res.status < 200 || res.status >= 300) record.error = `HTTP ${res.status}`;
    return res.status >= 200 && res.status < 300;
  } catch (error) {
    record.error = describeFetchError(error, opts.timeoutMs);
    return false;
  } finally {
    record.duration_ms = Math.round(performance.now() - started);
  }
}

function describeFetchError(error: unknown, timeoutMs: number): string {
  const e = error as { name?: string; message?: string; code?: string };
  if (e?.name === 'TimeoutError') return `timed out after ${timeoutMs} ms`;
  if (e?.code === 'ECONNREFUSED') return 'connection refused';
  if (e?.code === 'ECONNRESET' || e?.code === 'EPIPE') return 'connection reset';
  if (e?.code === 'ENOTFOUND' || e?.code === 'EAI_AGAIN') return `host not found (${e.message})`;
  return e?.message || String(error);
}
