import type { Partner } from '../auth';
import type { WallClock } from '../clock';
import { httpRequest } from './http-request';
import { RESPONSE_EXCERPT, type Attempt, type Delivery } from './delivery';
import { signAttempt } from './sign-attempt';

export interface TransportOptions {
  wall: WallClock;
  /** Wall ms a receiver has to answer. */
  timeoutMs: number;
  userAgent: string;
}

/**
 * One attempt over HTTP: the signed body and headers (`signAttempt`), the answer (or failure)
 * written into `record`. True when the receiver answered 2xx.
 */
export async function postAttempt(delivery: Delivery, partner: Partner, url: string, number: number, record: Attempt, opts: TransportOptions): Promise<boolean> {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    record.error = `invalid webhook URL ${url}`;
    return false;
  }
  const { headers, body } = signAttempt(delivery, partner, target.pathname + target.search, number, opts);
  const started = performance.now();
  try {
    const res = await httpRequest(target, { method: 'POST', headers, body, timeoutMs: opts.timeoutMs, maxBodyChars: RESPONSE_EXCERPT });
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
