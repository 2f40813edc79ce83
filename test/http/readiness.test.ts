import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type Caller, type TestServer } from '../support/server';
import { customer, EVM_ADDRESS, legs } from '../support/orders';
import { createHmac } from 'node:crypto';
import { startReceiver, verifies, type Receiver } from '../support/receiver';
import { MAX_EVIDENCE } from '../../src/sandbox/readiness';

// CONTRACT §21: readiness runs over the control API.
let s: TestServer;
let receiver: Receiver;
/** The sandbox's wall clock runs `offset` ms ahead of the real one: a test moves it instead of sleeping. */
let offset = 0;
/** When set, the sandbox's wall clock stands still there (requests then come 0 ms apart, whatever the machine's load). */
let frozen: number | undefined;
beforeAll(async () => {
  s = await startTestServer({ wall: { now: () => frozen ?? Date.now() + offset } });
  receiver = await startReceiver();
});
afterAll(async () => {
  await s.close();
  await receiver.close();
});
afterEach(async () => {
  frozen = undefined;
  await s.control('POST', '/sandbox/reset');
  receiver.received.length = 0;
  receiver.behave(() => 'ok');
});

const open = async (body: Record<string, unknown>) => {
  const res = await s.control('POST', '/sandbox/readiness/runs', body);
  expect(res.status, res.text).toBe(201);
  return res.body.data;
};
const report = async (id: string) => (await s.control('GET', `/sandbox/readiness/runs/${id}`)).body.data;
const finish = async (id: string) => {
  const res = await s.control('POST', `/sandbox/readiness/runs/${id}/finish`);
  expect(res.status, res.text).toBe(200);
  return res.body.data;
};
const check = (r: any, id: string) => r.checks.find((c: any) => c.id === id);

/** Every webhook attempt under way done, and the probes they set off too. */
async function settle() {
  for (let i = 0; i < 5; i++) {
    await s.sandbox.dispatcher.idle();
    await new Promise((resolve) => setImmediate(resolve));
  }
}

