import { describe, expect, it } from 'vitest';
import type { CheckDef } from './check';
import {
  accountLookup,
  idempotentCreate,
  keyEnvironment,
  polling,
  quoteTtl,
  rateLimit,
  rawBody,
  referenceData,
  signing,
  timestampMs,
  validationRetry,
} from './checks.client';
import { ackFast, duplicates, outOfOrder, recovers, staleTimestamp, verifySignature } from './checks.receiver';
import type { DeliveryFact, RequestFact, RunFacts } from './facts';

// CONTRACT §21: each check over hand-made facts; a check passes only on evidence (never by default).
let n = 0;
let clock = 1_000_000;
/** A request fact: a signed test request answered 200 by default, `after` ms after the last. */
function req(over: Partial<RequestFact> & { after?: number } = {}): RequestFact {
  const { after = 10, ...rest } = over;
  clock += after;
  n++;
  return {
    id: `req_${n}`,
    start: clock,
    end: clock + 5,
    method: 'GET',
    path: '/v1/networks',
    kind: 'other',
    status: 200,
    auth: 'secret',
    key: 'Bearer sk_test_****abcd',
    keyKind: 'sk',
    env: 'test',
    fingerprint: `fp${n}`,
    hasBody: false,
    ...rest,
  };
}
const get = (path: string, kind: RequestFact['kind'], over: Partial<RequestFact> & { after?: number } = {}) => req({ path, kind, ...over });
const post = (path: string, kind: RequestFact['kind'], over: Partial<RequestFact> & { after?: number } = {}) =>
  req({ method: 'POST', path, kind, hasBody: true, ...over });
const refused = (failure: RequestFact['failure'], over: Partial<RequestFact> = {}) =>
  req({ status: 401, code: 'E_UNAUTHORIZED', auth: 'failed', failure, ...over });

function dlv(over: Partial<DeliveryFact> = {}): DeliveryFact {
  n++;
  return {
    id: `dlv_${n}`,
    order: 'ORD1',
    event: 'order.created',
    attempts: [{ status: 200, ms: 20, error: null }],
    aimed: true,
    gaveUp: false,
    ...over,
  };
}

const facts = (requests: RequestFact[] = [], deliveries: DeliveryFact[] = []): RunFacts => ({ environment: 'test', requests, deliveries });
const status = (c: CheckDef, f: RunFacts, final = false) => c.run(f, { final, probes: true }).status;
const outcome = (c: CheckDef, f: RunFacts, final = false, probes = true) => c.run(f, { final, probes });

