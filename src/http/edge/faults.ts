import type { Context, Next } from 'koa';
import type { FaultEffect } from '../faults/fault.store';
import { ApiError } from '../../shared/errors';
import { toApiError } from './errors';

/**
 * Carries out an injected fault (CONTRACT §12, §22) on an authenticated /v1 request. `before`:
 * the request is not carried out; `after`: it is, then its answer is replaced (or lost). Latency
 * is wall time, on top of whatever the request took. `truncate` cuts whatever answer goes out
 * (the route's own, the request carried out; or the injected error's).
 */
export async function applyFault(ctx: Context, effect: FaultEffect, next: Next): Promise<void> {
  ctx.state.faultId = effect.fault.id;
  if (effect.truncate === undefined) return answer(ctx, effect, next);
  const cut = effect.truncate;
  try {
    await answer(ctx, effect, next);
  } catch (caught) {
    const error = toApiError(caught);
    if (!error) throw caught; // our bug: the edge logs it and answers its 500, uncut
    // The envelope the edge would render (edge/errors.ts), rendered here so it can be cut;
    // the inspector records its code as for any error answer.
    ctx.state.faultCutError = error;
    ctx.status = error.status;
    for (const [name, value] of Object.entries(error.headers)) ctx.set(name, value);
    ctx.body = error.alternative
      ? { status: 'failed', message: error.message, data: null }
      : { status: false, code: error.code, message: error.message };
  }
  sendCut(ctx, cut);
}

async function answer(ctx: Context, effect: FaultEffect, next: Next): Promise<void> {
  const replaces = effect.drop || effect.reset || effect.malformed || effect.errorStatus !== undefined;
  if (effect.phase === 'after') {
    let failure: unknown;
    try {
      await next();
    } catch (error) {
      failure = error;
    }
    if (effect.latencyMs > 0) await sleep(effect.latencyMs);
    if (!replaces) {
      if (failure !== undefined) throw failure;
      return;
    }
    // The request was carried out; its answer is what the fault replaces.
    ctx.body = null;
  } else if (effect.latencyMs > 0) {
    await sleep(effect.latencyMs);
  }
  if (effect.drop) {
    ctx.respond = false;
    ctx.req.socket.destroy();
    return;
  }
  if (effect.reset) {
    // CONTRACT §22: a TCP RST (SO_LINGER 0), not a FIN: the client's read fails with ECONNRESET.
    ctx.state.faultReset = true;
    ctx.respond = false;
    ctx.req.socket.resetAndDestroy();
    return;
  }
  // A labelled fault (a readiness probe, CONTRACT §21) says so in its message, which the inspector records.
  const label = effect.fault.note ? `${effect.fault.id}: ${effect.fault.note}` : effect.fault.id;
  if (effect.errorStatus === 429) {
    throw new ApiError('E_RATE_LIMITED', `Rate limit exceeded (injected fault ${label}); retry after 1 s`, {
      headers: { 'Retry-After': '1' },
    });
  }
  if (effect.errorStatus !== undefined) {
    throw new ApiError('E_SANDBOX_FAULT', `injected fault ${label}`, { status: effect.errorStatus });
  }
  if (effect.malformed) {
    // CONTRACT §22: what a broken proxy sends: a 200, a JSON content-type, a body that is not JSON.
    ctx.status = 200;
    ctx.body = malformedBody(effect.fault.id);
    ctx.type = 'application/json';
    return;
  }
  await next();
}

/**
 * The body of a `malformed` answer (docs/faults-and-inspector.md): an HTML error page, as a
 * proxy in front of an API sends, under `Content-Type: application/json`.
 */
const malformedBody = (faultId: string) =>
  `<html><body><h1>200 OK</h1><p>injected fault ${faultId}: this answer is not JSON</p></body></html>\n`;

/**
 * Sends the answer's status and headers with the Content-Length of the whole body, then only its
 * first `cut` bytes, then closes the connection (CONTRACT §22 `truncate`). Koa does not respond.
 */
function sendCut(ctx: Context, cut: number): void {
  const body: unknown = ctx.body;
  const text = body == null ? '' : Buffer.isBuffer(body) || typeof body === 'string' ? body : JSON.stringify(body);
  // The inspector records the answer as the route made it (a string), and says it was cut.
  if (typeof body !== 'string' && !Buffer.isBuffer(body) && body != null) ctx.body = text;
  const bytes = Buffer.isBuffer(text) ? text : Buffer.from(text);
  const sent = Math.min(cut, bytes.length);
  ctx.state.faultCut = `answer cut after ${sent} of ${bytes.length} bytes, then the connection closed (injected fault)`;
  ctx.respond = false;
  const res = ctx.res;
  res.statusCode = ctx.status;
  res.setHeader('Content-Length', bytes.length);
  res.flushHeaders();
  if (sent > 0) res.write(bytes.subarray(0, sent));
  // end(), not destroy(): the head and the bytes written go out first, then the FIN.
  ctx.req.socket.end();
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
