import { once } from 'node:events';
import type { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createBus } from '../../shared/bus';
import type { Delivery } from '../../webhooks';
import type { RawRecord } from './request-log.record';
import type { CutInfo } from '../../shared/sse-stream';
import { TailFeed, type TailEvents, type TailFeedDeps } from './tail-feed';

const T0 = Date.UTC(2026, 0, 15, 12, 0, 0);

function raw(over: Partial<RawRecord> = {}): RawRecord {
  return {
    wallMs: T0,
    virtualMs: T0,
    method: 'GET',
    path: '/v1/networks',
    status: 200,
    ms: 1.234,
    auth: 'secret',
    headers: {},
    clientId: 'ptr_a',
    environment: 'test',
    ...over,
  };
}

function delivery(over: Partial<Delivery> = {}): Delivery {
  return {
    id: 'dlv_1',
    client_id: 'ptr_a',
    environment: 'test',
    order: 'ORD1',
    event: 'order.created',
    body: '{}',
    urlOverride: null,
    source: 'lifecycle',
    status: 'pending',
    attempts: [],
    automaticAttempts: 0,
    next_attempt_at: null,
    created_at: T0,
    inFlight: false,
    timer: null,
    ...over,
  };
}

const attempt = (number: number, http_status: number | null, error: string | null = null) => ({
  number,
  manual: false,
  url: 'http://receiver.test/hooks',
  virtual_at: T0,
  wall_at: T0,
  duration_ms: 7,
  http_status,
  error,
  response_excerpt: null,
});

/** A server-sent event: its name and its data, parsed. */
type Sse = { event: string; data: { id?: string; dropped?: number; [field: string]: unknown } };

/** Everything a stream has buffered, as server-sent events. */
function events(stream: PassThrough): Sse[] {
  const text = String(stream.read() ?? '');
  return text
    .split('\n\n')
    .filter((f) => f.startsWith('event: '))
    .map((f) => {
      const [event, data] = f.split('\n');
      return { event: event!.slice(7), data: JSON.parse(data!.slice(6)) };
    });
}

function makeFeed(maxBufferedBytes?: number, more: Partial<TailFeedDeps> = {}) {
  const bus = createBus<TailEvents>();
  const feed = new TailFeed({ bus, ...(maxBufferedBytes ? { maxBufferedBytes } : {}), ...more });
  return { bus, feed };
}

