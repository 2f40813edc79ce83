import { createHmac } from 'node:crypto';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createPartnerRegistry } from '../auth';
import { fixedWallClock, VirtualClock } from '../clock';
import type { WebhookEvent } from '../shared/events';
import { createIds } from '../shared/ids';
import { bodyOf } from './delivery';
import {
  createDispatcher,
  DEFAULT_RETRY_SCHEDULE_MS,
  MAX_ATTEMPTS,
  MAX_ON_DEMAND_BODY_CHARS,
  MAX_ON_DEMAND_DELIVERIES,
  type DispatcherOptions,
  type ListenerAttempt,
} from './dispatcher';
import { postAttempt } from './transport';

// CONTRACT §5: at least once, retried on the virtual clock 5 s, 5 m, 30 m, 2 h, 5 h, 10 h, 10 h
// after each failed attempt (8 attempts, then failed), every attempt logged. The transport (the
// one outbound HTTP call) is replaced by a fake receiver: no socket is opened.
vi.mock('./transport', () => ({ postAttempt: vi.fn() }));

const T0 = Date.UTC(2026, 0, 15, 12, 0, 0);
const URL_A = 'http://receiver-a.invalid/hooks';
const URL_B = 'http://receiver-b.invalid/hooks';
const S = 1_000;
const M = 60 * S;
const H = 60 * M;

/** What the fake receiver answers an attempt: an HTTP status, at once or later. */
type Answer = (call: { url: string; delivery: string; number: number }) => number | Promise<number>;

function makeDispatcher(answer: Answer, options?: Partial<DispatcherOptions>) {
  const clock = new VirtualClock({ start: T0, mode: 'manual' });
  const wall = fixedWallClock(T0);
  const ids = createIds(1);
  const partners = createPartnerRegistry({ ids, clock });
  const partner = partners.create({ client_id: 'ptr_hooks', webhook_url: URL_A });
  const calls: Array<{ url: string; delivery: string; number: number; at: number }> = [];
  vi.mocked(postAttempt).mockImplementation(async (delivery, _partner, url, number, record) => {
    calls.push({ url, delivery: delivery.id, number, at: clock.now() });
    const status = await answer({ url, delivery: delivery.id, number });
    record.http_status = status;
    if (status < 200 || status >= 300) record.error = `HTTP ${status}`;
    return status >= 200 && status < 300;
  });
  const errors: unknown[] = [];
  const dispatcher = createDispatcher({ clock, wall, ids, partners, options, onError: (e) => errors.push(e) });
  /** Advances the clock as the sandbox does: each attempt finishes at the virtual time it started. */
  const advance = (ms: number) =>
    clock.advanceToAsync(clock.now() + ms, () => (dispatcher.inFlightCount > 0 ? dispatcher.idle() : undefined));
  const send = (url: string | null = null) =>
    dispatcher.enqueue({ partner, environment: 'test', order: 'ORD1', event: 'order.created', data: { reference: 'ORD1' }, url });
  return { clock, wall, partners, partner, dispatcher, calls, errors, advance, send };
}

/** A promise the test settles by hand: a receiver that has not answered yet. */
function deferred<T>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

/** Lets pending promise callbacks run (an answered attempt records its result). */
const flush = () => new Promise<void>((resolve) => setImmediate(resolve));

afterEach(() => {
  vi.mocked(postAttempt).mockReset();
});

