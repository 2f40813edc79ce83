import type { Context, Next } from 'koa';
import type { FaultEffect } from '../faults/fault.store';
import { ApiError } from '../../shared/errors';

/**
 * Carries out an injected fault (CONTRACT §12) on an authenticated /v1 request. `before`: the
 * request is not carried out; `after`: it is, then its answer is replaced (or lost). Latency
 * is wall time, on top of whatever the request took.
 */
export async function applyFault(ctx: Context, effect: FaultEffect, next: Next): Promise<void> {
  ctx.state.faultId = effect.fault.id;
  if (effect.phase === 'after') {
    let failure: unknown;
    try {
      await next();
    } catch (error) {
      failure = error;
    }
    if (effect.latencyMs > 0) await sleep(effect.latencyMs);
    if (!effect.drop && effect.errorStatus === undefined) {
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
  await next();
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
