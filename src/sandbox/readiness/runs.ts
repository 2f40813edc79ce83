// Readiness runs (CONTRACT §21): what each run has counted of a partner's traffic since it
// opened, its probes, and its report. The facts come from the bus: the inspector's
// `request.recorded` (each /v1 request as recorded, its signature diagnosis included) and the
// delivery log's `delivery.changed`; the orders are read through the order store's interface.
import type { PartnerRegistry } from '../../auth';
import { ISO, type WallClock } from '../../clock';
import type { RawRecord } from '../../http/inspector/request-log.record';
import type { FaultStore } from '../../http/faults/fault.store';
import type { RequestEvents } from '../../http/inspector/recorder';
import type { OrderStore } from '../../orders/store';
import type { OrderType } from '../../orders/model';
import type { Environment } from '../../reference';
import type { Bus } from '../../shared/bus';
import { conflict, notFound } from '../../shared/errors';
import { hashSeed } from '../../shared/ids';
import { PROBE_KINDS, type Delivery, type DeliveryEvents, type Dispatcher, type ProbeKind } from '../../webhooks';
import { deliveryFact, requestFact, type DeliveryFact, type RequestFact } from './facts';
import { coverageOf, evaluate, verdictOf } from './report';
import type { OpenRunBody, ProbeRecord, ReadinessReport } from './readiness.schemas';

/** Facts a run keeps at most, of each kind (CONTRACT §21: memory per run is bounded). */
export const MAX_RUN_REQUESTS = 5_000;
const MAX_RUN_DELIVERIES = 5_000;
/** Runs kept per partner, and in all: the oldest go first. */
export const MAX_RUNS_PER_PARTNER = 10;
const MAX_RUNS = 200;

export interface ReadinessDeps {
  bus: Bus<RequestEvents & DeliveryEvents>;
  wall: WallClock;
  partners: Pick<PartnerRegistry, 'get'>;
  orders: { store: Pick<OrderStore, 'get' | 'byMerchantReference'>; endQuote(quoteId: string): boolean };
  dispatcher: Pick<Dispatcher, 'enqueue' | 'get'>;
  faults: Pick<FaultStore, 'add' | 'remove' | 'get'>;
  seed: number;
  onError?: (error: unknown) => void;
}

interface Run {
  id: string;
  clientId: string;
  environment: Environment;
  scope: 'all' | 'receiver';
  openedAt: number;
  /** Set once the run no longer counts; its report is then kept, its facts let go. */
  ended?: { at: number; by: NonNullable<ReadinessReport['ended_by']>; report: ReadinessReport };
  requests: RequestFact[];
  deliveries: DeliveryFact[];
  deliveryIndex: Map<string, number>;
  truncated: boolean;
  probes: ProbeRecord[];
  /** Probe fault ids → the probe record they stand for. */
  faultProbes: Map<string, ProbeRecord>;
  /** Adversarial kinds still to send, in the seed's order. */
  adversarial: ProbeKind[];
  /** Per order, the first delivery the receiver acknowledged (the base of an out-of-order probe). */
  firstAcked: Map<string, string>;
  quoteTypes: Map<string, OrderType>;
}

export type Readiness = ReturnType<typeof createReadiness>;

