import type { Context } from 'koa';
import type { AuthContext } from '../../auth';
import type { Clock, WallClock } from '../../clock';
import { BODY_EXCERPT, maskedHeaders, type RecordedRequest, type RequestLog } from '../../inspector/request-log';
import type { Outcome } from '../app';
import { rawBodyOf } from './body';

/**
 * The request inspector's recorder (CONTRACT §11): every /v1 request, once answered, with
 * its auth, the signature hint when one failed, the injected fault, and both bodies cut at
 * 4 KiB. Headers are kept with key material masked.
 */
export function recordRequests(log: RequestLog, clock: Clock, wall: WallClock): (ctx: Context, outcome: Outcome) => void {
  return (ctx, outcome) => {
    const path = ctx.path;
    if (path !== '/v1' && !path.startsWith('/v1/')) return;
    const auth = ctx.state.auth as AuthContext | undefined;
    const dropped = ctx.respond === false;
    const status = dropped ? 0 : ctx.status;
    const entry: Omit<RecordedRequest, 'id'> = {
      at: new Date(wall.now()).toISOString(),
      virtual_at: new Date(clock.now()).toISOString(),
      method: ctx.method,
      path: ctx.originalUrl,
      status,
      duration_ms: Math.round(outcome.ms * 100) / 100,
      auth: auth ? auth.kind : status === 401 || status === 403 ? 'failed' : 'none',
      headers: maskedHeaders(ctx.req.headers),
    };
    const clientId = auth?.partner.client_id ?? headerValue(ctx.req.headers['svc-client-id']);
    if (clientId) entry.client_id = clientId.slice(0, 128);
    if (auth) entry.environment = auth.env;
    const error = outcome.error;
    if (error) {
      if (!error.alternative) entry.code = error.code;
      entry.message = error.message;
    }
    if (dropped) entry.message = 'connection closed without an answer (injected fault)';
    const hint = ctx.response.get('svc-sandbox-hint');
    if (hint) entry.hint = hint;
    const fault = ctx.state.faultId as string | undefined;
    if (fault) entry.fault = fault;
    const raw = rawBodyOf(ctx);
    if (raw) entry.request_body = raw.slice(0, BODY_EXCERPT);
    const body: unknown = ctx.body;
    if (!dropped && typeof body === 'string' && body) entry.response_body = body.slice(0, BODY_EXCERPT);
    log.record(entry);
  };
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value || undefined;
}
