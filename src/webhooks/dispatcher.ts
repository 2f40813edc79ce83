import type { Partner, PartnerRegistry } from '../auth';
import type { TimerTag, VirtualClock, WallClock } from '../clock';
import type { Environment } from '../reference';
import type { WebhookEvent } from '../shared/events';
import { createBus, type Bus } from '../shared/bus';
import { conflict, notFound } from '../shared/errors';
import { unused, type Ids } from '../shared/ids';
import { ShardedMap } from '../shared/sharded-map';
import {
  bodyOf,
  deliveryRecord,
  deliveryRecordView,
  packBody,
  type Attempt,
  type SharedAnswers,
  type Delivery,
  type DeliveryProbe,
  type DeliveryRecord,
} from './delivery';
import { createListeners, type Listener, type ListenerAnswer, type ListenerOptions, type ListenerSink } from './listeners';
import { probeOrPlain, signedPath } from './delivery-headers';
import { postAttempt } from './transport';
import { createWebhookChaos, type ChaosMark, type WebhookChaos } from './chaos';
import { createOnDemandLog } from './on-demand';

export type { Attempt, Delivery, DeliveryProbe, DeliveryStatus, ProbeKind } from './delivery';
export { PROBE_KINDS } from './delivery';
export type { Listener, ListenerAnswer, ListenerAttempt, ListenerEnd, ListenerOptions, ListenerSink } from './listeners';
export { deliveryView } from './delivery';

export interface DispatcherOptions {
  /** Wall ms a receiver has to answer 2xx (CONTRACT §5: 15 s). */
  timeoutMs: number;
  /** Virtual delays before attempts 2..n (CONTRACT §5: 5 s, 5 m, 30 m, 2 h, 5 h, 10 h, 10 h). */
  retryScheduleMs: number[];
}

export { MAX_ON_DEMAND_BODY_CHARS, MAX_ON_DEMAND_DELIVERIES } from './on-demand';
/** Attempts one delivery keeps: a manual retry past them is refused (automatic ones stop at 8). */
export const MAX_ATTEMPTS = 1_000;

export const DEFAULT_RETRY_SCHEDULE_MS = [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000];
export const DEFAULT_DISPATCHER_OPTIONS: DispatcherOptions = { timeoutMs: 15_000, retryScheduleMs: DEFAULT_RETRY_SCHEDULE_MS };

/** One delivery to make: what `enqueue` and `send` take. */
export interface DeliveryInput {
  partner: Partner;
  environment: Environment;
  order: string | null;
  event: WebhookEvent;
  data: unknown;
  url?: string | null;
  source?: Delivery['source'];
  /** A readiness probe (CONTRACT §21): sent once as that adversarial kind, never retried. */
  probe?: DeliveryProbe;
}

export interface DispatcherDeps {
  clock: VirtualClock;
  wall: WallClock;
  ids: Ids;
  partners: PartnerRegistry;
  /** Where each delivery that changes is published (the dashboard's live feed listens). */
  bus?: Bus<DeliveryEvents>;
  options?: Partial<DispatcherOptions>;
  userAgent?: string;
  onError?: (error: unknown) => void;
  /** What webhook chaos draws from (CONTRACT §22: the sandbox's --seed). */
  seed?: number;
}

/** What the dispatcher publishes: a delivery that changed, or null when every delivery went. */
export interface DeliveryEvents {
  'delivery.changed': Delivery | null;
}

/**
 * Webhook delivery (CONTRACT §5): signed per spec §6.4, at least once, retried on the virtual
 * clock, every attempt logged. The only outbound HTTP in the sandbox. Each attempt is its own
 * request: a slow or dead receiver never holds up another delivery. The one place that decides
 * where an attempt goes: to a listener connected for the partner (CONTRACT §17 `listen`), to the
 * delivery's own URL, or to the partner's `webhook_url`.
 */
