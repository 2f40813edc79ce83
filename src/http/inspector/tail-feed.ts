import { ISO } from '../../clock';
import type { Bus } from '../../shared/bus';
import { SseStream, type CutInfo } from '../../shared/sse-stream';
import type { Delivery, DeliveryEvents } from '../../webhooks';
import type { RequestEvents } from './recorder';
import { materialise, type RawRecord } from './request-log.record';
import type { RecordedRequest } from './request-log.schemas';

/** What `ramp-sandbox tail` follows (CONTRACT §17): each /v1 request and each delivery attempt. */
export type TailEvents = DeliveryEvents & RequestEvents;

/** Which events one stream wants. */
export interface TailFilter {
  requests: boolean;
  deliveries: boolean;
  /** Only this partner's requests (authenticated, or the svc-client-id sent) and deliveries. */
  clientId?: string;
}

/** One /v1 request as the tail shows it: the inspector's entry (CONTRACT §11) without headers and bodies. */
export type TailRequest = { type: 'request' } & Omit<RecordedRequest, 'headers' | 'response_headers' | 'request_body' | 'response_body'>;

/** One finished delivery attempt as the tail shows it. */
export interface TailDelivery {
  type: 'delivery';
  /** The delivery's id (svc-delivery-id). */
  id: string;
  event: string;
  order: string | null;
  client_id: string;
  environment: string;
  attempt: number;
  manual: boolean;
  url: string | null;
  http_status: number | null;
  error: string | null;
  duration_ms: number;
  /** Whether the receiver answered 2xx. */
  ok: boolean;
  /** Where the delivery stands after the attempt: succeeded, retrying or failed. */
  delivery_status: Delivery['status'];
  /** When a retrying delivery's next attempt is due (virtual time). */
  next_attempt_at: string | null;
  /** Wall time the attempt started. */
  at: string;
  virtual_at: string;
}

/** Told to a stream that fell behind, once it reads again: how many events it missed. */
export interface TailDropped {
  type: 'dropped';
  dropped: number;
}

export interface TailFeedDeps {
  bus: Pick<Bus<TailEvents>, 'on'>;
  /**
   * Bytes a stream may hold unread before events for it are dropped (and counted, and the count
   * told once it reads again) rather than kept: default 256 KiB.
   */
  maxBufferedBytes?: number;
  /**
   * Bytes a stream may leave unread, held or dropped since it last caught up, before its
   * connection is cut: default 1 MiB. A reader that reads, however slowly, catches up and is
   * never cut; one that never reads is cut once it has missed that much.
   */
  maxUnreadBytes?: number;
  /** Wall ms between keep-alive comments (default 15 s). */
  keepAliveMs?: number;
  /** Told when a stream is cut (the sandbox logs it). */
  onCut?: (info: CutInfo) => void;
}

interface Tail {
  stream: SseStream;
  filter: TailFilter;
  dropped: number;
  /** Bytes of the events dropped since the stream last caught up. */
  droppedBytes: number;
}

/** Attempts remembered as told, so one told twice (a second change of the same attempt) is not. */
const TOLD_LIMIT = 4096;

/**
 * The detailed live feed behind `GET /sandbox/tail`: one server-sent event per /v1 request and
 * per finished webhook attempt, filtered per stream. It subscribes to the bus only while a stream
 * is open. A stream that does not read is never written to without end: past `maxBufferedBytes`
 * its events are dropped and counted, and the count is sent when it has drained; once it has
 * missed `maxUnreadBytes`, its connection is cut (`SseStream`, one log line). `close()` ends
 * every stream (server close, and first thing in a graceful stop).
 */
export class TailFeed {
  private readonly tails = new Set<Tail>();
  private unsubscribe: Array<() => void> = [];
  private keepAlive: ReturnType<typeof setInterval> | undefined;
  /** `deliveryId#attempt` of the attempts told, oldest first. */
  private readonly told = new Set<string>();

  private readonly limit: number;

  constructor(private readonly deps: TailFeedDeps) {
    this.limit = deps.maxBufferedBytes ?? 256 * 1024;
  }

  private get cutAt(): number {
    return Math.max(this.deps.maxUnreadBytes ?? 1024 * 1024, this.limit);
  }

  /** A new stream of the events `filter` wants; it ends when the client goes or the feed closes. */
  open(filter: TailFilter): SseStream {
    // `drain` (the cue to tell what was dropped) comes only after a write past the high-water mark.
    const { onCut } = this.deps;
    const stream = new SseStream({
      stream: 'tail',
      limit: this.cutAt,
      writableHighWaterMark: Math.min(this.limit, 16 * 1024),
      ...(onCut ? { onCut } : {}),
    });
    const tail: Tail = { stream, filter, dropped: 0, droppedBytes: 0 };
    this.tails.add(tail);
    tail.stream.on('close', () => this.drop(tail));
    // A reader that fell behind and caught up hears how much it missed.
    tail.stream.on('drain', () => this.tellDropped(tail));
    if (this.tails.size === 1) this.start();
    tail.stream.send(
      frame('ready', JSON.stringify({ requests: filter.requests, deliveries: filter.deliveries, client_id: filter.clientId ?? null })),
    );
    return tail.stream;
  }

