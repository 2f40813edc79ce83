import type { Context } from 'koa';
import type { AuthContext } from '../../auth';
import type { Clock, WallClock } from '../../clock';
import type { Bus } from '../../shared/bus';
import type { RequestLog } from './request-log';
import { maskedHeaders, ownCopy, ownExcerpt, shownResponseHeaders, type RawRecord } from './request-log.record';
import { BODY_EXCERPT, FIELD_EXCERPT } from './request-log.schemas';
import { maskKeys, redactText, redactUrl } from '../edge/redact';
import { cutText } from '../../shared/excerpt';
import type { Outcome } from '../edge/errors';
import { rawBodyOf } from '../edge/body';

/**
 * What the recorder publishes: a /v1 request was recorded, with its id and the record as the
 * log keeps it (the dashboard's live feed counts them; `ramp-sandbox tail` shows each). A
 * listener reads it at once and keeps none of it: it is the log's own.
 */
export interface RequestEvents {
  'request.recorded': { readonly id: string; readonly raw: Readonly<RawRecord> };
}

/**
 * The request inspector's recorder (CONTRACT §11): every /v1 request, once answered, with
 * its auth, the signature hint when one failed, the injected fault, and both bodies cut at
 * 4 KiB. Request headers are kept with key material masked, and a few of the answer's. Each
 * record is published on `bus`. The record is written when the answer is rendered: a turn's
 * requests reach this point together, after the turn's routes (decision 025), so the recorder's
 * code runs warm without a batch of its own (it had one, decision 023). A record that cannot be
 * written is dropped with a warning: it never fails its request's answer. With an admin token
 * (`secret`), its value is scrubbed from every field of the record wherever it shows (the path,
 * under any query name; headers; message; hint; bodies), so neither the inspector, the tail
 * stream nor the HAR export shows it (CONTRACT §9).
 */
export function recordRequests(
  log: RequestLog,
  clock: Clock,
  wall: WallClock,
  bus?: Pick<Bus<RequestEvents>, 'emit' | 'has'>,
  secret?: string,
): (ctx: Context, outcome: Outcome) => void {
  return (ctx, outcome) => {
    const path = ctx.path;
    if (path !== '/v1' && !path.startsWith('/v1/')) return;
    try {
      write(ctx, outcome, wall.now(), clock.now());
    } catch (error) {
      process.emitWarning(`request inspector: a request could not be recorded: ${error instanceof Error ? error.message : String(error)}`);
    }
  };

  function write(ctx: Context, outcome: Outcome, wallMs: number, virtualMs: number): void {
    const auth = ctx.state.auth as AuthContext | undefined;
    // A cut answer (CONTRACT §22 truncate) went out in part, outside Koa: it is not a dropped one.
    const cut = ctx.state.faultCut as string | undefined;
    const dropped = ctx.respond === false && cut === undefined;
    const status = dropped ? 0 : ctx.status;
    const headers = ctx.req.headers;
    // Only numbers and strings of its own (CONTRACT §9): nothing that keeps the request alive.
    const raw: RawRecord = {
      wallMs,
      virtualMs,
      method: ctx.method,
      // The admin token never shows, even when sent to /v1 as a query parameter.
      path: ownExcerpt(redactUrl(ctx.originalUrl, secret), FIELD_EXCERPT),
      status,
      ms: outcome.ms,
      auth: auth ? auth.kind : status === 401 || status === 403 ? 'failed' : 'none',
      headers: maskedHeaders(headers),
    };
    const sentId = auth ? undefined : headerValue(headers['svc-client-id']);
    const clientId = auth?.partner.client_id ?? (sentId && ownCopy(cutText(sentId, 128)));
    if (clientId) raw.clientId = clientId;
    if (auth) raw.environment = auth.env;
    const error = outcome.error ?? (ctx.state.faultCutError as Outcome['error']);
    if (error) {
      if (!error.alternative) raw.code = error.code;
      raw.message = ownCopy(cutText(error.message, FIELD_EXCERPT));
    }
    if (dropped)
      raw.message = ctx.state.faultReset
        ? 'connection reset without an answer (injected fault)'
        : 'connection closed without an answer (injected fault)';
    if (cut) raw.message = cut;
    const hint = ctx.res.getHeader('svc-sandbox-hint');
    if (hint) raw.hint = ownCopy(cutText(String(hint), FIELD_EXCERPT));
    if (!dropped) {
      const res = ctx.res;
      const responseHeaders = shownResponseHeaders((name) => res.getHeader(name), raw.hint);
      if (responseHeaders) raw.responseHeaders = responseHeaders;
    }
    const fault = ctx.state.faultId as string | undefined;
    if (fault) raw.fault = fault;
    const body = rawBodyOf(ctx);
    if (body) raw.requestBody = ownExcerpt(body, BODY_EXCERPT);
    const answer: unknown = ctx.body;
    if (!dropped && typeof answer === 'string' && answer) raw.responseBody = ownExcerpt(answer, BODY_EXCERPT);
    scrub(raw, secret);
    const id = log.recordRaw(raw);
    if (bus?.has('request.recorded')) bus.emit('request.recorded', { id, raw });
  }
}

/** The record's free text with the admin token scrubbed and keys masked (the path was redacted as a URL). */
function scrub(raw: RawRecord, secret: string | undefined): void {
  const clean = (text: string) => maskKeys(redactText(text, secret));
  for (const headers of [raw.headers, raw.responseHeaders]) {
    if (headers) for (const [name, value] of Object.entries(headers)) headers[name] = clean(value);
  }
  if (raw.clientId !== undefined) raw.clientId = clean(raw.clientId);
  if (raw.message !== undefined) raw.message = clean(raw.message);
  if (raw.hint !== undefined) raw.hint = clean(raw.hint);
  if (raw.requestBody !== undefined) raw.requestBody = clean(raw.requestBody);
  if (raw.responseBody !== undefined) raw.responseBody = clean(raw.responseBody);
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value || undefined;
}