describe('createDispatcher', () => {
  it('makes the first attempt at once and retries 5 s, 5 m, 30 m, 2 h, 5 h, 10 h, 10 h after each failure, then fails after 8', async () => {
    const t = makeDispatcher(() => 500);
    const d = t.send();
    await t.dispatcher.idle();
    expect(t.calls.map((c) => c.at)).toEqual([T0]);
    expect(d.status).toBe('retrying');
    expect(d.next_attempt_at).toBe(T0 + 5 * S);
    // Not a millisecond early.
    await t.advance(5 * S - 1);
    expect(t.calls).toHaveLength(1);
    await t.advance(1);
    expect(t.calls).toHaveLength(2);
    await t.advance(3 * 24 * H);
    const delays = [0, 5 * S, 5 * M, 30 * M, 2 * H, 5 * H, 10 * H, 10 * H];
    const expected = delays.map((_, i) => T0 + delays.slice(0, i + 1).reduce((a, b) => a + b, 0));
    expect(t.calls.map((c) => c.at)).toEqual(expected);
    expect(d.attempts.map((a) => [a.number, a.virtual_at, a.manual, a.http_status, a.error])).toEqual(
      expected.map((at, i) => [i + 1, at, false, 500, 'HTTP 500']),
    );
    expect(d.status).toBe('failed');
    expect(d.next_attempt_at).toBeNull();
    expect(t.clock.pending).toBe(0);
    await t.advance(30 * 24 * H);
    expect(t.calls).toHaveLength(8);
    expect(DEFAULT_RETRY_SCHEDULE_MS).toEqual(delays.slice(1));
  });

  it('stops retrying at the first 2xx and keeps the body it sent', async () => {
    const answers = [500, 503, 204];
    const t = makeDispatcher(({ number }) => answers[number - 1] ?? 500);
    const d = t.send();
    await t.advance(24 * H);
    expect(d.attempts.map((a) => [a.virtual_at, a.http_status])).toEqual([
      [T0, 500],
      [T0 + 5 * S, 503],
      [T0 + 5 * S + 5 * M, 204],
    ]);
    expect(d.status).toBe('succeeded');
    expect(d.next_attempt_at).toBeNull();
    expect(t.clock.pending).toBe(0);
    expect(JSON.parse(bodyOf(d))).toEqual({ event: 'order.created', data: { reference: 'ORD1' } });
  });

  it('succeeds on a first 2xx with one attempt and no timer', async () => {
    const t = makeDispatcher(() => 200);
    const d = await t.dispatcher.send({ partner: t.partner, environment: 'live', order: null, event: 'order.settled', data: {} });
    expect(d.status).toBe('succeeded');
    expect(d.attempts).toHaveLength(1);
    expect(d.attempts[0]).toMatchObject({ number: 1, url: URL_A, virtual_at: T0, wall_at: T0, http_status: 200, error: null });
    expect(t.clock.pending).toBe(0);
  });

  it('follows the retry schedule it is given', async () => {
    const t = makeDispatcher(() => 502, { retryScheduleMs: [1 * S, 2 * S] });
    const d = t.send();
    await t.advance(H);
    expect(d.attempts.map((a) => a.virtual_at)).toEqual([T0, T0 + S, T0 + 3 * S]);
    expect(d.status).toBe('failed');
  });

  it('schedules a retry from its attempt’s virtual time, however long the receiver took to answer', async () => {
    const slow = deferred<number>();
    const t = makeDispatcher(() => slow.promise);
    const d = t.send();
    t.clock.advance(10 * S); // the clock moves on while the receiver is still thinking
    t.wall.advance(10 * S);
    slow.resolve(500);
    await t.dispatcher.idle();
    expect(d.attempts[0]!.virtual_at).toBe(T0);
    expect(d.next_attempt_at).toBe(T0 + 5 * S);
    expect(t.clock.nextDue).toBe(T0 + 5 * S);
  });

  it('never lets one delivery’s slow receiver hold up another delivery or its retries', async () => {
    const hanging = deferred<number>();
    const answersB = [500, 200];
    const t = makeDispatcher(({ url, number }) => (url === URL_A ? hanging.promise : answersB[number - 1]!));
    const a = t.send(URL_A);
    const b = t.send(URL_B);
    // B's first attempt went out while A's was still waiting for its answer.
    expect(t.calls.map((c) => c.url)).toEqual([URL_A, URL_B]);
    await flush();
    expect(a.inFlight).toBe(true);
    expect(b.status).toBe('retrying');
    t.clock.advance(5 * S); // B's retry fires on time, A still unanswered
    await flush();
    expect(t.calls.map((c) => [c.url, c.number, c.at])).toEqual([
      [URL_A, 1, T0],
      [URL_B, 1, T0],
      [URL_B, 2, T0 + 5 * S],
    ]);
    expect(b.status).toBe('succeeded');
    expect(a.status).toBe('pending');
    hanging.resolve(500);
    await t.dispatcher.idle();
    expect(a.status).toBe('retrying');
    expect(a.next_attempt_at).toBe(T0 + 5 * S);
  });

  it('fails an attempt with no request when the partner has no webhook_url or is gone, and still retries', async () => {
    const t = makeDispatcher(() => 200);
    t.partners.update('ptr_hooks', { webhook_url: null });
    const noUrl = t.send();
    await t.dispatcher.idle();
    expect(noUrl.attempts[0]).toMatchObject({ url: null, http_status: null, error: 'no webhook_url configured for the partner' });
    expect(noUrl.status).toBe('retrying');
    t.partners.retainOnly([]);
    await t.advance(5 * S);
    expect(noUrl.attempts[1]!.error).toBe('partner no longer exists');
    expect(t.calls).toEqual([]);
  });

  it('sends to the delivery’s own URL when it has one', async () => {
    const t = makeDispatcher(() => 200);
    t.send(URL_B);
    await t.dispatcher.idle();
    expect(t.calls.map((c) => c.url)).toEqual([URL_B]);
  });

  it('sends a manual retry now, in place of the pending automatic one', async () => {
    const answers = [500, 200];
    const t = makeDispatcher(({ number }) => answers[number - 1] ?? 500);
    const d = t.send();
    await t.dispatcher.idle();
    expect(t.clock.pending).toBe(1);
    t.clock.advance(2 * S);
    await t.dispatcher.retry(d.id);
    expect(d.attempts.map((a) => [a.number, a.manual, a.virtual_at])).toEqual([
      [1, false, T0],
      [2, true, T0 + 2 * S],
    ]);
    expect(d.status).toBe('succeeded');
    expect(t.clock.pending).toBe(0);
    expect(await t.dispatcher.retry('dlv_unknown')).toBeUndefined();
  });

  it('keeps a delivered event delivered when a manual retry of it fails', async () => {
    const answers = [200, 500];
    const t = makeDispatcher(({ number }) => answers[number - 1] ?? 500);
    const d = t.send();
    await t.dispatcher.idle();
    await t.dispatcher.retry(d.id);
    expect(d.attempts.map((a) => a.http_status)).toEqual([200, 500]);
    expect(d.status).toBe('succeeded');
    expect(t.clock.pending).toBe(0);
  });

  it('forgets, on clear, an attempt answered after it: nothing is scheduled for it', async () => {
    const slow = deferred<number>();
    const t = makeDispatcher(() => slow.promise);
    t.send();
    t.dispatcher.clear();
    expect(t.dispatcher.inFlightCount).toBe(0);
    slow.resolve(500);
    await flush();
    expect(t.dispatcher.list()).toEqual([]);
    expect(t.clock.pending).toBe(0);
  });

  it("forgets evicted orders' deliveries and their retry timers, but not one in flight", async () => {
    const slow = deferred<number>();
    let first = true;
    const t = makeDispatcher(() => {
      if (!first) return slow.promise;
      first = false;
      return 500;
    });
    const retrying = t.send();
    await t.dispatcher.idle();
    const inFlight = t.send();
    expect(t.dispatcher.forgetOrders(new Set(['ORD1']))).toBe(1);
    expect(t.dispatcher.get(retrying.id)).toBeUndefined();
    expect(t.dispatcher.get(inFlight.id)).toBe(inFlight);
    expect(t.clock.pending).toBe(0);
    slow.resolve(200);
    await t.dispatcher.idle();
  });
});