  /** Ends every stream: an open event stream would hold a server's close (or a graceful stop) open. */
  close(): void {
    for (const tail of [...this.tails]) tail.stream.end();
    this.stop();
  }

  get connections(): number {
    return this.tails.size;
  }

  private start() {
    const { bus } = this.deps;
    this.unsubscribe = [
      bus.on('request.recorded', ({ id, raw }) => this.publish('requests', raw.clientId, () => tailRequest(id, raw))),
      bus.on('delivery.changed', (delivery) => {
        if (delivery === null || delivery.inFlight) return;
        const attempt = delivery.attempts.at(-1);
        if (!attempt) return;
        const key = `${delivery.id}#${attempt.number}`;
        if (this.told.has(key)) return;
        this.told.add(key);
        if (this.told.size > TOLD_LIMIT) this.told.delete(this.told.values().next().value!);
        this.publish('deliveries', delivery.client_id, () => tailDelivery(delivery));
      }),
    ];
    const keepAliveMs = this.deps.keepAliveMs ?? 15_000;
    this.keepAlive = setInterval(() => {
      for (const tail of [...this.tails]) if (tail.stream.writableLength === 0) tail.stream.send(': keep-alive\n\n');
    }, keepAliveMs);
    this.keepAlive.unref?.();
  }

  private stop() {
    for (const off of this.unsubscribe) off();
    this.unsubscribe = [];
    if (this.keepAlive !== undefined) clearInterval(this.keepAlive);
    this.keepAlive = undefined;
    this.told.clear();
  }

  private drop(tail: Tail) {
    this.tails.delete(tail);
    if (this.tails.size === 0) this.stop();
  }

  /** Writes one event to every stream that wants it; the event is built once, and only if one does. */
  private publish(kind: 'requests' | 'deliveries', clientId: string | undefined, build: () => TailRequest | TailDelivery) {
    let text: string | undefined;
    for (const tail of [...this.tails]) {
      if (!tail.filter[kind] || (tail.filter.clientId !== undefined && tail.filter.clientId !== clientId)) continue;
      text ??= frame(kind === 'requests' ? 'request' : 'delivery', JSON.stringify(build()));
      if (tail.stream.writableLength > this.limit) {
        // Held back, and counted towards the cut: a reader that never reads is not kept forever.
        tail.dropped++;
        tail.droppedBytes += text.length;
        if (tail.stream.unread + tail.droppedBytes > this.cutAt) tail.stream.cut(tail.stream.unread + tail.droppedBytes);
        continue;
      }
      this.tellDropped(tail);
      tail.stream.send(text, tail.droppedBytes);
    }
  }

  private tellDropped(tail: Tail) {
    if (tail.dropped === 0) return;
    const dropped: TailDropped = { type: 'dropped', dropped: tail.dropped };
    tail.dropped = 0;
    tail.droppedBytes = 0;
    tail.stream.send(frame('dropped', JSON.stringify(dropped)));
  }
}

function frame(event: string, data: string): string {
  return `event: ${event}\ndata: ${data}\n\n`;
}

/** The tail's view of a recorded request: the inspector's entry without headers and bodies. */
function tailRequest(id: string, raw: Readonly<RawRecord>): TailRequest {
  const { headers: _headers, response_headers: _answered, request_body: _request, response_body: _response, ...entry } = materialise(raw);
  return { type: 'request', id, ...entry };
}

/** The tail's view of a delivery's last attempt, once it is done. */
function tailDelivery(delivery: Delivery): TailDelivery {
  const attempt = delivery.attempts.at(-1)!;
  const status = attempt.http_status;
  return {
    type: 'delivery',
    id: delivery.id,
    event: delivery.event,
    order: delivery.order,
    client_id: delivery.client_id,
    environment: delivery.environment,
    attempt: attempt.number,
    manual: attempt.manual,
    url: attempt.url,
    http_status: status,
    error: attempt.error,
    duration_ms: attempt.duration_ms,
    ok: status !== null && status >= 200 && status < 300,
    delivery_status: delivery.status,
    next_attempt_at: delivery.next_attempt_at === null ? null : ISO(delivery.next_attempt_at),
    at: ISO(attempt.wall_at),
    virtual_at: ISO(attempt.virtual_at),
  };
}
