import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { readEventStream } from '../../src/cli/event-stream';
import { verifyWebhook } from '../../src';
import { advance, createOrder } from '../support/orders';
import { startReceiver, verifies, type Receiver } from '../support/receiver';
import { startTestServer, type Caller, type TestServer } from '../support/server';

// CONTRACT §17 `listen`, the sandbox side: GET /sandbox/listen (server-sent events, one per
// attempt handed to the listener instead of POSTed) and POST /sandbox/listen/attempts/{id}.

let s: TestServer;
const receivers: Receiver[] = [];
const streams: Array<{ close(): void }> = [];
/** The answering loops: each ends when its stream does, and a failed check in one fails the test. */
const loops: Array<Promise<void>> = [];

beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s.close());
afterEach(async () => {
  for (const l of streams.splice(0)) l.close();
  await Promise.all(loops.splice(0));
  await s.sandbox.dispatcher.idle();
  await Promise.all(receivers.splice(0).map((r) => r.close()));
});

const FORWARD = 'http://127.0.0.1:3000/laptop/hooks?via=listen';

async function receiver() {
  const r = await startReceiver();
  receivers.push(r);
  return r;
}

/** One open listener stream: `next(type)` awaits the next event of that type (any type when left out). */
async function listen(server: TestServer, query: Record<string, string>, headers: Record<string, string> = {}) {
  const abort = new AbortController();
  const res = await fetch(`${server.url}/sandbox/listen?${new URLSearchParams(query)}`, { headers, signal: abort.signal });
  expect(res.status).toBe(200);
  const events = readEventStream(res.body!);
  const l = {
    res,
    async next(type?: string): Promise<{ event: string; data: any } | undefined> {
      for (;;) {
        const r = await events.next();
        if (r.done) return undefined;
        if (!type || r.value.event === type) return { event: r.value.event, data: JSON.parse(r.value.data) };
      }
    },
    close: () => abort.abort(),
  };
  streams.push(l);
  return l;
}

type Listening = Awaited<ReturnType<typeof listen>>;

/** Answers every attempt the listener is handed with `status`, checking each signature; stops when the stream does. */
function answerAll(l: Listening, p: Caller, status: number) {
  const seen: any[] = [];
  const done = (async () => {
    for (;;) {
      const next = await l.next('attempt').catch(() => undefined);
      if (!next) return;
      const a = next.data;
      const verified = verifyWebhook(a.body, a.headers, {
        clientId: p.clientId,
        encryptionKey: p.keys[a.environment as 'test' | 'live'].encryption_key,
        path: a.path,
      });
      seen.push({ ...a, verified: verified.event });
      const result = await s.controlApi.answerListenAttempt({
        params: { id: a.id },
        body: { status, body: `answer ${status}`, duration_ms: 3 },
      });
      expect(result).toEqual({ id: a.id, delivery_id: a.delivery_id, attempt: a.attempt, succeeded: status < 300 });
    }
  })();
  loops.push(done);
  return { seen };
}

const deliveriesOf = async (query: Record<string, string>) =>
  (await s.controlApi.listDeliveries({ query: { per_page: 100, ...query } })).data;