describe('client checks (CONTRACT §21)', () => {
  it('signing: passes once a secret-key request verified; fails on a signature failure after it, or when none ever verified', () => {
    expect(outcome(signing, facts())).toMatchObject({ status: 'not_exercised', applies: false });
    expect(status(signing, facts([refused('signature'), req()]))).toBe('pass'); // before the first success: still learning
    expect(status(signing, facts([req(), refused('signature')]))).toBe('fail');
    expect(status(signing, facts([refused('signature'), refused('signature')]))).toBe('fail');
    // A public-key read is no evidence of signing.
    expect(outcome(signing, facts([req({ auth: 'public', keyKind: 'pk', key: 'Bearer pk_test_****abcd' })]))).toMatchObject({
      status: 'not_exercised',
      applies: false,
    });
    // Failures other checks name (seconds, re-serialised body) are theirs, not signing's.
    expect(status(signing, facts([req(), refused('raw_body'), refused('seconds')]))).toBe('pass');
  });

  it('timestamp_ms: fails on a timestamp in seconds, passes on an accepted signed request', () => {
    expect(status(timestampMs, facts([req()]))).toBe('pass');
    expect(status(timestampMs, facts([req(), refused('seconds')]))).toBe('fail');
    expect(outcome(timestampMs, facts([refused('signature')]))).toMatchObject({ status: 'not_exercised', applies: true });
  });

  it('raw_body: passes when signed bodies verified, fails when one was signed re-serialised', () => {
    expect(status(rawBody, facts([req()]))).toBe('not_exercised'); // no body seen
    expect(status(rawBody, facts([post('/v1/orders/quote', 'quote')]))).toBe('pass');
    expect(status(rawBody, facts([post('/v1/orders/quote', 'quote'), refused('raw_body', { method: 'POST', hasBody: true })]))).toBe(
      'fail',
    );
  });

  it('key_environment: fails on a key of the other environment, the public key on a write, enc_* as Bearer', () => {
    expect(status(keyEnvironment, facts([req()]))).toBe('pass');
    expect(status(keyEnvironment, facts([req(), req({ env: 'live', key: 'Bearer sk_live_****abcd' })]))).toBe('fail');
    expect(status(keyEnvironment, facts([req(), req({ status: 403, auth: 'failed', keyKind: 'pk', failure: 'public_on_secret' })]))).toBe(
      'fail',
    );
    expect(status(keyEnvironment, facts([req(), refused('key', { keyKind: 'enc' })]))).toBe('fail');
    expect(status(keyEnvironment, facts([refused('key', { keyKind: undefined, env: undefined })]))).toBe('not_exercised');
  });

  it('reference_data: passes when networks and currencies were read before the first quote or order, fails otherwise', () => {
    expect(outcome(referenceData, facts([req()]))).toMatchObject({ status: 'not_exercised', applies: false });
    expect(
      status(
        referenceData,
        facts([get('/v1/networks', 'networks'), get('/v1/crypto-currencies', 'currencies'), post('/v1/orders/quote', 'quote')]),
      ),
    ).toBe('pass');
    expect(status(referenceData, facts([get('/v1/crypto-currencies', 'currencies'), post('/v1/orders/quote', 'quote')]))).toBe('fail');
    // A read refused (a 429) does not count as read.
    expect(
      status(
        referenceData,
        facts([
          get('/v1/networks', 'networks', { status: 429 }),
          get('/v1/crypto-currencies', 'currencies'),
          post('/v1/orders/quote', 'quote'),
        ]),
      ),
    ).toBe('fail');
  });

  it('account_lookup: an offramp create needs a lookup of its account before it, and its account_name', () => {
    const lookup = get('/v1/account-lookup', 'lookup', { accountNumber: '0123', accountName: 'ADA OBI' });
    const create = (name: string) => post('/v1/orders', 'create', { orderType: 'offramp', accountNumber: '0123', accountName: name });
    expect(status(accountLookup, facts([lookup, create('ADA OBI')]))).toBe('pass');
    expect(status(accountLookup, facts([lookup, create('Ada Obi')]))).toBe('fail');
    expect(status(accountLookup, facts([create('ADA OBI')]))).toBe('fail');
    expect(status(accountLookup, facts([create('ADA OBI'), lookup]))).toBe('fail');
    expect(outcome(accountLookup, facts([post('/v1/orders', 'create', { orderType: 'onramp' })]))).toMatchObject({
      status: 'not_exercised',
      applies: false,
    });
  });

  it('quote_ttl: after an expired-quote refusal, a new quote or create passes; another expired create fails', () => {
    const quote = post('/v1/orders/quote', 'quote', { quoteId: 'qt_1' });
    const expired = () => post('/v1/orders', 'create', { status: 400, code: 'E_BADREQUEST', quoteId: 'qt_1', expiredQuote: true });
    expect(outcome(quoteTtl, facts([quote]))).toMatchObject({ status: 'not_exercised', applies: true });
    expect(status(quoteTtl, facts([quote, expired(), post('/v1/orders/quote', 'quote', { quoteId: 'qt_2' })]))).toBe('pass');
    expect(status(quoteTtl, facts([quote, expired(), expired()]))).toBe('fail');
  });

  it('validation_retry: fails when a 422 is sent again unchanged, passes when writes were seen without it', () => {
    const bad = post('/v1/orders', 'create', { status: 422, code: 'E_VALIDATION_ERROR', fingerprint: 'same' });
    expect(status(validationRetry, facts([bad, post('/v1/orders', 'create', { fingerprint: 'fixed' })]))).toBe('pass');
    expect(status(validationRetry, facts([bad, post('/v1/orders', 'create', { status: 422, fingerprint: 'same' })]))).toBe('fail');
    expect(outcome(validationRetry, facts([req()]))).toMatchObject({ status: 'not_exercised', applies: false });
  });

  it('rate_limit: the next request on the key must wait Retry-After; on another key it may not', () => {
    const limited = () => req({ status: 429, code: 'E_RATE_LIMITED', retryAfterMs: 1000 });
    expect(status(rateLimit, facts([limited(), req({ after: 1100 })]))).toBe('pass');
    expect(status(rateLimit, facts([limited(), req({ after: 200 })]))).toBe('fail');
    expect(status(rateLimit, facts([limited(), req({ after: 200, key: 'Bearer pk_test_****wxyz' })]))).toBe('not_exercised');
    expect(outcome(rateLimit, facts([req()]))).toMatchObject({ status: 'not_exercised', applies: true });
  });

  it("idempotent_create: a lost create's retry carries its merchant_reference; a 409 is followed by a read (else a fail once final)", () => {
    const lost = () => post('/v1/orders', 'create', { status: 503, code: 'E_SANDBOX_FAULT', merchantReference: 'm-1' });
    const conflictOf = () => post('/v1/orders', 'create', { status: 409, code: 'E_CONFLICT', merchantReference: 'm-1', reference: 'ORD1' });
    expect(status(idempotentCreate, facts([lost(), conflictOf(), get('/v1/orders/ORD1', 'get_order', { reference: 'ORD1' })]))).toBe(
      'pass',
    );
    // Another order's create is not the retry: a client creating several at once, whose retry of
    // m-1 comes after m-2's create, passes (it failed, "retry carries m-2, not m-1").
    const other = () => post('/v1/orders', 'create', { merchantReference: 'm-2', reference: 'ORD2' });
    const concurrent = [lost(), other(), conflictOf(), get('/v1/orders/ORD1', 'get_order', { reference: 'ORD1' })];
    expect(status(idempotentCreate, facts(concurrent), true)).toBe('pass');
    expect(status(idempotentCreate, facts([lost(), other()]))).toBe('not_exercised');
    expect(outcome(idempotentCreate, facts([lost(), other()]), true)).toMatchObject({
      status: 'fail',
      evidence: [{ note: 'create answered 503: neither resent with merchant_reference m-1 nor looked up' }],
    });
    // The same order asked for again under a new merchant_reference is this one's retry: a fail.
    const asked = { status: 503, code: 'E_SANDBOX_FAULT', merchantReference: 'm-1', intent: 'same-body' } as const;
    const renamed = post('/v1/orders', 'create', { merchantReference: 'm-1-b', intent: 'same-body' });
    expect(outcome(idempotentCreate, facts([post('/v1/orders', 'create', asked), other(), renamed]))).toMatchObject({
      status: 'fail',
      evidence: [{ note: expect.stringMatching(/^retry of .* carries merchant_reference m-1-b, not m-1$/) }],
    });
    // Looking the order up instead of resending it reconciles too (the lost create made ORD1).
    const made = () => post('/v1/orders', 'create', { status: 503, code: 'E_SANDBOX_FAULT', merchantReference: 'm-1', reference: 'ORD1' });
    expect(status(idempotentCreate, facts([made(), other(), get('/v1/orders/ORD1', 'get_order', { reference: 'ORD1' })]), true)).toBe(
      'pass',
    );
    expect(status(idempotentCreate, facts([made(), get('/v1/orders', 'list_orders')]), true)).toBe('pass');
    expect(status(idempotentCreate, facts([made(), get('/v1/orders/ORD2', 'get_order', { reference: 'ORD2' })]), true)).toBe('fail');
    expect(status(idempotentCreate, facts([post('/v1/orders', 'create', { status: 0 }), post('/v1/orders', 'create')]))).toBe('fail');
    expect(status(idempotentCreate, facts([lost(), conflictOf()]))).toBe('not_exercised');
    expect(status(idempotentCreate, facts([lost(), conflictOf()]), true)).toBe('fail');
    expect(outcome(idempotentCreate, facts([post('/v1/orders', 'create')]))).toMatchObject({ status: 'not_exercised', applies: true });
  });

  it('polling: GET order more than once a second per order fails; reads of different orders do not', () => {
    const read = (reference: string, after: number) => get(`/v1/orders/${reference}`, 'get_order', { reference, after });
    expect(status(polling, facts([read('A', 10), read('A', 1000), read('B', 10)]))).toBe('pass');
    expect(status(polling, facts([read('A', 10), read('A', 100)]))).toBe('fail');
    // Two reads of one order in flight at once (the second started before the first): 0 ms apart, never less.
    expect(outcome(polling, facts([read('A', 10), read('A', -5)])).evidence[0]?.note).toMatch(/^read again 0 ms after req_/);
    expect(outcome(polling, facts([req()]))).toMatchObject({ status: 'not_exercised', applies: false });
  });
});