export function createDispatcher(deps: DispatcherDeps) {
  const { clock, wall, ids, partners } = deps;
  const options: DispatcherOptions = { ...DEFAULT_DISPATCHER_OPTIONS, ...deps.options };
  // Sharded: a million deliveries never rehash at once inside a request (decision 021).
  const deliveries = new ShardedMap<string, Delivery>();
  const inFlight = new Set<Promise<void>>();
  /** Short receiver answers, kept once for this log's finished deliveries (`packBody`). */
  const answers: SharedAnswers = new Map();
  const maxAutomatic = options.retryScheduleMs.length + 1;
  /** Bumped by `clear`: attempts that were in flight across it are forgotten when they end. */
  let generation = 0;
  const bus = deps.bus ?? createBus<DeliveryEvents>();
  const changed = (delivery: Delivery | null) => bus.emit('delivery.changed', delivery);
  const userAgent = deps.userAgent ?? 'ramp-sandbox';
  const listeners = createListeners({ timeoutMs: options.timeoutMs });
  /** Partners' webhook chaos (CONTRACT §22). */
  const chaos = createWebhookChaos(deps.seed ?? 1);
  /** Per order: its deliveries whose first attempt chaos holds (to mark those a later one overtakes). */
  const held = new Map<string, Set<Delivery>>();
  /** The deliveries sent on demand, bounded on their own (CONTRACT §9). */
  const onDemand = createOnDemandLog();

  /** Queues a delivery and starts its first attempt; does not wait for it. */
  function enqueue(input: DeliveryInput): Delivery {
    return start(input).delivery;
  }

  /** Queues a delivery and resolves once its first attempt is done (other deliveries are not waited for). */
  async function send(input: DeliveryInput): Promise<Delivery> {
    const { delivery, first } = start(input);
    await first;
    return stillLogged(delivery);
  }

  /** The delivery, unless a reset or restore while its attempt ran dropped it (409: an answer must not show what is gone). */
  function stillLogged(delivery: Delivery): Delivery {
    if (deliveries.get(delivery.id) !== delivery) {
      throw conflict(
        `The delivery log was cleared (POST /sandbox/reset, or PUT /sandbox/state) while delivery ${delivery.id} was being sent: it is no longer in the log`,
      );
    }
    return delivery;
  }

  function start(input: DeliveryInput): { delivery: Delivery; first: Promise<void> } {
    // CONTRACT §22: a partner's webhook chaos applies to the lifecycle's deliveries (never to a send).
    const settings = (input.source ?? 'lifecycle') === 'lifecycle' ? chaos.get(input.partner.client_id) : undefined;
    const delivery = create(input);
    if (!settings) {
      overtake(delivery, clock.now());
      return { delivery, first: track(attempt(delivery, false)) };
    }
    const draw = chaos.draw(settings, delivery.id, false);
    const first = begin(delivery, draw.holdMs);
    if (draw.duplicate) {
      const twin = create(input, { chaos: ['duplicate'], duplicate_of: delivery.id });
      void begin(twin, chaos.draw(settings, twin.id, true).holdMs);
    }
    return { delivery, first };
  }

  /** Starts a delivery's first attempt now, or holds it `holdMs` of virtual time (marked `delayed`). */
  function begin(delivery: Delivery, holdMs: number): Promise<void> {
    const due = clock.now() + holdMs;
    overtake(delivery, due);
    if (holdMs <= 0) return track(attempt(delivery, false));
    mark(delivery, 'delayed');
    delivery.next_attempt_at = due;
    hold(delivery);
    scheduleRetry(delivery, due);
    changed(delivery);
    return Promise.resolve();
  }

  function mark(delivery: Delivery, what: ChaosMark): void {
    const marks = (delivery.chaos ??= []);
    if (!marks.includes(what)) marks.push(what);
  }

  function hold(delivery: Delivery): void {
    if (delivery.order === null) return;
    let waiting = held.get(delivery.order);
    if (!waiting) held.set(delivery.order, (waiting = new Set()));
    waiting.add(delivery);
  }

  function release(delivery: Delivery): void {
    if (delivery.order === null) return;
    const waiting = held.get(delivery.order);
    if (waiting?.delete(delivery) && waiting.size === 0) held.delete(delivery.order);
  }

  /** A delivery whose first attempt is due at `due` overtakes the held ones of its order due later: they are `reordered`. */
  function overtake(delivery: Delivery, due: number): void {
    if (delivery.order === null) return;
    for (const other of held.get(delivery.order) ?? []) {
      if (other !== delivery && other.client_id === delivery.client_id && other.next_attempt_at !== null && other.next_attempt_at > due) {
        mark(other, 'reordered');
        changed(other);
      }
    }
  }

  function create(input: DeliveryInput, extra: { chaos?: ChaosMark[]; duplicate_of?: string } = {}): Delivery {
    const delivery: Delivery = {
      id: unused(
        () => ids.id('dlv_'),
        (id) => deliveries.has(id),
      ),
      client_id: input.partner.client_id,
      environment: input.environment,
      order: input.order,
      event: input.event,
      body: JSON.stringify({ event: input.event, data: input.data }),
      urlOverride: input.url ?? null,
      source: input.probe ? 'probe' : (input.source ?? 'lifecycle'),
      ...(input.probe ? { probe: input.probe } : {}),
      status: 'pending',
      attempts: [],
      automaticAttempts: 0,
      next_attempt_at: null,
      created_at: clock.now(),
      inFlight: false,
      timer: null,
      ...extra,
    };
    deliveries.set(delivery.id, delivery);
    if (delivery.source === 'manual') keepOnDemand(delivery);
    return delivery;
  }

  /** Logs an on-demand delivery, forgetting the oldest others past the bounds (but for attempts in flight). */
  function keepOnDemand(delivery: Delivery): void {
    const forgotten = onDemand.add(delivery, typeof delivery.body === 'string' ? delivery.body.length : 0);
    for (const old of forgotten) {
      if (old.timer !== null) clock.clearTimer(old.timer);
      deliveries.delete(old.id);
    }
    if (forgotten.length > 0) changed(null);
  }

  function track(p: Promise<void>): Promise<void> {
    const guarded = p.catch((error) => deps.onError?.(error));
    inFlight.add(guarded);
    void guarded.finally(() => inFlight.delete(guarded));
    return guarded;
  }

  async function attempt(delivery: Delivery, manual: boolean): Promise<void> {
    const partner = partners.get(delivery.client_id);
    // A delivery sent to a URL of its own goes there; the partner's others go to its listener, if one is connected.
    const listener = partner && delivery.urlOverride === null ? listeners.pick(partner.client_id, delivery.event) : undefined;
    const url = listener ? listener.forward_to : (delivery.urlOverride ?? partner?.webhook_url ?? null);
    const number = delivery.attempts.length + 1;
    if (number === 1) release(delivery);
    if (!manual) delivery.automaticAttempts++;
    const record: Attempt = {
      number,
      manual,
      url,
      virtual_at: clock.now(),
      wall_at: wall.now(),
      duration_ms: 0,
      http_status: null,
      error: null,
      response_excerpt: null,
      ...(listener ? { via: 'listener' as const } : {}),
    };
    delivery.attempts.push(record);
    delivery.inFlight = true;
    delivery.next_attempt_at = null;
    changed(delivery);
    let ok = false;
    const generationAtStart = generation;
    if (listener && partner) {
      // Signed as the HTTP transport signs, over the path the listener's receiver sees.
      const target = listenerTarget(listener.forward_to ?? partner.webhook_url);
      const body = bodyOf(delivery);
      const { id: delivery_id, client_id, environment, order, event } = delivery;
      const sent = probeOrPlain(delivery, {
        clientId: client_id,
        encryptionKey: partner.keys[environment].encryption_key,
        url: target,
        body,
        // Transport time (CONTRACT §2), as over HTTP.
        timestamp: String(wall.now()),
        event,
        deliveryId: delivery_id,
        attempt: number,
      });
      const handed = {
        id: `${delivery_id}.${number}`,
        delivery_id,
        client_id,
        environment,
        event,
        order,
        attempt: number,
        path: signedPath(target),
        headers: { ...sent.headers, 'user-agent': userAgent },
        body: sent.body,
      };
      ok = await listeners.hand(listener, handed, record);
    } else if (!url || !partner) {
      record.error = partner ? 'no webhook_url configured for the partner' : 'partner no longer exists';
    } else {
      ok = await postAttempt(delivery, partner, url, number, record, { wall, timeoutMs: options.timeoutMs, userAgent });
    }
    // A reset while the receiver answered: this delivery is gone and schedules nothing.
    if (generation !== generationAtStart) return;
    delivery.inFlight = false;
    endAttempt(delivery, ok, record);
    // Told once the delivery's status says how the attempt ended, never between the two.
    changed(delivery);
  }

  /** The delivery's status after an attempt: succeeded, retrying (its retry scheduled) or failed. */
  function endAttempt(delivery: Delivery, ok: boolean, record: Attempt): void {
    if (ok) {
      delivery.status = 'succeeded';
      // A retry that an attempt beside this one scheduled (a manual retry while one was in
      // flight, failing first) is dropped: it would send a delivered event again.
      if (delivery.timer !== null) {
        clock.clearTimer(delivery.timer);
        delivery.timer = null;
      }
      delivery.next_attempt_at = null;
      packBody(delivery, answers);
      return;
    }
    if (delivery.status === 'succeeded') return; // a manual retry of a delivered event failing changes nothing
    if (delivery.probe) {
      // A probe is one attempt (CONTRACT §21): refusing it may be the right answer; it is never retried.
      delivery.status = 'failed';
      packBody(delivery, answers);
      return;
    }
    const held = delivery.timer === null ? undefined : clock.timer(delivery.timer);
    if (delivery.automaticAttempts === 0 && held) {
      // A manual attempt before the first automatic one, which webhook chaos holds: that one still
      // goes at its time (the delivery was marked failed, its first attempt never sent).
      delivery.status = 'pending';
      delivery.next_attempt_at = held.due;
      return;
    }
    const index = delivery.automaticAttempts - 1;
    const delay = options.retryScheduleMs[index];
    if (delay === undefined || delivery.automaticAttempts >= maxAutomatic) {
      delivery.status = 'failed';
      packBody(delivery, answers);
      return;
    }
    delivery.status = 'retrying';
    // From the attempt's own virtual time, however long the receiver took in wall time.
    const at = record.virtual_at + delay;
    delivery.next_attempt_at = at;
    scheduleRetry(delivery, at);
  }

  function scheduleRetry(delivery: Delivery, at: number): void {
    // One pending attempt per delivery: a manual retry beside an attempt in flight ends twice,
    // and the second schedule replaces the first (two timers fired two attempts at one instant).
    if (delivery.timer !== null) clock.clearTimer(delivery.timer);
    delivery.timer = clock.setTimer(
      at,
      () => {
        delivery.timer = null;
        void track(attempt(delivery, false));
      },
      `${delivery.id}: ${delivery.attempts.length === 0 ? 'first attempt, held by webhook chaos' : `retry ${delivery.automaticAttempts + 1} of ${maxAutomatic}`} (${delivery.event}${delivery.order ? ` ${delivery.order}` : ''})`,
      { kind: 'delivery_retry', id: delivery.id },
    );
  }

  /** Sends a delivery again now (manual retry); resolves once the attempt is done. */
  async function retry(id: string): Promise<Delivery | undefined> {
    const delivery = deliveries.get(id);
    if (!delivery) return undefined;
    if (delivery.attempts.length >= MAX_ATTEMPTS) {
      throw conflict(
        `Delivery ${id} has ${delivery.attempts.length} attempts, the most one delivery keeps: send the event again (POST /sandbox/webhooks/send)`,
      );
    }
    // A pending retry is replaced by this attempt (its failure schedules the next); a first
    // attempt chaos holds is not a retry, and stays at its time.
    if (delivery.timer !== null && delivery.automaticAttempts > 0) {
      clock.clearTimer(delivery.timer);
      delivery.timer = null;
    }
    await track(attempt(delivery, true));
    return stillLogged(delivery);
  }

  /**
   * Records a listener's answer to an attempt it was handed. 404 when no attempt of that id was
   * handed to a listener, 409 when it has already ended (answered, timed out, or its listener went).
   */
  function answerListener(id: string, answer: ListenerAnswer): { id: string; delivery_id: string; attempt: number; succeeded: boolean } {
    const dot = id.lastIndexOf('.');
    const deliveryId = id.slice(0, dot);
    const number = Number(id.slice(dot + 1));
    const answered = listeners.answer(id, answer);
    if (answered) return { id, delivery_id: deliveryId, attempt: number, ...answered };
    const record = dot > 0 && Number.isInteger(number) && number > 0 ? deliveries.get(deliveryId)?.attempts[number - 1] : undefined;
    if (record?.via !== 'listener') throw notFound(`No attempt ${id} was handed to a listener`);
    const outcome = record.error ?? `answered ${record.http_status}`;
    throw conflict(
      `Attempt ${id} has already ended (${outcome}): an answer counts once, within the webhook timeout (${options.timeoutMs} ms)`,
    );
  }

  return {
    enqueue,
    send,
    retry,
    /**
     * Connects a listener for a partner (CONTRACT §17 `listen`): from now on the partner's
     * attempts (of `events`, when given) are handed to `sink` instead of POSTed, until
     * `unlisten`. A listener already connected for the partner is replaced (ended `replaced`).
     */
    listen: (listenerOptions: ListenerOptions, sink: ListenerSink): Listener => listeners.connect(listenerOptions, sink),
    /** The listener's stream closed: what it had pending fails (and is retried on schedule). */
    unlisten: (listener: Listener) => listeners.disconnect(listener),
    /** Whether a listener would take this partner's attempts of this event. */
    listening: (clientId: string, event: WebhookEvent): boolean => listeners.pick(clientId, event) !== undefined,
    answerListener,
    /** Ends every listener's stream: the sandbox stops (a connected listener must not hold it open). */
    closeListeners: () => listeners.closeAll(),
    get listenerCount() {
      return listeners.connected;
    },
    get: (id: string) => deliveries.get(id),
    list: () => [...deliveries.values()],
    /** Resolves when no attempt is in flight (attempts started meanwhile are waited for too). */
    async idle(): Promise<void> {
      while (inFlight.size > 0) await Promise.all([...inFlight]);
    },
    get inFlightCount() {
      return inFlight.size;
    },
    options,
    /** Partners' webhook chaos (CONTRACT §22): set, shown, removed; cleared by a reset. */
    chaos: {
      set: (clientId: string, body: Parameters<typeof chaos.set>[1]): WebhookChaos => chaos.set(clientId, body),
      get: (clientId: string): WebhookChaos => chaos.require(clientId),
      remove: (clientId: string): WebhookChaos => chaos.remove(clientId),
      list: (): WebhookChaos[] => chaos.list(),
      clear: (): void => chaos.clear(),
      exportState: (): WebhookChaos[] => chaos.exportState(),
      restore: (saved: readonly WebhookChaos[] | undefined): void => chaos.restore(saved),
    },
    /** Forgets the deliveries of evicted orders (CONTRACT §9), but for attempts still in flight. */
    forgetOrders(references: ReadonlySet<string>): number {
      let forgotten = 0;
      for (const [id, d] of deliveries) {
        if (d.order === null || d.inFlight || !references.has(d.order)) continue;
        if (d.timer !== null) clock.clearTimer(d.timer);
        release(d);
        deliveries.delete(id);
        onDemand.drop(d);
        forgotten++;
      }
      if (forgotten > 0) changed(null);
      return forgotten;
    },
    /** Every delivery for a state snapshot (CONTRACT §13); retry timers are the clock's to list. */
    exportState(): DeliveryRecord[] {
      return [...deliveries.values()].map(deliveryRecord);
    },
    /**
     * Each delivery's snapshot record as JSON, one at a time (a state save streams them). Those
     * with an attempt in flight are written now: their attempt ends on its own time, even while a
     * streamed save holds every other change (CONTRACT §13), and is in the document as in flight.
     */
    recordsJson(): Generator<string> {
      const taken = [...deliveries.values()].map((d) => (d.inFlight ? JSON.stringify(deliveryRecordView(d)) : d));
      return (function* () {
        for (const d of taken) yield typeof d === 'string' ? d : JSON.stringify(deliveryRecordView(d));
      })();
    },
    /**
     * Replaces the log with a validated snapshot's. An attempt that was in flight when the
     * snapshot was taken lost its answer: it is sent again as soon as the clock next moves.
     */
    restoreState(saved: readonly DeliveryRecord[]): void {
      for (const d of deliveries.values()) if (d.timer !== null) clock.clearTimer(d.timer);
      deliveries.clear();
      held.clear();
      onDemand.clear();
      inFlight.clear();
      generation++;
      listeners.failPending('the sandbox state was replaced');
      for (const entry of saved) {
        // Read before the entry is taken over: it becomes the delivery, not in flight here.
        const wasInFlight = entry.inFlight;
        // The entry is the restore's own (parsed for it alone): taken over, not copied.
        const delivery: Delivery = Object.assign(entry, { timer: null, inFlight: false });
        // Counted as sent (before its body is packed).
        if (delivery.source === 'manual') onDemand.restore(delivery, bodyOf(delivery).length);
        if (delivery.status === 'succeeded' || delivery.status === 'failed') packBody(delivery, answers);
        deliveries.set(delivery.id, delivery);
        // A first attempt chaos still holds (its timer comes back from the document's timers).
        if (delivery.attempts.length === 0 && !wasInFlight && delivery.next_attempt_at !== null) hold(delivery);
        if (wasInFlight) scheduleRetry(delivery, clock.now());
      }
      changed(null);
    },
    /** Re-creates a retry timer from its snapshot tag; false when the tag is not the dispatcher's. */
    reviveTimer(tag: TimerTag, due: number): boolean {
      const delivery = tag.kind === 'delivery_retry' && typeof tag.id === 'string' ? deliveries.get(tag.id) : undefined;
      if (!delivery) return false;
      scheduleRetry(delivery, due);
      return true;
    },
    /** Forgets every delivery; attempts in flight finish unseen and no one waits for them. */
    clear(): void {
      for (const d of deliveries.values()) if (d.timer !== null) clock.clearTimer(d.timer);
      deliveries.clear();
      held.clear();
      onDemand.clear();
      chaos.clear();
      inFlight.clear();
      generation++;
      listeners.failPending('the sandbox was reset');
      changed(null);
    },
  };
}

export type Dispatcher = ReturnType<typeof createDispatcher>;

/** Whose path and query a listener's attempt is signed over (spec §6.4): the URL given, else `/`. */
function listenerTarget(url: string | null): URL {
  const root = new URL('http://listener.invalid/');
  if (url === null) return root;
  try {
    return new URL(url);
  } catch {
    return root;
  }
}