describe('GET /sandbox/listen (CONTRACT §17 listen)', () => {
  it('hands a completed order’s deliveries to the listener instead of POSTing them, and logs the answers it reports', async () => {
    const r = await receiver();
    const p = await s.createPartner({ webhook_url: r.url });
    const l = await listen(s, { client_id: p.clientId, forward_to: FORWARD });
    (await s.openapi()).check('GET', `/sandbox/listen?client_id=${p.clientId}`, l.res.status, l.res.headers.get('content-type'), '');
    expect(l.res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const ready = await l.next('ready');
    expect(ready!.data).toMatchObject({
      client_id: p.clientId,
      events: null,
      forward_to: FORWARD,
      timeout_ms: s.sandbox.config.webhookTimeoutMs,
    });
    expect(ready!.data.subscribed).toHaveLength(10);
    const answering = answerAll(l, p, 200);

    const o = await createOrder(s, 'onramp', {}, { as: p });
    await s.controlApi.simulatePayin({ params: { reference: o.reference }, body: {} });
    await advance(s, '1h');
    await s.sandbox.dispatcher.idle();

    const events = ['order.created', 'order.fiat_recieved', 'order.assigned', 'order.asset_released', 'order.settled'];
    expect(answering.seen.map((a) => a.event)).toEqual(events);
    for (const a of answering.seen) {
      expect(a.verified).toBe(a.event);
      expect(a).toMatchObject({
        client_id: p.clientId,
        environment: 'test',
        order: o.reference,
        attempt: 1,
        path: '/laptop/hooks?via=listen',
      });
      expect(a.headers).toMatchObject({
        'content-type': 'application/json',
        'svc-event': a.event,
        'svc-delivery-id': a.delivery_id,
        'svc-attempt': '1',
      });
      expect(a.id).toBe(`${a.delivery_id}.1`);
    }
    const log = await deliveriesOf({ order: o.reference });
    expect(log.map((d) => d.event).reverse()).toEqual(events);
    for (const d of log) {
      expect(d.status).toBe('succeeded');
      expect(d.attempts).toEqual([
        expect.objectContaining({
          via: 'listener',
          url: FORWARD,
          http_status: 200,
          response_excerpt: 'answer 200',
          duration_ms: 3,
          error: null,
        }),
      ]);
    }
    expect(r.received).toEqual([]);
  });

  it('retries an attempt answered with a failure on the §5 schedule, through the listener', async () => {
    const p = await s.createPartner({ webhook_url: null });
    const l = await listen(s, { client_id: p.clientId, forward_to: FORWARD });
    const o = await createOrder(s, 'onramp', {}, { as: p });
    const first = (await l.next('attempt'))!.data;
    await s.controlApi.answerListenAttempt({ params: { id: first.id }, body: { status: 500, body: 'receiver error', duration_ms: 7 } });
    await s.sandbox.dispatcher.idle();
    const [failed] = await deliveriesOf({ order: o.reference });
    expect(failed).toMatchObject({ status: 'retrying', next_attempt_at: new Date(Date.parse(failed!.created_at) + 5_000).toISOString() });
    expect(failed!.attempts[0]).toMatchObject({ http_status: 500, error: 'HTTP 500', response_excerpt: 'receiver error' });

    await advance(s, '4s');
    expect((await deliveriesOf({ order: o.reference }))[0]!.attempts).toHaveLength(1);
    const advancing = advance(s, '1s'); // waits for the answer to the attempt it fires
    const second = (await l.next('attempt'))!.data;
    expect([second.id, second.attempt, second.headers['svc-attempt']]).toEqual([`${first.delivery_id}.2`, 2, '2']);
    await s.controlApi.answerListenAttempt({ params: { id: second.id }, body: { status: 200, duration_ms: 1 } });
    await advancing;
    const [done] = await deliveriesOf({ order: o.reference });
    expect(done!.status).toBe('succeeded');
    expect(Date.parse(done!.attempts[1]!.virtual_at) - Date.parse(done!.attempts[0]!.virtual_at)).toBe(5_000);
  });

  it('fails the attempt pending when the listener disconnects, retries it on schedule, and sends to webhook_url again', async () => {
    const r = await receiver();
    const p = await s.createPartner({ webhook_url: r.url });
    const l = await listen(s, { client_id: p.clientId });
    const o = await createOrder(s, 'onramp', {}, { as: p });
    const handed = (await l.next('attempt'))!.data;
    expect(handed.path).toBe('/hooks/ramp?src=sandbox'); // no forward_to: signed over webhook_url's path
    l.close();
    await s.sandbox.dispatcher.idle();
    const [pending] = await deliveriesOf({ order: o.reference });
    expect(pending).toMatchObject({ status: 'retrying', next_attempt_at: new Date(Date.parse(pending!.created_at) + 5_000).toISOString() });
    expect(pending!.attempts[0]).toMatchObject({ via: 'listener', http_status: null, error: 'listener disconnected' });
    expect(r.received).toEqual([]);
    expect(s.sandbox.dispatcher.listenerCount).toBe(0);

    await advance(s, '5s');
    expect(r.received.map((x) => [x.body.event, x.headers['svc-attempt']])).toEqual([['order.created', '2']]);
    expect(verifies(r.received[0]!, p.clientId, p.keys.test.encryption_key)).toBe(true);
    const [delivered] = await deliveriesOf({ order: o.reference });
    expect(delivered!.status).toBe('succeeded');
    expect(delivered!.attempts[1]).not.toHaveProperty('via');
    // The disconnected listener's attempt can no longer be answered.
    const late = await s.control('POST', `/sandbox/listen/attempts/${handed.id}`, { status: 200, duration_ms: 1 });
    expect([late.status, late.body.code, late.body.message]).toEqual([
      409,
      'E_CONFLICT',
      expect.stringMatching(/already ended \(listener disconnected\)/),
    ]);
  });

  it('takes only the events of its filter; the partner’s others go to webhook_url', async () => {
    const r = await receiver();
    const p = await s.createPartner({ webhook_url: r.url });
    const l = await listen(s, { client_id: p.clientId, events: 'order.cancelled,order.settled,order.cancelled' });
    expect((await l.next('ready'))!.data.events).toEqual(['order.cancelled', 'order.settled']);
    const answering = answerAll(l, p, 200);
    const o = await createOrder(s, 'onramp', {}, { as: p });
    await s.controlApi.sandboxCancelOrder({ params: { reference: o.reference }, body: {} });
    await s.sandbox.dispatcher.idle();
    expect(r.received.map((x) => x.body.event)).toEqual(['order.created']);
    expect(answering.seen.map((a) => a.event)).toEqual(['order.cancelled']);
  });

  it('delivers to a partner without webhook_url while a listener takes its events, lifecycle and on demand', async () => {
    const p = await s.createPartner({ webhook_url: null });
    const refused = await s.control('POST', '/sandbox/webhooks/send', {
      client_id: p.clientId,
      event: 'order.settled',
      data: { reference: 'ord_x' },
    });
    expect([refused.status, refused.body.message]).toEqual([400, 'url: the partner has no webhook_url and no listener; give url']);
    const l = await listen(s, { client_id: p.clientId });
    const answering = answerAll(l, p, 202);
    const sent = await s.controlApi.sendWebhook({ body: { client_id: p.clientId, event: 'order.settled', data: { reference: 'ord_x' } } });
    expect(sent).toMatchObject({ status: 'succeeded', attempts: [{ via: 'listener', url: null, http_status: 202 }] });
    expect(answering.seen[0]!.path).toBe('/'); // neither forward_to nor webhook_url: signed over /
    const o = await createOrder(s, 'onramp', {}, { as: p });
    await s.sandbox.dispatcher.idle();
    const detail = await s.controlApi.sandboxGetOrder({ params: { reference: o.reference } });
    const created = (detail as any).timeline.find((e: any) => e.event === 'order.created');
    expect(created.details).toEqual({ delivery_id: expect.stringMatching(/^dlv_/) });
  });

  it('gives the partner to the newest listener: the previous stream is told why and ends', async () => {
    const p = await s.createPartner({ webhook_url: null });
    const first = await listen(s, { client_id: p.clientId });
    await first.next('ready');
    const second = await listen(s, { client_id: p.clientId, forward_to: FORWARD });
    await second.next('ready');
    expect(await first.next('end')).toEqual({
      event: 'end',
      data: { reason: 'replaced', message: expect.stringMatching(/newer listener/) },
    });
    expect(await first.next()).toBeUndefined();
    const answering = answerAll(second, p, 200);
    await s.controlApi.sendWebhook({ body: { client_id: p.clientId, event: 'order.settled', data: { reference: 'ord_y' } } });
    expect(answering.seen.map((a) => a.path)).toEqual(['/laptop/hooks?via=listen']);
    expect(s.sandbox.dispatcher.listenerCount).toBe(1);
  });

  it('refuses bad input with the error envelope, never a 5xx', async () => {
    const p = await s.createPartner({ webhook_url: null });
    const q = (query: string) => s.request('GET', `/sandbox/listen?${query}`);
    const cases: Array<[string, number, string | RegExp]> = [
      ['client_id=ptr_nobody', 404, 'Partner ptr_nobody not found'],
      ['', 422, /^client_id: /],
      [`client_id=${p.clientId}&events=order.nope`, 422, /^events: order\.nope is not a webhook event \(one of order\.created, /],
      [`client_id=${p.clientId}&events=`, 422, 'events: give event names separated by commas, or leave events out'],
      [`client_id=${p.clientId}&events=order.created,`, 422, 'events: give event names separated by commas, or leave events out'],
      [`client_id=${p.clientId}&events=order.created&events=order.settled`, 422, /^events: /],
      [`client_id=${p.clientId}&forward_to=ftp://laptop/hooks`, 422, 'forward_to: must be an http(s) URL'],
      [`client_id=${p.clientId}&events=${'order.created,'.repeat(100)}order.settled`, 422, /^events: /],
    ];
    for (const [query, status, message] of cases) {
      const res = await q(query);
      expect([query, res.status, res.body.status, res.body.code]).toEqual([
        query,
        status,
        false,
        status === 404 ? 'E_NOTFOUND' : 'E_VALIDATION_ERROR',
      ]);
      expect(res.body.message).toMatch(message);
    }
    expect(s.sandbox.dispatcher.listenerCount).toBe(0);
  });

  it('refuses an answer for an unknown or already answered attempt, and a malformed or oversized one', async () => {
    const p = await s.createPartner({ webhook_url: null });
    const l = await listen(s, { client_id: p.clientId });
    const o = await createOrder(s, 'onramp', {}, { as: p });
    const a = (await l.next('attempt'))!.data;
    const answer = (body: unknown, id = a.id, headers?: Record<string, string>) =>
      s.control('POST', `/sandbox/listen/attempts/${encodeURIComponent(id)}`, body, headers);
    const raw = (text: string, type?: string) =>
      s.request('POST', `/sandbox/listen/attempts/${a.id}`, { headers: type ? { 'content-type': type } : {}, body: text });
    const refusals: Array<[Promise<{ status: number; body: any }>, number, string | RegExp]> = [
      [answer({ status: 200, duration_ms: 1 }, 'dlv_nope.1'), 404, 'No attempt dlv_nope.1 was handed to a listener'],
      [answer({ status: 200, duration_ms: 1 }, `${a.delivery_id}.2`), 404, /^No attempt/],
      [answer({ duration_ms: 1 }), 422, 'status: give the receiver’s status, or the error when it gave none'],
      [answer({ status: 200 }), 422, /^duration_ms: /],
      [answer({ status: '200', duration_ms: 1 }), 422, /^status: /],
      [answer({ status: 99, duration_ms: 1 }), 422, /^status: /],
      [answer({ status: 1000, duration_ms: 1 }), 422, /^status: /],
      [answer({ status: 200, duration_ms: -1 }), 422, /^duration_ms: /],
      [
        answer({ status: 200, duration_ms: 1, body: 'x'.repeat(4097) }),
        422,
        'body: must be at most 4096 characters (send the first 4 KiB of the answer)',
      ],
      [answer({ error: 'x'.repeat(1001), duration_ms: 1 }), 422, /^error: /],
      [raw(JSON.stringify({ status: 200, duration_ms: 1, body: 'x'.repeat(2 << 20) }), 'application/json'), 413, /./],
      [raw('{"status":', 'application/json'), 400, /./],
      [raw('{"status":200,"duration_ms":1}'), 415, /^Content-Type must be application\/json/],
    ];
    for (const [pending, status, message] of refusals) {
      const res = await pending;
      expect([res.status, res.body.status, res.body.message]).toEqual([
        status,
        false,
        typeof message === 'string' ? message : expect.stringMatching(message),
      ]);
    }
    // Nothing refused touched the attempt: it still waits, and takes one answer.
    expect((await answer({ status: 200, body: 'y'.repeat(4096), duration_ms: 2 })).status).toBe(200);
    const twice = await answer({ status: 500, duration_ms: 2 });
    expect([twice.status, twice.body.code, twice.body.message]).toEqual([
      409,
      'E_CONFLICT',
      expect.stringMatching(/^Attempt .* has already ended \(answered 200\)/),
    ]);
    await s.sandbox.dispatcher.idle();
    const [d] = await deliveriesOf({ order: o.reference });
    expect(d!.status).toBe('succeeded');
    expect(d!.attempts).toHaveLength(1);
    expect(d!.attempts[0]!.response_excerpt).toBe('y'.repeat(500));
  });

  it('logs a receiver’s status past 599 as it is, as a send of its own would (HTTP 999), not as a timeout', async () => {
    const p = await s.createPartner({ webhook_url: null });
    const l = await listen(s, { client_id: p.clientId });
    const o = await createOrder(s, 'onramp', {}, { as: p });
    const a = (await l.next('attempt'))!.data;
    const res = await s.control('POST', `/sandbox/listen/attempts/${a.id}`, { status: 999, body: 'odd', duration_ms: 3 });
    expect(res.status, res.text).toBe(200);
    await s.sandbox.dispatcher.idle();
    const [d] = await deliveriesOf({ order: o.reference });
    expect(d!.attempts[0]).toMatchObject({ http_status: 999, error: 'HTTP 999', response_excerpt: 'odd' });
    expect(d!.status).toBe('retrying');
  });

  it('is documented in the OpenAPI document', async () => {
    const doc = (await (await fetch(`${s.url}/openapi.json`)).json()) as any;
    const stream = doc.paths['/sandbox/listen'].get;
    expect(stream.tags).toEqual(['sandbox']);
    expect(Object.keys(stream.responses['200'].content)).toEqual(['text/event-stream']);
    expect(stream.parameters.map((x: any) => x.name).sort()).toEqual(['client_id', 'events', 'forward_to']);
    expect(Object.keys(stream.responses)).toEqual(expect.arrayContaining(['401', '403', '404', '422']));
    const answer = doc.paths['/sandbox/listen/attempts/{id}'].post;
    expect(answer.requestBody.content['application/json'].schema.$ref).toBe('#/components/schemas/ListenAnswer');
    // A status or an error, as the server checks.
    expect(doc.components.schemas.ListenAnswer.anyOf).toEqual([{ required: ['status'] }, { required: ['error'] }]);
    expect(Object.keys(answer.responses)).toEqual(expect.arrayContaining(['200', '401', '404', '409', '413', '422']));
  });
});

describe('listening with an admin token, and stopping', () => {
  it('needs the admin token on both routes when one is set', async () => {
    const t = await startTestServer({ adminToken: 'tok' });
    try {
      const bare = await t.request('GET', `/sandbox/listen?client_id=${t.demo.clientId}`);
      expect([bare.status, bare.body.code]).toEqual([401, 'E_UNAUTHORIZED']);
      const partnerKey = await t.request('GET', `/sandbox/listen?client_id=${t.demo.clientId}`, {
        headers: { authorization: `Bearer ${t.demo.keys.test.secret_key}` },
      });
      expect(partnerKey.status).toBe(401);
      const answer = await t.request('POST', '/sandbox/listen/attempts/dlv_x.1', {
        headers: { 'content-type': 'application/json' },
        body: '{"status":200,"duration_ms":1}',
      });
      expect(answer.status).toBe(401);
      const l = await listen(t, { client_id: t.demo.clientId }, { authorization: 'Bearer tok' });
      expect((await l.next('ready'))!.data.client_id).toBe(t.demo.clientId);
    } finally {
      await t.close();
    }
  });

  it('ends listener streams on a graceful stop without waiting for them, failing what was pending', async () => {
    const t = await startTestServer();
    const l = await listen(t, { client_id: t.demo.clientId });
    await createOrder(t, 'onramp');
    await l.next('attempt');
    const report = await t.shutdown();
    expect(report).toMatchObject({ requestsCut: 0, attemptsCut: 0 });
    expect(await l.next('end')).toEqual({ event: 'end', data: { reason: 'closing', message: 'the sandbox is stopping' } });
    expect(await l.next()).toBeUndefined();
    const [d] = t.sandbox.dispatcher.list();
    expect(d).toMatchObject({ status: 'retrying', inFlight: false });
    expect(d!.attempts[0]!.error).toBe('sandbox stopping');
  });

  it('ends listener streams when the server closes', async () => {
    const t = await startTestServer();
    const l = await listen(t, { client_id: t.demo.clientId });
    await l.next('ready');
    // Read to the end: the server cuts its connections as it closes, so the last frame may not arrive.
    const ended = (async () => {
      while (await l.next().catch(() => undefined));
      return 'ended';
    })();
    await t.close();
    await expect(ended).resolves.toBe('ended');
  });
});
