import { clockView, type VirtualClock } from '../clock';
import type { OrderEvents } from '../orders';
import type { Bus } from '../shared/bus';
import { SseStream, type CutInfo } from '../shared/sse-stream';
import type { DeliveryEvents } from '../webhooks';

/** What the page is told changed (CONTRACT §15: order, delivery, request and clock changes). */
export type LiveKind = 'order' | 'delivery' | 'request' | 'clock';

/**
 * What the feed listens to on the sandbox's bus: order and delivery changes, and each /v1
 * request the inspector records (only that one happened matters here).
 */
export type LiveEvents = Pick<OrderEvents, 'order.changed'> & DeliveryEvents & { 'request.recorded': unknown };

export interface LiveFeedDeps {
  clock: VirtualClock;
  bus: Pick<Bus<LiveEvents>, 'on'>;
  /** Wall ms between two flushes (default 250). */
  intervalMs?: number;
  /** Wall ms between keep-alive comments (default 15 s). */
  keepAliveMs?: number;
  /** Bytes a page may leave unread before its stream is cut (default 256 KiB). */
  maxUnreadBytes?: number;
  /** Told when a stream is cut (the sandbox logs it). */
  onCut?: (info: CutInfo) => void;
}

/** References or ids named in one message at most; past that the message says "all". */
const NAMED = 50;

/**
 * The dashboard's live feed (`GET /sandbox/events`). Changes only set flags (and remember up to
 * 50 names): a busy sandbox pays nothing per /v1 request beyond that, however many pages are
 * open. One wall-clock tick every 250 ms turns what changed into one message, written to every
 * open stream; a page then fetches what it shows. Nothing is watched while no page is open.
 */
export class LiveFeed {
  private readonly streams = new Set<SseStream>();
  private readonly orderRefs = new Set<string>();
  private readonly deliveryIds = new Set<string>();
  private ordersAll = false;
  private deliveriesAll = false;
  private requestCount = 0;
  private lastClock = '';
  private unsubscribe: Array<() => void> = [];
  private timer: ReturnType<typeof setInterval> | undefined;
  private sinceKeepAlive = 0;
  private closed = false;

  constructor(private readonly deps: LiveFeedDeps) {}

  /** A new event stream; it ends when the client goes or the feed closes (at once once closed). */
  open(): SseStream {
    const { maxUnreadBytes: limit, onCut } = this.deps;
    const stream = new SseStream({ stream: 'dashboard', ...(limit !== undefined ? { limit } : {}), ...(onCut ? { onCut } : {}) });
    if (this.closed) {
      // The sandbox is stopping: the page is told to come back later, and nothing holds the stop.
      stream.end('retry: 2000\n\n');
      return stream;
    }
    this.streams.add(stream);
    stream.on('close', () => this.drop(stream));
    if (this.streams.size === 1) this.start();
    // The current clock at once, so the page need not wait for a change to show it.
    stream.send(`retry: 2000\n\n${frame('clock', this.clockJson())}`);
    return stream;
  }

  /**
   * Ends every stream and refuses new ones (server close): an open event stream would hold the
   * server open.
   */
  close(): void {
    this.closed = true;
    for (const stream of [...this.streams]) stream.end();
    this.stop();
  }

  get connections(): number {
    return this.streams.size;
  }

  private start() {
    const { bus } = this.deps;
    this.unsubscribe = [
      bus.on('order.changed', (reference) => {
        if (reference === null || this.orderRefs.size >= NAMED) this.ordersAll = true;
        else this.orderRefs.add(reference);
      }),
      bus.on('delivery.changed', (delivery) => {
        if (delivery === null || this.deliveryIds.size >= NAMED) this.deliveriesAll = true;
        else this.deliveryIds.add(delivery.id);
      }),
      bus.on('request.recorded', () => {
        this.requestCount++;
      }),
    ];
    this.lastClock = this.clockKey();
    this.timer = setInterval(() => this.flush(), this.deps.intervalMs ?? 250);
    this.timer.unref?.();
  }

  private stop() {
    for (const off of this.unsubscribe) off();
    this.unsubscribe = [];
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
    this.orderRefs.clear();
    this.deliveryIds.clear();
    this.ordersAll = this.deliveriesAll = false;
    this.requestCount = 0;
  }

  private drop(stream: SseStream) {
    this.streams.delete(stream);
    if (this.streams.size === 0) this.stop();
  }

  /** The clock as the page sees it; a realtime clock's `now` moves on its own, so it is left out. */
  private clockKey(): string {
    const { clock } = this.deps;
    return `${clock.mode}|${clock.speed}|${clock.pending}|${clock.nextDue}|${clock.mode === 'manual' ? clock.now() : ''}`;
  }

  private clockJson(): string {
    return JSON.stringify(clockView(this.deps.clock));
  }

  private flush() {
    let out = '';
    if (this.ordersAll || this.orderRefs.size > 0) {
      out += frame('order', JSON.stringify({ all: this.ordersAll, references: this.ordersAll ? [] : [...this.orderRefs] }));
      this.orderRefs.clear();
      this.ordersAll = false;
    }
    if (this.deliveriesAll || this.deliveryIds.size > 0) {
      out += frame('delivery', JSON.stringify({ all: this.deliveriesAll, ids: this.deliveriesAll ? [] : [...this.deliveryIds] }));
      this.deliveryIds.clear();
      this.deliveriesAll = false;
    }
    if (this.requestCount > 0) {
      out += frame('request', JSON.stringify({ count: this.requestCount }));
      this.requestCount = 0;
    }
    const key = this.clockKey();
    if (key !== this.lastClock) {
      this.lastClock = key;
      out += frame('clock', this.clockJson());
    }
    const intervalMs = this.deps.intervalMs ?? 250;
    this.sinceKeepAlive += intervalMs;
    if (!out && this.sinceKeepAlive >= (this.deps.keepAliveMs ?? 15_000)) out = ': keep-alive\n\n';
    if (!out) return;
    this.sinceKeepAlive = 0;
    // A page that does not read (a paused tab) is not written to without end: past its limit its
    // connection is cut (SseStream), and it reconnects and refetches when it reads again.
    for (const stream of [...this.streams]) stream.send(out);
  }
}

function frame(event: LiveKind, data: string): string {
  return `event: ${event}\ndata: ${data}\n\n`;
}
