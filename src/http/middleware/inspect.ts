import type { Context } from 'koa';
import type { AuthContext } from '../../auth';
import type { Clock, WallClock } from '../../clock';
import { BODY_EXCERPT, type RawRecord, type RequestLog } from '../../inspector/request-log';
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
    const headers = ctx.req.headers;
    // Only references and numbers here: the log turns them into an entry when it is read.
    const raw: RawRecord = {
      wallMs: wall.now(),
      virtualMs: clock.now(),
      method: ctx.method,
      path: ctx.originalUrl,
      status,
      ms: outcome.ms,
      auth: auth ? auth.kind : status === 401 || status === 403 ? 'failed' : 'none',
      headers,
    };
    const clientId = auth?.partner.client_id ?? headerValue(headers['svc-client-id']);
    if (clientId) raw.clientId = clientId;
    if (auth) raw.environment = auth.env;
    const error = outcome.error;
    if (error) {
      if (!error.alternative) raw.code = error.code;
      raw.message = error.message;
    }
    if (dropped) raw.message = 'connection closed without an answer (injected fault)';
    const hint = ctx.res.getHeader('svc-sandbox-hint');
    if (hint) raw.hint = String(hint);
    const fault = ctx.state.faultId as string | undefined;
    if (fault) raw.fault = fault;
    // Bodies are cut now when they are long: the log must not hold a 1 MiB body for later.
    const body = rawBodyOf(ctx);
    if (body) raw.requestBody = excerpt(body);
    const answer: unknown = ctx.body;
    if (!dropped && typeof answer === 'string' && answer) raw.responseBody = excerpt(answer);
    log.recordRaw(raw);
  };
}

function excerpt(text: string): string {
  return text.length > BODY_EXCERPT ? text.slice(0, BODY_EXCERPT) : text;
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value || undefined;
}