describe('receiver checks (CONTRACT §21)', () => {
  const probe = (kind: DeliveryFact['probe'], answer: number) => dlv({ probe: kind, attempts: [{ status: answer, ms: 10, error: null }] });

  it('ack_fast: a 2xx within 5 s passes; a slow 2xx or a timeout fails; probes do not count', () => {
    expect(status(ackFast, facts([], [dlv()]))).toBe('pass');
    expect(status(ackFast, facts([], [dlv(), dlv({ attempts: [{ status: 200, ms: 6000, error: null }] })]))).toBe('fail');
    expect(status(ackFast, facts([], [dlv({ attempts: [{ status: null, ms: 15000, error: 'timed out after 15000 ms' }] })]))).toBe('fail');
    expect(outcome(ackFast, facts([], [probe('duplicate', 200)]))).toMatchObject({ status: 'not_exercised', applies: false });
    expect(
      outcome(
        ackFast,
        facts([], [dlv({ aimed: false, attempts: [{ status: null, ms: 0, error: 'no webhook_url configured for the partner' }] })]),
      ),
    ).toMatchObject({ status: 'not_exercised', applies: false });
  });

  it('verify_signature: both the bad-signature and the tampered probe refused passes; either accepted fails', () => {
    expect(status(verifySignature, facts([], [dlv(), probe('bad_signature', 401), probe('tampered_body', 401)]))).toBe('pass');
    expect(status(verifySignature, facts([], [dlv(), probe('bad_signature', 401), probe('tampered_body', 200)]))).toBe('fail');
    expect(outcome(verifySignature, facts([], [dlv(), probe('bad_signature', 401)]))).toMatchObject({
      status: 'not_exercised',
      applies: true,
    });
  });

  it('promises a probe in its note only when the run sends probes', () => {
    const quiet = (c: CheckDef, f: RunFacts) => outcome(c, f, false, false).evidence.map((e) => e.note);
    expect(quiet(staleTimestamp, facts([], [dlv()]))).toEqual(['the run sends no probes (probes: false): only its probe would show this']);
    expect(outcome(staleTimestamp, facts([], [dlv()])).evidence[0]?.note).toBe(
      'no answer yet to the stale timestamp probe (sent after the receiver acknowledges a delivery)',
    );
    expect(quiet(idempotentCreate, facts([post('/v1/orders', 'create')]))).toEqual(['no create was answered 5xx or lost yet']);
    expect(quiet(quoteTtl, facts([post('/v1/orders/quote', 'quote')]))).toEqual(['no create was refused for an expired quote yet']);
  });

  it('stale_timestamp: the stale probe refused passes, accepted fails', () => {
    expect(status(staleTimestamp, facts([], [dlv(), probe('stale_timestamp', 400)]))).toBe('pass');
    expect(status(staleTimestamp, facts([], [dlv(), probe('stale_timestamp', 204)]))).toBe('fail');
    expect(status(staleTimestamp, facts([], [dlv()]))).toBe('not_exercised');
  });

  it('duplicates and out_of_order: the probe acknowledged passes, refused fails', () => {
    expect(status(duplicates, facts([], [dlv(), probe('duplicate', 200)]))).toBe('pass');
    expect(status(duplicates, facts([], [dlv(), probe('duplicate', 409)]))).toBe('fail');
    expect(status(outOfOrder, facts([], [dlv(), probe('out_of_order', 200)]))).toBe('pass');
    expect(status(outOfOrder, facts([], [dlv(), probe('out_of_order', 500)]))).toBe('fail');
    // A probe nothing received (a refused connection) is not yet an answer.
    expect(
      status(duplicates, facts([], [dlv(), dlv({ probe: 'duplicate', attempts: [{ status: null, ms: 1, error: 'connection refused' }] })])),
    ).toBe('not_exercised');
    // One the receiver let time out, or dropped, is: a probe is never sent again (it stayed
    // "no answer yet" for ever, and the run incomplete).
    const unanswered = (kind: DeliveryFact['probe'], error: string) =>
      dlv({ probe: kind, attempts: [{ status: null, ms: 15_000, error }] });
    expect(outcome(duplicates, facts([], [dlv(), unanswered('duplicate', 'timed out after 15000 ms')]))).toMatchObject({
      status: 'fail',
      evidence: [{ note: 'duplicate probe got no answer (timed out after 15000 ms); expected a 2xx' }],
    });
    expect(outcome(outOfOrder, facts([], [dlv(), unanswered('out_of_order', 'timed out after 15000 ms')])).evidence[0]?.note).toBe(
      'out of order probe got no answer (timed out after 15000 ms); expected a 2xx',
    );
    expect(
      outcome(verifySignature, facts([], [dlv(), unanswered('bad_signature', 'connection reset'), probe('tampered_body', 401)])),
    ).toMatchObject({
      status: 'fail',
      evidence: [{ note: 'bad signature probe got no answer (connection reset); expected a refusal (4xx)' }],
    });
  });

  it('recovers: a failed attempt then a 2xx passes; a delivery given up fails; no failure does not apply', () => {
    const fail500 = { status: 500, ms: 5, error: 'HTTP 500' };
    const ok = { status: 200, ms: 5, error: null };
    expect(status(recovers, facts([], [dlv({ attempts: [fail500, ok] })]))).toBe('pass');
    expect(status(recovers, facts([], [dlv({ attempts: [fail500, fail500], gaveUp: true })]))).toBe('fail');
    expect(outcome(recovers, facts([], [dlv({ attempts: [fail500] })]))).toMatchObject({ status: 'not_exercised', applies: true });
    expect(outcome(recovers, facts([], [dlv()]))).toMatchObject({ status: 'not_exercised', applies: false });
  });

  it('duplicates from webhook chaos (CONTRACT §22): both copies acknowledged pass without a probe; a copy refused while the other was acknowledged fails', () => {
    const ack = [{ status: 200, ms: 5, error: null }];
    const refused409 = [{ status: 409, ms: 5, error: null }];
    const original = dlv({ id: 'dlv_orig', event: 'order.completed' });
    // Without chaos marks, two deliveries of one event are no occasion.
    expect(status(duplicates, facts([], [original, dlv({ event: 'order.completed' })]))).toBe('not_exercised');
    const twin = dlv({ chaos: ['duplicate'], duplicateOf: 'dlv_orig', event: 'order.completed' });
    expect(outcome(duplicates, facts([], [original, twin]))).toMatchObject({
      status: 'pass',
      evidence: [{ delivery_id: twin.id, note: expect.stringContaining('chaos duplicate') }],
    });
    expect(outcome(duplicates, facts([], [original, { ...twin, attempts: refused409 }]))).toMatchObject({
      status: 'fail',
      evidence: [{ delivery_id: twin.id }],
    });
    // The copy delayed past its twin: the original is the one the receiver sees second.
    expect(
      outcome(
        duplicates,
        facts(
          [],
          [
            { ...twin, attempts: ack },
            { ...original, attempts: refused409 },
          ],
        ),
      ),
    ).toMatchObject({ status: 'fail', evidence: [{ delivery_id: 'dlv_orig' }] });
    // A copy that only failed to connect, or not yet answered, is no refusal.
    expect(status(duplicates, facts([], [original, { ...twin, attempts: [{ status: null, ms: 1, error: 'connection refused' }] }]))).toBe(
      'not_exercised',
    );
    // A chaos refusal fails even when the probe passed; the probe failing fails even when chaos passed.
    expect(status(duplicates, facts([], [original, { ...twin, attempts: refused409 }, probe('duplicate', 200)]))).toBe('fail');
    expect(status(duplicates, facts([], [original, twin, probe('duplicate', 409)]))).toBe('fail');
    // A twin whose original joined no run (it began before the run opened) is not judged.
    expect(status(duplicates, facts([], [twin]))).toBe('not_exercised');
  });

  it('out_of_order from webhook chaos (CONTRACT §22): a reordered delivery acknowledged passes without a probe, refused fails; one overtaken only by its own copy is left to duplicates', () => {
    const newer = dlv({ event: 'order.payin_received' });
    const older = dlv({ event: 'order.created', chaos: ['delayed', 'reordered'] });
    expect(outcome(outOfOrder, facts([], [newer, older]))).toMatchObject({
      status: 'pass',
      evidence: [{ delivery_id: older.id, note: expect.stringContaining('reordered by chaos') }],
    });
    expect(status(outOfOrder, facts([], [newer, { ...older, attempts: [{ status: 409, ms: 5, error: null }] }]))).toBe('fail');
    expect(status(outOfOrder, facts([], [newer, { ...older, chaos: ['delayed'] }]))).toBe('not_exercised');
    const original = dlv({ id: 'dlv_o2', event: 'order.completed', chaos: ['reordered'], attempts: [{ status: 409, ms: 5, error: null }] });
    const copy = dlv({ event: 'order.completed', chaos: ['duplicate'], duplicateOf: 'dlv_o2' });
    expect(status(outOfOrder, facts([], [copy, original]))).toBe('not_exercised');
    expect(status(duplicates, facts([], [copy, original]))).toBe('fail');
  });

  it('chaos deliveries are lifecycle deliveries: a delayed or duplicated one counts for ack_fast and recovers (CONTRACT §22)', () => {
    const fail500 = { status: 500, ms: 5, error: null };
    const copy = dlv({
      chaos: ['duplicate', 'delayed'],
      duplicateOf: 'dlv_elsewhere',
      attempts: [fail500, { status: 200, ms: 5, error: null }],
    });
    expect(outcome(recovers, facts([], [copy]))).toMatchObject({ status: 'pass', evidence: [{ delivery_id: copy.id }] });
    expect(status(ackFast, facts([], [dlv({ chaos: ['delayed'], attempts: [{ status: 200, ms: 6000, error: null }] })]))).toBe('fail');
  });
});