// CONTRACT §17 `listen`: while a listener is connected for a partner, its attempts are handed to
// the listener instead of POSTed; the answer it reports is logged like any attempt, and a failure
// (an error answer, the timeout, the listener going) follows the §5 schedule.
describe('createDispatcher with a listener', () => {
  const FORWARD = 'http://127.0.0.1:3000/webhooks?from=listen';

  /** A listener that records what it is handed and how it was ended. */
  function connect(t: ReturnType<typeof makeDispatcher>, options: { events?: WebhookEvent[]; forward_to?: string | null } = {}) {
    const handed: ListenerAttempt[] = [];
    const ended: string[] = [];
    const listener = t.dispatcher.listen(
      {
        client_id: t.partner.client_id,
        events: options.events ?? null,
        forward_to: options.forward_to === undefined ? FORWARD : options.forward_to,
      },
      { send: (a) => handed.push(a), end: (reason) => ended.push(reason) },
    );
    return { listener, handed, ended };
  }

  const answer = (t: ReturnType<typeof makeDispatcher>, a: ListenerAttempt, status: number, body = 'ok') =>
    t.dispatcher.answerListener(a.id, { status, body, duration_ms: 12.4 });

  it('hands the attempt, signed over the forward URL’s path, to the listener instead of POSTing it, and logs the answer', async () => {
    const t = makeDispatcher(() => 200);
    const l = connect(t);
    const d = t.send();
    expect(t.calls).toEqual([]);
    expect(l.handed).toHaveLength(1);
    const a = l.handed[0]!;
    expect(a).toMatchObject({
      id: `${d.id}.1`,
      delivery_id: d.id,
      client_id: 'ptr_hooks',
      environment: 'test',
      event: 'order.created',
      order: 'ORD1',
      attempt: 1,
      path: '/webhooks?from=listen',
      body: bodyOf(d),
    });
    expect(a.headers).toMatchObject({
      'content-type': 'application/json',
      'svc-event': 'order.created',
      'svc-delivery-id': d.id,
      'svc-attempt': '1',
      'svc-timestamp': String(T0),
    });
    const expected = createHmac('sha256', t.partner.keys.test.encryption_key)
      .update(`ptr_hooks|${T0}|POST|/webhooks?from=listen|${a.body}`)
      .digest('hex');
    expect(a.headers['svc-signature']).toBe(`sha256=${expected}`);
    expect(d.inFlight).toBe(true);
    expect(answer(t, a, 204, 'accepted')).toEqual({ id: a.id, delivery_id: d.id, attempt: 1, succeeded: true });
    await t.dispatcher.idle();
    expect(d.status).toBe('succeeded');
    expect(d.attempts).toEqual([
      expect.objectContaining({
        number: 1,
        url: FORWARD,
        via: 'listener',
        http_status: 204,
        response_excerpt: 'accepted',
        duration_ms: 12,
        error: null,
      }),
    ]);
  });

  it('retries an attempt the listener reports as failed on the §5 schedule, through the listener again', async () => {
    const t = makeDispatcher(() => 200);
    const l = connect(t);
    const d = t.send();
    answer(t, l.handed[0]!, 500, 'boom');
    await t.dispatcher.idle();
    expect(d.status).toBe('retrying');
    expect(d.attempts[0]).toMatchObject({ http_status: 500, error: 'HTTP 500', response_excerpt: 'boom' });
    expect(d.next_attempt_at).toBe(T0 + 5 * S);
    const advanced = t.advance(5 * S);
    await flush();
    expect(l.handed.map((a) => [a.attempt, a.headers['svc-attempt']])).toEqual([
      [1, '1'],
      [2, '2'],
    ]);
    t.dispatcher.answerListener(l.handed[1]!.id, { error: 'connection refused', duration_ms: 1 });
    await advanced;
    expect(d.attempts[1]).toMatchObject({ virtual_at: T0 + 5 * S, http_status: null, error: 'connection refused', via: 'listener' });
    expect(d.next_attempt_at).toBe(T0 + 5 * S + 5 * M);
    expect(t.calls).toEqual([]);
  });

  it('fails the pending attempt when the listener disconnects, retries it on schedule, and then POSTs to webhook_url again', async () => {
    const t = makeDispatcher(() => 200);
    const l = connect(t);
    const d = t.send();
    t.dispatcher.unlisten(l.listener);
    await t.dispatcher.idle();
    expect(d.attempts[0]).toMatchObject({ via: 'listener', http_status: null, error: 'listener disconnected' });
    expect(d.status).toBe('retrying');
    expect(d.next_attempt_at).toBe(T0 + 5 * S);
    await t.advance(5 * S);
    expect(t.calls.map((c) => [c.url, c.number, c.at])).toEqual([[URL_A, 2, T0 + 5 * S]]);
    expect(d.status).toBe('succeeded');
    expect(d.attempts[1]!.via).toBeUndefined();
    expect(t.dispatcher.listenerCount).toBe(0);
  });

  it('fails an attempt whose answer does not come within the timeout, like a receiver timeout', async () => {
    const t = makeDispatcher(() => 200, { timeoutMs: 1 });
    const l = connect(t);
    const d = t.send();
    await t.dispatcher.idle();
    expect(d.attempts[0]).toMatchObject({ error: 'timed out after 1 ms', http_status: null });
    expect(d.status).toBe('retrying');
    // A late answer changes nothing.
    expect(() => answer(t, l.handed[0]!, 200)).toThrow(
      expect.objectContaining({ status: 409, message: expect.stringMatching(/already ended \(timed out after 1 ms\)/) }),
    );
  });

  it('refuses a second answer (409) and an answer for an attempt no listener was handed (404)', async () => {
    const t = makeDispatcher(() => 200);
    const l = connect(t);
    const d = t.send();
    answer(t, l.handed[0]!, 200);
    await t.dispatcher.idle();
    expect(() => answer(t, l.handed[0]!, 500)).toThrow(
      expect.objectContaining({ status: 409, code: 'E_CONFLICT', message: expect.stringMatching(/already ended \(answered 200\)/) }),
    );
    expect(d.attempts).toHaveLength(1);
    expect(d.attempts[0]!.http_status).toBe(200);
    t.dispatcher.unlisten(l.listener);
    const posted = t.send();
    await t.dispatcher.idle();
    for (const id of [`${posted.id}.1`, `${d.id}.2`, 'dlv_nope.1', 'nothing', '.1', `${d.id}.x`]) {
      expect(() => t.dispatcher.answerListener(id, { status: 200, duration_ms: 1 }), id).toThrow(
        expect.objectContaining({ status: 404, code: 'E_NOTFOUND' }),
      );
    }
  });

  it('keeps at most 500 characters of the answer in the log', async () => {
    const t = makeDispatcher(() => 200);
    const l = connect(t);
    const d = t.send();
    answer(t, l.handed[0]!, 200, 'x'.repeat(4096));
    await t.dispatcher.idle();
    expect(d.attempts[0]!.response_excerpt).toBe('x'.repeat(500));
  });

  it('hands over only the events of its filter; the others go to webhook_url', async () => {
    const t = makeDispatcher(() => 200);
    const l = connect(t, { events: ['order.settled'] });
    expect(t.dispatcher.listening('ptr_hooks', 'order.settled')).toBe(true);
    expect(t.dispatcher.listening('ptr_hooks', 'order.created')).toBe(false);
    expect(t.dispatcher.listening('ptr_other', 'order.settled')).toBe(false);
    const created = t.send();
    const settled = t.dispatcher.enqueue({ partner: t.partner, environment: 'live', order: 'ORD1', event: 'order.settled', data: {} });
    expect(t.calls.map((c) => c.delivery)).toEqual([created.id]);
    expect(l.handed.map((a) => [a.delivery_id, a.environment])).toEqual([[settled.id, 'live']]);
    answer(t, l.handed[0]!, 200);
    await t.dispatcher.idle();
    expect([created.status, settled.status]).toEqual(['succeeded', 'succeeded']);
  });

  it('gives the partner to the newest listener: the previous one is ended and what it had pending fails and is retried', async () => {
    const t = makeDispatcher(() => 200);
    const first = connect(t);
    const d = t.send();
    const second = connect(t, { forward_to: 'http://laptop.test:8080/other' });
    expect(first.ended).toEqual(['replaced']);
    expect(second.ended).toEqual([]);
    expect(t.dispatcher.listenerCount).toBe(1);
    await t.dispatcher.idle();
    expect(d.attempts[0]).toMatchObject({ url: FORWARD, error: 'listener replaced by a newer one for this partner' });
    // The first listener's late stream close does not disconnect the second.
    t.dispatcher.unlisten(first.listener);
    const advanced = t.advance(5 * S);
    await flush();
    expect(second.handed.map((a) => [a.id, a.path])).toEqual([[`${d.id}.2`, '/other']]);
    answer(t, second.handed[0]!, 200);
    await advanced;
    expect(d.status).toBe('succeeded');
    expect(first.handed).toHaveLength(1);
  });

  it('signs over the path of webhook_url when the listener names no URL, and delivers with no webhook_url at all', async () => {
    const t = makeDispatcher(() => 200);
    const l = connect(t, { forward_to: null });
    t.send();
    expect(l.handed[0]!.path).toBe('/hooks');
    t.partners.update('ptr_hooks', { webhook_url: null });
    const d = t.send();
    expect(l.handed[1]!.path).toBe('/');
    answer(t, l.handed[1]!, 200);
    answer(t, l.handed[0]!, 200);
    await t.dispatcher.idle();
    expect(d.status).toBe('succeeded');
    expect(d.attempts[0]!.url).toBeNull();
  });

  it('sends a delivery that has its own URL there, not to the listener', async () => {
    const t = makeDispatcher(() => 200);
    const l = connect(t);
    t.send(URL_B);
    await t.dispatcher.idle();
    expect(t.calls.map((c) => c.url)).toEqual([URL_B]);
    expect(l.handed).toEqual([]);
  });

  it('ends every listener on close and on reset forgets what was pending, scheduling nothing', async () => {
    const t = makeDispatcher(() => 200);
    const l = connect(t);
    const d = t.send();
    t.dispatcher.clear();
    await flush();
    expect(t.clock.pending).toBe(0);
    expect(d.attempts[0]!.error).toBe('the sandbox was reset');
    expect(() => answer(t, l.handed[0]!, 200)).toThrow(expect.objectContaining({ status: 404 }));
    const after = t.send();
    t.dispatcher.closeListeners();
    expect(l.ended).toEqual(['closing']);
    await t.dispatcher.idle();
    expect(after.attempts[0]!.error).toBe('sandbox stopping');
    expect(t.dispatcher.listenerCount).toBe(0);
  });
});

