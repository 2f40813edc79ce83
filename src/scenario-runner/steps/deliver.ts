import { sign, type KeySet } from '../../auth';
import { httpRequest } from '../../webhooks/http-request';
import { StepFailure } from '../script/failure';
import { wrongSignature } from '../script/interpolate';
import type { AdversarialKind } from '../script/schema';
import type { StepHandler } from './context';

const DEFAULT_DELIVER_EXPECT: Record<AdversarialKind, number | '2xx' | '4xx' | '5xx'> = {
  bad_signature: '4xx',
  stale_timestamp: '4xx',
  tampered_body: '4xx',
  duplicate: '2xx',
  out_of_order: '2xx',
};

const BUG_NAMES: Record<AdversarialKind, string> = {
  bad_signature: 'a delivery with a bad signature',
  stale_timestamp: 'a delivery with a stale timestamp (10 min old)',
  tampered_body: 'a delivery whose body was changed after signing',
  duplicate: 'a duplicate delivery (same data.reference + event)',
  out_of_order: 'an older event delivered after a newer one',
};

/**
 * `deliver`: a crafted delivery, built from one the target already accepted, sent by the runner
 * straight to the target (not through the sandbox); checks the target's answer.
 */
export const deliver: StepHandler<'deliver'> = async (step, ctx) => {
  const a = step.args;
  const reference = await ctx.referenceOf(a.order);
  const delivered = (await ctx.deliveriesOf(reference)).filter((d) => d.status === 'succeeded');
  if (delivered.length === 0) throw new StepFailure(`no delivered webhook for ${reference} to base a ${a.kind} delivery on`);
  const pick = a.event ? delivered.filter((d) => d.event === a.event).at(-1) : a.kind === 'out_of_order' ? delivered[0] : delivered.at(-1);
  if (!pick) throw new StepFailure(`no delivered ${a.event} webhook for ${reference}`);
  if (a.kind === 'out_of_order' && delivered.indexOf(pick) === delivered.length - 1 && delivered.length > 1) {
    throw new StepFailure('out_of_order needs an event older than the latest delivered one');
  }
  const url = new URL(ctx.targetUrl);
  const keys: KeySet = ctx.partner.keys[pick.environment as 'test' | 'live'];
  let body: string = pick.raw_body;
  let timestamp = Date.now(); // wall clock: the target checks staleness against its own
  if (a.kind === 'stale_timestamp') timestamp -= 10 * 60_000;
  const parts = {
    clientId: ctx.partner.client_id,
    timestamp: String(timestamp),
    method: 'POST',
    path: url.pathname + url.search,
    rawBody: body,
  };
  let signature = sign(parts, keys.encryption_key);
  if (a.kind === 'bad_signature') signature = wrongSignature(body);
  if (a.kind === 'tampered_body') body = tamper(body);
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'svc-signature': signature,
    'svc-timestamp': String(timestamp),
    'svc-event': pick.event,
    'svc-delivery-id': a.kind === 'duplicate' ? pick.id : `${pick.id}_${a.kind}`,
    'svc-attempt': String(pick.attempts.length + 1),
  };
  let status: number;
  try {
    status = (await httpRequest(url, { method: 'POST', headers, body, timeoutMs: 15_000 })).status;
  } catch (error) {
    throw new StepFailure(`the target did not answer ${BUG_NAMES[a.kind]}: ${(error as Error).message}`);
  }
  const want = a.expect_status ?? DEFAULT_DELIVER_EXPECT[a.kind];
  const ok = typeof want === 'number' ? status === want : String(status)[0] === want[0];
  if (!ok) {
    const verb = want === '4xx' || (typeof want === 'number' && want >= 400) ? 'accepted' : 'refused';
    throw new StepFailure(`the target ${verb} ${BUG_NAMES[a.kind]}: it answered ${status}, expected ${want}`, want, status);
  }
};

/** Changes one value in a webhook body, keeping it valid JSON (the signature no longer matches). */
function tamper(body: string): string {
  try {
    const parsed = JSON.parse(body);
    if (parsed?.data && typeof parsed.data === 'object') {
      parsed.data.amount_settled = (Number(parsed.data.amount_settled) || 0) + 1_000_000;
      return JSON.stringify(parsed);
    }
  } catch {
    // fall through
  }
  return `${body} `;
}