describe('TailFeed (GET /sandbox/tail)', () => {
  it('listens to the bus only while a stream is open, and ends its streams on close', async () => {
    const { bus, feed } = makeFeed();
    expect(bus.has('request.recorded') || bus.has('delivery.changed')).toBe(false);
    const a = feed.open({ requests: true, deliveries: true });
    const b = feed.open({ requests: true, deliveries: false });
    expect(bus.has('request.recorded') && bus.has('delivery.changed')).toBe(true);
    a.destroy();
    await once(a, 'close');
    expect(bus.has('request.recorded')).toBe(true);
    const ended = once(b, 'end');
    b.resume();
    feed.close();
    await ended;
    expect(feed.connections).toBe(0);
    expect(bus.has('request.recorded') || bus.has('delivery.changed')).toBe(false);
  });

  it('opens with ready, then tells each request with its hint, and each finished attempt once', () => {
    const { bus, feed } = makeFeed();
    const stream = feed.open({ requests: true, deliveries: true });
    bus.emit('request.recorded', {
      id: 'req_1',
      raw: raw({
        status: 401,
        code: 'E_UNAUTHORIZED',
        message: 'Invalid signature',
        hint: 'prefix=x; body_sha256=y; body_length=0',
        auth: 'failed',
      }),
    });
    const d = delivery({ attempts: [attempt(1, null)], inFlight: true });
    bus.emit('delivery.changed', d); // the attempt starts: nothing to tell yet
    d.inFlight = false;
    d.attempts[0] = attempt(1, 500, 'HTTP 500');
    d.status = 'retrying';
    d.next_attempt_at = T0 + 5_000;
    bus.emit('delivery.changed', d);
    bus.emit('delivery.changed', d); // the same attempt again: told once
    bus.emit('delivery.changed', null);
    expect(events(stream)).toEqual([
      { event: 'ready', data: { requests: true, deliveries: true, client_id: null } },
      {
        event: 'request',
        data: {
          type: 'request',
          id: 'req_1',
          at: '2026-01-15T12:00:00.000Z',
          virtual_at: '2026-01-15T12:00:00.000Z',
          method: 'GET',
          path: '/v1/networks',
          status: 401,
          code: 'E_UNAUTHORIZED',
          message: 'Invalid signature',
          duration_ms: 1.23,
          client_id: 'ptr_a',
          environment: 'test',
          auth: 'failed',
          hint: 'prefix=x; body_sha256=y; body_length=0',
        },
      },
      {
        event: 'delivery',
        data: {
          type: 'delivery',
          id: 'dlv_1',
          event: 'order.created',
          order: 'ORD1',
          client_id: 'ptr_a',
          environment: 'test',
          attempt: 1,
          manual: false,
          url: 'http://receiver.test/hooks',
          http_status: 500,
          error: 'HTTP 500',
          duration_ms: 7,
          ok: false,
          delivery_status: 'retrying',
          next_attempt_at: '2026-01-15T12:00:05.000Z',
          at: '2026-01-15T12:00:00.000Z',
          virtual_at: '2026-01-15T12:00:00.000Z',
        },
      },
    ]);
    feed.close();
  });

  it("gives each stream what its filter asks: requests, deliveries, one partner's", () => {
    const { bus, feed } = makeFeed();
    const onlyRequests = feed.open({ requests: true, deliveries: false });
    const onlyB = feed.open({ requests: true, deliveries: true, clientId: 'ptr_b' });
    bus.emit('request.recorded', { id: 'req_a', raw: raw() });
    bus.emit('request.recorded', { id: 'req_b', raw: raw({ clientId: 'ptr_b' }) });
    bus.emit('delivery.changed', delivery({ id: 'dlv_b', client_id: 'ptr_b', attempts: [attempt(1, 200)] }));
    const ids = (s: PassThrough) =>
      events(s)
        .slice(1)
        .map((e) => e.data.id);
    expect(ids(onlyRequests)).toEqual(['req_a', 'req_b']);
    expect(ids(onlyB)).toEqual(['req_b', 'dlv_b']);
    feed.close();
  });

  it('holds at most its limit for a reader that does not read, and tells it how many it missed once it reads', async () => {
    // Cut off only past 64 MiB missed: this reader comes back before that.
    const { bus, feed } = makeFeed(4096, { maxUnreadBytes: 64 << 20 });
    const stream = feed.open({ requests: true, deliveries: false });
    for (let i = 0; i < 10_000; i++) bus.emit('request.recorded', { id: `req_${i}`, raw: raw() });
    // PassThrough keeps 16 KiB on its readable side; beyond that, only the limit and one event.
    expect(stream.writableLength).toBeLessThan(4096 + 1024);
    const seen: Sse[] = [];
    const drained = once(stream, 'drain');
    let text = '';
    stream.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
    await drained;
    bus.emit('request.recorded', { id: 'req_last', raw: raw() });
    await new Promise((r) => setImmediate(r));
    for (const f of text.split('\n\n'))
      if (f.startsWith('event: ')) seen.push({ event: f.split('\n')[0]!.slice(7), data: JSON.parse(f.split('\n')[1]!.slice(6)) });
    const told = seen.filter((e) => e.event === 'request').length;
    const dropped = seen.filter((e) => e.event === 'dropped');
    expect(dropped).toHaveLength(1);
    expect(told + dropped[0]!.data.dropped!).toBe(10_001);
    expect(dropped[0]!.data.dropped).toBeGreaterThan(9_000);
    expect(seen.at(-1)!.data.id).toBe('req_last');
    feed.close();
  });

  // Issue item 8: a stream that never reads is cut, with one line, once it has missed the limit.
  it('cuts a stream that never reads once it has left maxUnreadBytes unread, once, and keeps a reading one', async () => {
    const cuts: CutInfo[] = [];
    const { bus, feed } = makeFeed(4096, { maxUnreadBytes: 64 * 1024, onCut: (info) => cuts.push(info) });
    const idle = feed.open({ requests: true, deliveries: false });
    const reading = feed.open({ requests: true, deliveries: false });
    let read = 0;
    reading.on('data', (chunk: Buffer) => (read += chunk.length));
    const closed = once(idle, 'close');
    let sent = 0;
    // Events keep coming; the reader reads between them (one turn of the event loop per ten).
    while (!idle.destroyed && sent < 10_000) {
      bus.emit('request.recorded', { id: `req_${sent++}`, raw: raw() });
      if (sent % 10 === 0) await new Promise((r) => setImmediate(r));
    }
    expect(idle.destroyed).toBe(true);
    await closed;
    expect(cuts).toEqual([{ stream: 'tail', unread: expect.any(Number), limit: 64 * 1024 }]);
    expect(cuts[0]!.unread).toBeGreaterThan(64 * 1024);
    expect(sent).toBeLessThan(10_000);
    expect(feed.connections).toBe(1);
    bus.emit('request.recorded', { id: 'req_after', raw: raw() });
    await new Promise((r) => setImmediate(r));
    expect(reading.destroyed).toBe(false);
    expect(read).toBeGreaterThan(64 * 1024);
    feed.close();
  });
});