describe('the log of on-demand deliveries is bounded (CONTRACT §9: memory is bounded)', () => {
  const sendOnDemand = (t: ReturnType<typeof makeDispatcher>, data: unknown, order: string | null = null) =>
    t.dispatcher.send({ partner: t.partner, environment: 'test', order, event: 'order.created', data, url: URL_B, source: 'manual' });

  it(`keeps the newest ${MAX_ON_DEMAND_DELIVERIES} sends, with or without an order, and forgets the oldest (their retry timers too)`, async () => {
    // Every attempt fails: each send waits for its retry, a timer on the clock.
    const t = makeDispatcher(() => 500);
    const lifecycle = t.send(); // an order's own delivery is never forgotten here
    await t.dispatcher.idle();
    const first = await sendOnDemand(t, { reference: 'ORDX' });
    for (let i = 1; i < MAX_ON_DEMAND_DELIVERIES; i++) await sendOnDemand(t, { reference: 'ORDX', i }, i % 2 ? 'ORD1' : null);
    expect(t.dispatcher.get(first.id)).toBeDefined();
    const last = await sendOnDemand(t, { reference: 'ORDX', last: true });
    expect(t.dispatcher.get(first.id)).toBeUndefined();
    expect(t.dispatcher.get(last.id)).toBeDefined();
    expect(t.dispatcher.get(lifecycle.id)).toBeDefined();
    expect(t.dispatcher.list().filter((d) => d.source === 'manual')).toHaveLength(MAX_ON_DEMAND_DELIVERIES);
    // one retry timer per delivery kept (the lifecycle's and the sends'), none for the forgotten
    expect(t.clock.pending).toBe(MAX_ON_DEMAND_DELIVERIES + 1);
  });

  it(`keeps their bodies under ${MAX_ON_DEMAND_BODY_CHARS / 1024 / 1024} Mi characters in all`, async () => {
    const t = makeDispatcher(() => 200);
    const blob = 'x'.repeat(900 * 1024);
    const sent = [];
    for (let i = 0; i < 100; i++) sent.push(await sendOnDemand(t, { reference: `ORD${i}`, blob }));
    const kept = t.dispatcher.list();
    const chars = kept.reduce((sum, d) => sum + bodyOf(d).length, 0);
    expect(chars).toBeLessThanOrEqual(MAX_ON_DEMAND_BODY_CHARS);
    expect(kept.length).toBe(Math.floor(MAX_ON_DEMAND_BODY_CHARS / bodyOf(sent[99]!).length));
    expect(kept.at(-1)!.id).toBe(sent[99]!.id);
    expect(t.dispatcher.get(sent[0]!.id)).toBeUndefined();
  });

  it(`refuses a manual retry past ${MAX_ATTEMPTS} attempts with 409, naming what to do`, async () => {
    const t = makeDispatcher(() => 200);
    const d = await sendOnDemand(t, { reference: 'ORDX' });
    for (let i = 1; i < MAX_ATTEMPTS; i++) await t.dispatcher.retry(d.id);
    expect(d.attempts).toHaveLength(MAX_ATTEMPTS);
    await expect(t.dispatcher.retry(d.id)).rejects.toMatchObject({ status: 409, message: expect.stringMatching(/send the event again/) });
    expect(d.attempts).toHaveLength(MAX_ATTEMPTS);
  });
});