describe('readiness runs (CONTRACT §21)', () => {
  it('opens (201), reports so far, finishes and lists; finishing again gives the same final report', async () => {
    const run = await open({ client_id: s.demo.clientId, probes: false });
    expect(run).toMatchObject({
      id: expect.stringMatching(/^rdy_/),
      client_id: s.demo.clientId,
      environment: 'test',
      verdict: 'incomplete',
      probes: [],
    });
    expect(run.checks.map((c: any) => c.id)).toEqual([
      'signing',
      'timestamp_ms',
      'raw_body',
      'key_environment',
      'reference_data',
      'account_lookup',
      'quote_ttl',
      'validation_retry',
      'rate_limit',
      'idempotent_create',
      'polling',
      'ack_fast',
      'verify_signature',
      'stale_timestamp',
      'duplicates',
      'out_of_order',
      'recovers',
    ]);
    for (const c of run.checks)
      expect(c).toMatchObject({
        clause: expect.any(String),
        title: expect.any(String),
        fix: expect.any(String),
        status: 'not_exercised',
        evidence: expect.any(Array),
      });
    expect(run.finished_at).toBeUndefined();

    expect((await s.signed('GET', '/v1/networks')).status).toBe(200);
    const sofar = await report(run.id);
    expect(check(sofar, 'signing').status).toBe('pass');
    expect(sofar.counted).toEqual({ requests: 1, deliveries: 0, truncated: false });

    const final = await finish(run.id);
    expect(final.finished_at).toEqual(expect.any(String));
    expect(await finish(run.id)).toEqual(final);
    // After the finish, traffic no longer counts.
    await s.signed('GET', '/v1/networks');
    expect((await report(run.id)).counted.requests).toBe(1);

    const listed = (await s.control('GET', `/sandbox/readiness/runs?client_id=${s.demo.clientId}`)).body.data;
    expect(listed.map((r: any) => r.id)).toEqual([run.id]);
    expect((await s.control('GET', '/sandbox/readiness/runs?client_id=ptr_nobody')).body.data).toEqual([]);
  });

  it('answers bad input in the error envelope: unknown partner or run 404, a malformed body 422/400', async () => {
    const unknown = await s.control('POST', '/sandbox/readiness/runs', { client_id: 'ptr_nobody' });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ status: false, code: 'E_NOTFOUND', message: expect.stringContaining('ptr_nobody') });
    const missing = await s.control('POST', '/sandbox/readiness/runs', {});
    expect(missing.status).toBe(422);
    expect(missing.body).toMatchObject({ status: false, code: 'E_VALIDATION_ERROR', message: expect.stringMatching(/^client_id: /) });
    const env = await s.control('POST', '/sandbox/readiness/runs', { client_id: s.demo.clientId, environment: 'prod' });
    expect(env.status).toBe(422);
    const probes = await s.control('POST', '/sandbox/readiness/runs', { client_id: s.demo.clientId, probes: 'yes' });
    expect(probes.body).toMatchObject({ code: 'E_VALIDATION_ERROR', message: expect.stringMatching(/^probes: /) });
    const malformed = await s.request('POST', '/sandbox/readiness/runs', {
      headers: { 'content-type': 'application/json' },
      body: '{"client_id":',
    });
    expect(malformed.status).toBe(400);
    expect(malformed.body).toMatchObject({ status: false, code: 'E_BADREQUEST' });
    for (const [method, path] of [
      ['GET', '/sandbox/readiness/runs/rdy_999'],
      ['POST', '/sandbox/readiness/runs/rdy_999/finish'],
    ] as const) {
      const res = await s.control(method, path);
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ status: false, code: 'E_NOTFOUND', message: 'No readiness run rdy_999' });
    }
  });

  it('a reset ends every run (final report, ended_by reset); finishing one then is a 409', async () => {
    const other = await s.createPartner();
    const a = await open({ client_id: s.demo.clientId });
    const b = await open({ client_id: other.clientId, probes: false });
    expect((await s.control('GET', '/sandbox/faults')).body.data).toHaveLength(2); // a's probes: lost create, 429
    await s.control('POST', '/sandbox/reset');
    const ended = await report(a.id);
    expect(ended).toMatchObject({ ended_by: 'reset', finished_at: expect.any(String) });
    expect((await s.control('GET', `/sandbox/readiness/runs/${b.id}`)).body.data.ended_by).toBe('reset');
    const again = await s.control('POST', `/sandbox/readiness/runs/${a.id}/finish`);
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('E_CONFLICT');
    // Nothing after the reset counts.
    await s.signed('GET', '/v1/networks');
    expect((await report(a.id)).counted.requests).toBe(0);
  });

  it("a restored state ends every run (ended_by restore) and keeps the document's faults, whatever their ids", async () => {
    const other = await s.createPartner();
    const run = await open({ client_id: s.demo.clientId });
    const doc = (await s.control('GET', '/sandbox/state')).body.data;
    // The document's own faults carry the ids of the run's probes (as an older state's may), for another partner.
    const ids = doc.faults.faults.map((f: any) => f.id);
    expect(ids).toHaveLength(2);
    for (const f of doc.faults.faults) f.client_id = other.clientId;
    expect((await s.control('PUT', '/sandbox/state', doc)).status).toBe(200);
    expect((await report(run.id)).ended_by).toBe('restore');
    expect((await s.control('POST', `/sandbox/readiness/runs/${run.id}/finish`)).status).toBe(409);
    const faults = (await s.control('GET', '/sandbox/faults')).body.data;
    expect(faults.map((f: any) => [f.id, f.client_id])).toEqual(ids.map((id: string) => [id, other.clientId]));
  });

  it('opening a new run for a partner ends its open one (ended_by new_run) and removes its armed probes', async () => {
    const first = await open({ client_id: s.demo.clientId });
    const second = await open({ client_id: s.demo.clientId });
    expect((await report(first.id)).ended_by).toBe('new_run');
    const faults = (await s.control('GET', '/sandbox/faults')).body.data;
    expect(faults).toHaveLength(2);
    expect(faults.every((f: any) => f.note.includes(second.id))).toBe(true);
  });

  it("counts only the partner's /v1 traffic after the open: not before, not another partner's, not control calls", async () => {
    const other = await s.createPartner();
    // Before the open: a signature failure that would fail `signing`.
    await s.request('GET', '/v1/networks', {
      headers: {
        'svc-client-id': s.demo.clientId,
        authorization: `Bearer ${s.demo.keys.test.secret_key}`,
        'svc-timestamp': String(Date.now()),
        'svc-signature': `sha256=${'0'.repeat(64)}`,
      },
    });
    const run = await open({ client_id: s.demo.clientId, probes: false });
    // Another partner's failures and polling, and control calls, after the open.
    await s.request('GET', '/v1/networks', {
      headers: {
        'svc-client-id': other.clientId,
        authorization: `Bearer ${other.keys.test.secret_key}`,
        'svc-timestamp': String(Date.now()),
        'svc-signature': `sha256=${'0'.repeat(64)}`,
      },
    });
    const order = (await s.signed('POST', '/v1/orders', { ...legs.onramp, recipient: { address: EVM_ADDRESS }, customer }, { as: other }))
      .body.data;
    for (let i = 0; i < 3; i++) await s.signed('GET', `/v1/orders/${order.reference}`, undefined, { as: other });
    await s.control('GET', `/sandbox/orders/${order.reference}`);
    await s.control('POST', '/sandbox/webhooks/send', {
      client_id: s.demo.clientId,
      event: 'order.created',
      data: { reference: 'X' },
      url: receiver.url,
    });
    await settle();
    // The partner's own good request.
    expect((await s.signed('GET', '/v1/networks')).status).toBe(200);
    const r = await report(run.id);
    expect(r.counted).toEqual({ requests: 1, deliveries: 0, truncated: false });
    expect(check(r, 'signing').status).toBe('pass');
    expect(check(r, 'polling').status).toBe('not_exercised');
    expect(check(r, 'ack_fast').status).toBe('not_exercised');
  });

  it('caps the evidence per check', async () => {
    frozen = Date.now();
    const run = await open({ client_id: s.demo.clientId, probes: false });
    const order = (await s.signed('POST', '/v1/orders', { ...legs.onramp, recipient: { address: EVM_ADDRESS }, customer })).body.data;
    for (let i = 0; i < MAX_EVIDENCE + 10; i++) expect((await s.signed('GET', `/v1/orders/${order.reference}`)).status).toBe(200);
    const polling = check(await report(run.id), 'polling');
    expect(polling.status).toBe('fail');
    expect(polling.evidence).toHaveLength(MAX_EVIDENCE);
    expect(polling.evidence.at(-1).note).toMatch(/and \d+ more/);
    expect((await report(run.id)).verdict).toBe('not_ready');
  });

  it('a partner that does everything right, with every probe, is ready; its coverage comes from the machine', async () => {
    const partner = await s.createPartner({ webhook_url: receiver.url });
    const enc = partner.keys.test.encryption_key;
    // A receiver that verifies, refuses stale timestamps, and acknowledges duplicates.
    receiver.behave((r) =>
      !verifies(r, partner.clientId, enc) || Date.now() - Number(r.headers['svc-timestamp']) > 300_000 ? '500' : 'ok',
    );
    const run = await open({ client_id: partner.clientId });
    expect(run.probes.map((p: any) => p.kind).sort()).toEqual([
      'bad_signature',
      'duplicate',
      'lost_response',
      'out_of_order',
      'quote_ended',
      'rate_limited',
      'stale_timestamp',
      'tampered_body',
    ]);

    const as: Caller = partner;
    // The first read meets the 429 probe: wait its Retry-After (the wall clock moves), then read.
    const limited = await s.signed('GET', '/v1/networks', undefined, { as });
    expect(limited.status).toBe(429);
    offset += Number(limited.headers.get('retry-after')) * 1000;
    expect((await s.signed('GET', '/v1/networks', undefined, { as })).status).toBe(200);
    expect((await s.pub('GET', '/v1/crypto-currencies', { as })).status).toBe(200);
    // The first create's answer is lost (503 after it was carried out); the retry, same merchant_reference, is a 409; read the order.
    const lookup = (await s.pub('GET', '/v1/account-lookup?account_number=0123456789&bank_code=058', { as })).body.data;
    const body = (quote_id: string, merchant_reference: string) => ({
      quote_id,
      merchant_reference,
      recipient: { institution_code: '058', account_number: '0123456789', account_name: lookup.account_name },
      customer,
    });
    const q1 = (await s.signed('POST', '/v1/orders/quote', legs.offramp, { as })).body.data;
    expect((await s.signed('POST', '/v1/orders', body(q1.quote_id, 'm-1'), { as })).status).toBe(503);
    expect((await s.signed('POST', '/v1/orders', body(q1.quote_id, 'm-1'), { as })).status).toBe(409);
    const listed = (await s.signed('GET', '/v1/orders?merchant_reference=m-1', undefined, { as })).body.data;
    const reference = listed[0].reference;
    offset += 1500;
    expect((await s.signed('GET', `/v1/orders/${reference}`, undefined, { as })).status).toBe(200);
    // The next quote is ended early: its create is refused; quote again.
    const q2 = (await s.signed('POST', '/v1/orders/quote', legs.offramp, { as })).body.data;
    expect((await s.signed('POST', '/v1/orders', body(q2.quote_id, 'm-2'), { as })).status).toBe(400);
    const q3 = (await s.signed('POST', '/v1/orders/quote', legs.offramp, { as })).body.data;
    expect((await s.signed('POST', '/v1/orders', body(q3.quote_id, 'm-2'), { as })).status).toBe(200);
    // A 422, then the field fixed.
    expect((await s.signed('POST', '/v1/orders/quote', { from: { currency: 'NGN', amount: -1 }, to: legs.onramp.to }, { as })).status).toBe(
      422,
    );
    // An onramp order from legs, and both orders taken to the end: deliveries set off the adversarial probes.
    const onramp = (
      await s.signed(
        'POST',
        '/v1/orders',
        { ...legs.onramp, merchant_reference: 'm-3', recipient: { address: EVM_ADDRESS }, customer },
        { as },
      )
    ).body.data;
    await settle();
    for (const ref of [reference, onramp.reference]) {
      const res = await s.control('POST', `/sandbox/orders/${ref}/simulate`, { status: 'settled' });
      expect(res.status, res.text).toBe(200);
      await settle();
    }

    const r = await finish(run.id);
    const failing = r.checks
      .filter((c: any) => c.status !== 'pass')
      .map((c: any) => `${c.id}:${c.status}:${c.applies}:${JSON.stringify(c.evidence)}`);
    expect(
      r.probes.every((p: any) => p.status === 'done'),
      JSON.stringify(r.probes),
    ).toBe(true);
    // `recovers` saw no failed ordinary attempt: it does not apply.
    expect(failing).toEqual([expect.stringMatching(/^recovers:not_exercised:false/)]);
    expect(r.verdict).toBe('ready');
    expect(r.coverage.order_types).toEqual(['onramp', 'offramp']);
    expect(r.coverage.statuses.offramp.reached).toContain('settled');
    expect(r.coverage.statuses.offramp.reachable).toEqual(
      expect.arrayContaining(['initiated', 'awaiting_user_payment', 'settled', 'expired']),
    );
    expect(r.coverage.events.onramp.acknowledged).toContain('order.settled');
    expect(r.coverage.error_codes.seen).toEqual(['E_BADREQUEST', 'E_CONFLICT', 'E_RATE_LIMITED', 'E_SANDBOX_FAULT', 'E_VALIDATION_ERROR']);
    // The probes are marked as probes in the delivery log and the inspector.
    const deliveries = (await s.control('GET', `/sandbox/webhooks/deliveries?client_id=${partner.clientId}&per_page=100`)).body.data;
    const probes = deliveries.filter((d: any) => d.source === 'probe');
    expect(probes.map((d: any) => d.probe.kind).sort()).toEqual([
      'bad_signature',
      'duplicate',
      'out_of_order',
      'stale_timestamp',
      'tampered_body',
    ]);
    // One attempt each, never retried: refusing one is the right answer.
    for (const d of probes)
      expect(d, d.probe.kind).toMatchObject({
        attempts: [expect.any(Object)],
        next_attempt_at: null,
        status: ['bad_signature', 'tampered_body', 'stale_timestamp'].includes(d.probe.kind) ? 'failed' : 'succeeded',
      });
    const lost = r.probes.find((p: any) => p.kind === 'lost_response');
    expect((await s.control('GET', `/sandbox/requests/${lost.request_id}`)).body.data.message).toContain(
      `readiness probe: lost response (${run.id})`,
    );
  });

  it('a receiver that accepts anything fails verify_signature and stale_timestamp; one that fails duplicates fails duplicates', async () => {
    const partner = await s.createPartner({ webhook_url: receiver.url });
    receiver.behave((r) =>
      r.headers['svc-delivery-id'] &&
      receiver.received.filter((x) => x.headers['svc-delivery-id'] === r.headers['svc-delivery-id']).length > 1
        ? '500'
        : 'ok',
    );
    const run = await open({ client_id: partner.clientId });
    const as: Caller = partner;
    offset += 1000;
    for (let i = 0; i < 2; i++) {
      const order =
        (await s.signed('POST', '/v1/orders', { ...legs.onramp, recipient: { address: EVM_ADDRESS }, customer }, { as })).body.data ??
        (await s.signed('POST', '/v1/orders', { ...legs.onramp, recipient: { address: EVM_ADDRESS }, customer }, { as })).body.data;
      if (!order) continue;
      await settle();
      await s.control('POST', `/sandbox/orders/${order.reference}/simulate`, { status: 'settled' });
      await settle();
    }
    const r = await report(run.id);
    expect(check(r, 'verify_signature').status).toBe('fail');
    expect(check(r, 'stale_timestamp').status).toBe('fail');
    expect(check(r, 'duplicates').status).toBe('fail');
    expect(check(r, 'out_of_order').status).toBe('pass');
    expect(r.verdict).toBe('not_ready');
  });

  it('a receiver that verifies the JSON parsed and serialised again, not the raw bytes, fails verify_signature (the tampered probe)', async () => {
    const partner = await s.createPartner({ webhook_url: receiver.url });
    const enc = partner.keys.test.encryption_key;
    receiver.behave((r) => {
      const reserialised = JSON.stringify(JSON.parse(r.rawBody));
      const expected = `sha256=${createHmac('sha256', enc).update(`${partner.clientId}|${r.headers['svc-timestamp']}|POST|${r.path}|${reserialised}`).digest('hex')}`;
      return r.headers['svc-signature'] === expected && Date.now() - Number(r.headers['svc-timestamp']) < 300_000 ? 'ok' : '500';
    });
    const run = await open({ client_id: partner.clientId });
    offset += 1000;
    for (let i = 0; i < 2; i++) {
      const res = await s.signed('POST', '/v1/orders', { ...legs.onramp, recipient: { address: EVM_ADDRESS }, customer }, { as: partner });
      if (res.status !== 200) continue; // the lost-response probe
      await settle();
      await s.control('POST', `/sandbox/orders/${res.body.data.reference}/simulate`, { status: 'settled' });
      await settle();
    }
    const r = await report(run.id);
    const verify = check(r, 'verify_signature');
    expect(verify.status).toBe('fail');
    expect(verify.evidence).toEqual([expect.objectContaining({ note: 'tampered body probe answered 200; expected a refusal (4xx)' })]);
    expect(check(r, 'stale_timestamp').status).toBe('pass');
  });
});