export function createReadiness(deps: ReadinessDeps) {
  const runs = new Map<string, Run>();
  /** The one open run per partner. */
  const open = new Map<string, Run>();
  let serial = 0;
  let unsubscribe: (() => void) | undefined;

  /** Heard only while a run is open: the inspector builds no event when no one listens. */
  function listen(): void {
    if (open.size > 0 && !unsubscribe) {
      const offRequests = deps.bus.on('request.recorded', (e) => guard(() => onRequest(e.id, e.raw)));
      const offDeliveries = deps.bus.on('delivery.changed', (d) => guard(() => d && onDelivery(d)));
      unsubscribe = () => {
        offRequests();
        offDeliveries();
      };
    } else if (open.size === 0 && unsubscribe) {
      unsubscribe();
      unsubscribe = undefined;
    }
  }

  /** A listener that throws would stop the publisher's step (shared/bus.ts): never. */
  function guard(fn: () => void): void {
    try {
      fn();
    } catch (error) {
      deps.onError?.(error);
    }
  }

  function onRequest(id: string, raw: Readonly<RawRecord>): void {
    const run = raw.clientId === undefined ? undefined : open.get(raw.clientId);
    if (!run || run.scope === 'receiver') return;
    const fact = requestFact(id, raw, {
      quoteType: (quoteId) => run.quoteTypes.get(quoteId),
      existing: (merchantReference) =>
        deps.orders.store.byMerchantReference({ clientId: run.clientId, env: run.environment }, merchantReference)?.reference,
    });
    if (fact.fault) {
      const probe = run.faultProbes.get(fact.fault);
      if (probe) {
        probe.status = 'done';
        probe.request_id = id;
        run.faultProbes.delete(fact.fault);
      }
    }
    if (fact.kind === 'quote' && fact.quoteId && fact.orderType && run.quoteTypes.size < MAX_RUN_REQUESTS)
      run.quoteTypes.set(fact.quoteId, fact.orderType);
    // The quote probe waits for the lost create: the create of an ended quote is refused, and a
    // lost answer to a refusal would show nothing of how a partner retries.
    const lostPending = run.probes.some((p) => p.kind === 'lost_response' && p.status !== 'done');
    const quoteProbe = lostPending ? undefined : run.probes.find((p) => p.kind === 'quote_ended' && p.status === 'planned');
    if (
      quoteProbe &&
      fact.kind === 'quote' &&
      fact.quoteId &&
      fact.env === run.environment &&
      fact.status >= 200 &&
      fact.status < 300 &&
      deps.orders.endQuote(fact.quoteId)
    ) {
      quoteProbe.status = 'done';
      quoteProbe.request_id = id;
      quoteProbe.note = `quote ${fact.quoteId} ended early: its create is refused as an expired quote`;
    }
    if (run.requests.length >= MAX_RUN_REQUESTS) {
      run.truncated = true;
      return;
    }
    run.requests.push(fact);
  }

  function onDelivery(d: Delivery): void {
    const run = open.get(d.client_id);
    if (!run || d.environment !== run.environment || d.source === 'manual') return;
    const known = run.deliveryIndex.get(d.id);
    if (known === undefined) {
      // Its first attempt starting now: a delivery that began before the run opened never joins it.
      if (d.attempts.length !== 1 || !d.inFlight) return;
      if (run.deliveries.length >= MAX_RUN_DELIVERIES) {
        run.truncated = true;
        return;
      }
      run.deliveryIndex.set(d.id, run.deliveries.length);
      run.deliveries.push(deliveryFact(d));
      return;
    }
    const fact = deliveryFact(d);
    const before = run.deliveries[known]!;
    run.deliveries[known] = fact;
    const acknowledged = (f: DeliveryFact) => f.attempts.some((a) => a.status !== null && a.status >= 200 && a.status < 300);
    if (!d.probe && acknowledged(fact) && !acknowledged(before)) queueMicrotask(() => guard(() => sendProbe(run, d)));
  }

  /** The next adversarial probe, on the back of a delivery the receiver has just acknowledged. */
  function sendProbe(run: Run, d: Delivery): void {
    if (run.ended) return;
    const earlier = d.order === null ? undefined : run.firstAcked.get(d.order);
    if (d.order !== null && earlier === undefined) run.firstAcked.set(d.order, d.id);
    // An out-of-order probe repeats an older event of the same order: it waits for an order's second acknowledgement.
    const kind = run.adversarial.find((k) => k !== 'out_of_order' || earlier !== undefined);
    const partner = deps.partners.get(run.clientId);
    if (!kind || !partner) return;
    const base = kind === 'out_of_order' ? deps.dispatcher.get(earlier!) : d;
    if (!base) return;
    let data: unknown;
    try {
      data = (JSON.parse(typeof base.body === 'string' ? base.body : base.body.unpack()) as { data?: unknown }).data;
    } catch {
      return;
    }
    run.adversarial.splice(run.adversarial.indexOf(kind), 1);
    const probe = deps.dispatcher.enqueue({
      partner,
      environment: run.environment,
      order: base.order,
      event: base.event,
      data,
      probe: { kind, of: base.id },
    });
    const record = run.probes.find((p) => p.kind === kind)!;
    record.status = 'done';
    record.delivery_id = probe.id;
    record.note = `repeats ${base.id} (${base.event})`;
  }

  function reportOf(run: Run, final: boolean): ReadinessReport {
    if (run.ended) return run.ended.report;
    const facts = { environment: run.environment, requests: run.requests, deliveries: run.deliveries };
    const checks = evaluate(facts, final, undefined, run.probes.length > 0).map((c) =>
      // A receiver-only run watched no API client: its checks say so, and keep the verdict from `ready`.
      run.scope === 'receiver' && c.side === 'client'
        ? {
            ...c,
            status: 'not_exercised' as const,
            applies: true,
            evidence: [{ note: 'a receiver-only run (scope receiver): the API client was not watched' }],
          }
        : c,
    );
    const coverage = coverageOf(facts, (reference) => {
      const order = deps.orders.store.get(reference);
      if (!order || order.clientId !== run.clientId) return undefined;
      return { type: order.type, statuses: order.timeline.filter((t) => t.group === 'status').map((t) => t.event) };
    });
    return {
      id: run.id,
      client_id: run.clientId,
      environment: run.environment,
      scope: run.scope,
      opened_at: ISO(run.openedAt),
      probes: run.probes.map((p) => ({ ...p })),
      counted: { requests: run.requests.length, deliveries: run.deliveries.length, truncated: run.truncated },
      verdict: verdictOf(checks),
      checks,
      coverage,
    };
  }

  /** Ends a run: its final report is kept, its facts and any probe still armed let go. */
  function end(run: Run, by: NonNullable<ReadinessReport['ended_by']>, removeFaults = true): ReadinessReport {
    if (run.ended) return run.ended.report;
    const at = deps.wall.now();
    const report = { ...reportOf(run, true), finished_at: ISO(at), ...(by === 'finish' ? {} : { ended_by: by }) };
    if (removeFaults) for (const id of run.faultProbes.keys()) deps.faults.remove(id);
    run.ended = { at, by, report };
    run.requests = [];
    run.deliveries = [];
    run.deliveryIndex.clear();
    run.firstAcked.clear();
    run.quoteTypes.clear();
    run.faultProbes.clear();
    if (open.get(run.clientId) === run) open.delete(run.clientId);
    listen();
    return report;
  }

  /** Keeps the number of runs within bounds: the oldest of the partner's, then the oldest of all. */
  function prune(clientId: string): void {
    const mine = [...runs.values()].filter((r) => r.clientId === clientId);
    for (const run of mine.slice(0, Math.max(0, mine.length - MAX_RUNS_PER_PARTNER))) drop(run);
    for (const run of [...runs.values()].slice(0, Math.max(0, runs.size - MAX_RUNS))) drop(run);
  }

  function drop(run: Run): void {
    end(run, 'evicted');
    runs.delete(run.id);
  }

  function find(id: string): Run {
    const run = runs.get(id);
    if (!run) throw notFound(`No readiness run ${id}`);
    return run;
  }

  return {
    /** CONTRACT §21 `POST /sandbox/readiness/runs`: the partner's open run, if any, ends (`new_run`). */
    open(input: OpenRunBody): ReadinessReport {
      const partner = deps.partners.get(input.client_id);
      if (!partner) throw notFound(`No partner ${input.client_id}`);
      const environment = input.environment ?? 'test';
      const previous = open.get(partner.client_id);
      if (previous) end(previous, 'new_run');
      const id = `rdy_${++serial}`;
      const run: Run = {
        id,
        clientId: partner.client_id,
        environment,
        scope: input.scope ?? 'all',
        openedAt: deps.wall.now(),
        requests: [],
        deliveries: [],
        deliveryIndex: new Map(),
        truncated: false,
        probes: [],
        faultProbes: new Map(),
        adversarial: [],
        firstAcked: new Map(),
        quoteTypes: new Map(),
      };
      if (input.probes ?? true) armProbes(run);
      runs.set(id, run);
      open.set(partner.client_id, run);
      prune(partner.client_id);
      listen();
      return reportOf(run, false);
    },
    /** The report so far (the final one once the run has ended). */
    report: (id: string): ReadinessReport => reportOf(find(id), false),
    /** Ends the run and returns its final report; finishing it again returns the same. */
    finish(id: string): ReadinessReport {
      const run = find(id);
      if (run.ended && run.ended.by !== 'finish')
        throw conflict(`Readiness run ${id} has already ended (${run.ended.by}); its report is final: GET /sandbox/readiness/runs/${id}`);
      return end(run, 'finish');
    },
    /** Runs, newest first, of one partner or of all. */
    list(clientId?: string): ReadinessReport[] {
      return [...runs.values()]
        .filter((r) => clientId === undefined || r.clientId === clientId)
        .reverse()
        .map((r) => reportOf(r, false));
    },
    /**
     * CONTRACT §21: a reset ends every run, and so does a restored state (CONTRACT §13: it replaces
     * the whole state, whose traffic the runs counted). Their probes' faults went with what was
     * replaced: the faults of the same ids now are the restored document's, and are left alone.
     */
    reset(by: 'reset' | 'restore' = 'reset'): void {
      for (const run of open.values()) end(run, by, false);
    },
    get openCount(): number {
      return open.size;
    },
  };

  /**
   * The probes of a run (CONTRACT §21), each once, on a schedule the seed fixes: the order of the
   * adversarial deliveries (one after each delivery the receiver acknowledges), and faults for
   * the partner's next create (a lost answer: `phase: after`, 503) and next read (429 with
   * Retry-After); the first quote it makes after the lost create is ended early.
   */
  function armProbes(run: Run): void {
    run.adversarial = seededOrder([...PROBE_KINDS], hashSeed('readiness', deps.seed, run.id));
    for (const kind of run.adversarial) run.probes.push({ kind, status: 'planned' });
    if (run.scope === 'receiver') return; // no API client to probe
    const base = { client_id: run.clientId, environment: run.environment, times: 1 };
    const lost = deps.faults.add({
      ...base,
      method: 'POST',
      path: '/v1/orders',
      phase: 'after',
      error: { status: 503 },
      note: `readiness probe: lost response (${run.id})`,
    });
    const lostRecord: ProbeRecord = {
      kind: 'lost_response',
      status: 'armed',
      note: `fault ${lost.id}: the next create is carried out and answered 503`,
    };
    const limited = deps.faults.add({
      ...base,
      method: 'GET',
      path: '/v1/**',
      phase: 'before',
      error: { status: 429 },
      note: `readiness probe: rate limited (${run.id})`,
    });
    const limitedRecord: ProbeRecord = {
      kind: 'rate_limited',
      status: 'armed',
      note: `fault ${limited.id}: the next read is answered 429 with Retry-After`,
    };
    run.faultProbes.set(lost.id, lostRecord);
    run.faultProbes.set(limited.id, limitedRecord);
    run.probes.push(lostRecord, limitedRecord, { kind: 'quote_ended', status: 'planned' });
  }
}

/** A Fisher–Yates shuffle driven by a small seeded generator (mulberry32). */
export function seededOrder<T>(items: T[], seed: number): T[] {
  let state = seed >>> 0;
  const random = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [items[i], items[j]] = [items[j]!, items[i]!];
  }
  return items;
}
