import type { TimerTag } from '../clock';
import type { WebhookEvent } from '../shared/events';
import type { OrderType } from './pricing';
import type { OrdersCore } from './order.core';
import { createOrderMachine, orderInitialKey, STATUSES_TAGGED, type LifecycleTimings, type OrderEvent, type OrderInput, type OrderMachine, type OrderStatus } from './order.machine';
import type { OrderRecord, TimelineRecord } from './order.store';
import { settledAmount, settledPercentage, toSummary, type OrderSummary } from './order.view';
import { createPureTransitions, type ExecutableAction } from './pure-transition';

/** What the lifecycle tells its owner besides webhook events and changes. */
export interface LifecycleHooks {
  /**
   * After each step (an event and the zero-delay events it raised) that leaves the order in a
   * final status, timers already set or cancelled: eviction's check (CONTRACT §9).
   */
  onFinal?: (order: OrderRecord) => void;
}

/** A webhook event the machine emitted, with the summary as it stood at that moment. */
export interface EmittedEvent {
  event: WebhookEvent;
  order: OrderRecord;
  /** The summary as it stands at this moment (computed on demand). */
  summary: () => OrderSummary;
  at: number;
}

/**
 * The order machine applied to stored orders: xstate's pure transitions (see pure-transition),
 * then their effects (webhook events, payout and refund artefacts, timeline, delayed events on
 * the virtual clock). What a status allows is always asked of the machine.
 */
export function createLifecycle(core: OrdersCore, hooks: LifecycleHooks = {}) {
  const { clock, timings, artefacts, store } = core;
  const machines: Record<OrderType, OrderMachine> = {
    onramp: machineFor('onramp', timings),
    offramp: machineFor('offramp', timings),
    swap: machineFor('swap', timings),
  };
  const pure = {
    onramp: createPureTransitions(machines.onramp, orderInitialKey),
    offramp: createPureTransitions(machines.offramp, orderInitialKey),
    swap: createPureTransitions(machines.swap, orderInitialKey),
  };
  /** Listeners may return details to record on the order's timeline entry (e.g. a delivery id). */
  const listeners = new Set<(e: EmittedEvent) => Record<string, unknown> | void>();
  /** Told the reference of each order that changed (null: all of them went); the dashboard's live feed. */
  const changeListeners = new Set<(reference: string | null) => void>();
  const changed = (reference: string | null) => {
    for (const listener of changeListeners) listener(reference);
  };

  function snapshotOf(order: Pick<OrderRecord, 'type' | 'status' | 'context'>) {
    return machines[order.type].resolveState({ value: order.status, context: order.context });
  }

  function can(order: Pick<OrderRecord, 'type' | 'status' | 'context'>, event: OrderEvent): boolean {
    return snapshotOf(order).can(event);
  }

  /** The machine's first snapshot for a new order, applied; then the zero-delay events it raised. */
  function start(order: OrderRecord, input: OrderInput, before: () => void): void {
    const [snapshot, actions] = pure[order.type].initial(input);
    before();
    const queue: OrderEvent[] = [];
    apply(order, snapshot, actions, queue);
    for (const event of queue) step(order, event);
    settle(order);
  }

  /** Applies `event` and any zero-delay events it raises; false when the status ignores it. */
  function dispatch(order: OrderRecord, event: OrderEvent): boolean {
    const accepted = step(order, event);
    settle(order);
    return accepted;
  }

  /**
   * A step is over (its timers set or cancelled): an order in a final status is reported, every
   * time, since a timer of its own that just fired may have been the last one (CONTRACT §9).
   */
  function settle(order: OrderRecord): void {
    if (STATUSES_TAGGED.final.has(order.status)) hooks.onFinal?.(order);
  }

  function step(order: OrderRecord, event: OrderEvent): boolean {
    const queue: OrderEvent[] = [event];
    let first = true;
    let accepted = false;
    while (queue.length > 0) {
      const e = queue.shift()!;
      const snapshot = snapshotOf(order);
      if (!snapshot.can(e)) {
        if (first) return false;
        continue;
      }
      if (first) accepted = true;
      first = false;
      const [next, actions] = pure[order.type].transition(snapshot, e);
      apply(order, next, actions, queue);
    }
    return accepted;
  }

  /** Takes a snapshot the machine computed: status, context, then its effects. */
  function apply(order: OrderRecord, next: { value: unknown; context: OrderRecord['context'] }, actions: readonly ExecutableAction[], queue: OrderEvent[]) {
    order.version++;
    const before = order.status;
    order.context = next.context;
    order.status = next.value as OrderStatus;
    if (before !== order.status) {
      order.updated_at = clock.now();
      note(order, 'status', order.status, null);
    }
    runActions(order, actions, queue);
  }

  function runActions(order: OrderRecord, actions: readonly ExecutableAction[], queue: OrderEvent[]) {
    for (let i = 0; i < actions.length; i++) {
      const action = actions[i]!;
      const params = (action.params ?? {}) as Record<string, any>;
      // A delay raised and cancelled in the same step (a state passed through at once) needs no timer.
      if (action.type === 'xstate.raise' && actions.some((a, j) => j > i && a.type === 'xstate.cancel' && (a.params as { sendId?: unknown })?.sendId === params.id)) {
        continue;
      }
      switch (action.type) {
        case 'notify':
          emit(order, params.event as WebhookEvent);
          break;
        case 'payout':
          onPayout(order, params.phase);
          break;
        case 'refund':
          onRefund(order, params.phase);
          break;
        case 'arrivePayin':
          // The machine's own pay-in (magic amounts): on the record first, then applied.
          notePayin(order, Number(params.amount), params.confirmed === true, undefined);
          queue.push({ type: 'PAYIN', amount: Number(params.amount), confirmed: params.confirmed === true });
          break;
        case 'xstate.raise': {
          const id = String(params.id);
          const event = params.event as OrderEvent;
          const delay = Number(params.delay ?? 0);
          cancelTimer(order, id);
          if (delay <= 0) queue.push(event);
          else setOrderTimer(order, id, event, clock.now() + delay);
          break;
        }
        case 'xstate.cancel':
          cancelTimer(order, String(params.sendId));
          break;
        default:
          break;
      }
    }
  }

  /** A delayed event of the machine (`after`, a raised delay) on the virtual clock. */
  function setOrderTimer(order: OrderRecord, id: string, event: OrderEvent, at: number) {
    const timer = clock.setTimer(
      at,
      () => {
        order.timers = order.timers.filter(([key]) => key !== id);
        dispatch(order, event);
      },
      `${order.reference}: ${describeTimer(id)}`,
      { kind: 'order', reference: order.reference, id, event },
    );
    order.timers.push([id, timer]);
    // The pay-in deadline is the machine's own `payinWindow` delay.
    if (delayName(id) === 'payinWindow') order.payinExpiresAt = at;
  }

  function cancelTimer(order: OrderRecord, id: string) {
    const slot = order.timers.find(([key]) => key === id);
    if (slot) {
      clock.clearTimer(slot[1]);
      order.timers = order.timers.filter((s) => s !== slot);
    }
  }

  /** Re-creates an order's timer from a snapshot tag (CONTRACT §13); false when not an order's. */
  function reviveTimer(tag: TimerTag, due: number): boolean {
    const order = typeof tag.reference === 'string' ? store.orders.get(tag.reference) : undefined;
    if (!order) return false;
    if (tag.kind === 'order' && typeof tag.id === 'string') {
      setOrderTimer(order, tag.id, tag.event as OrderEvent, due);
      return true;
    }
    return false;
  }

  /** A pay-in on an order in a final status: the machine refunds it (README "Assumptions"). */
  function isLate(order: OrderRecord): boolean {
    return STATUSES_TAGGED.final.has(order.status);
  }

  /** A pay-in arrives (control API): on the record, then applied to the machine. */
  function recordPayin(order: OrderRecord, amount: number, confirmed: boolean, ref?: string) {
    notePayin(order, amount, confirmed, ref);
    dispatch(order, { type: 'PAYIN', amount, confirmed });
  }

  function notePayin(order: OrderRecord, amount: number, confirmed: boolean, ref: string | undefined) {
    const txRef = ref ?? (order.payin.kind === 'fiat' ? artefacts.bankReference() : artefacts.txHash(core.formatOf(order.env, order.payin.network)));
    order.payinRefs.push(txRef);
    if (confirmed) order.payinPaidAt = clock.now();
    note(order, 'payin', confirmed ? 'confirmed' : 'received', {
      amount,
      [order.payin.kind === 'fiat' ? 'tx_reference' : 'tx_hash']: txRef,
      ...(isLate(order) ? { late: true } : {}),
    });
  }

  /**
   * The order's summary on demand. Returned unnamed: tsx compiles with esbuild's keepNames, which
   * would give a named closure a `defineProperty` call (~2 µs) every time one is made.
   */
  function summaryOf(order: OrderRecord): () => OrderSummary {
    return () => toSummary(order, core.precisions(order));
  }

  function emit(order: OrderRecord, event: WebhookEvent) {
    const at = clock.now();
    order.updated_at = at;
    const entry: TimelineRecord = { group: 'webhook', event, details: null, at };
    order.timeline.push(entry);
    order.version++;
    changed(order.reference);
    if (listeners.size === 0) return;
    const summary = summaryOf(order);
    for (const listener of listeners) {
      const details = listener({ event, order, summary, at });
      if (details) entry.details = entry.details ? { ...entry.details, ...details } : details;
    }
  }

  function onPayout(order: OrderRecord, phase: 'sent' | 'failed' | 'reverted') {
    const now = clock.now();
    const p = core.precisions(order);
    if (phase === 'sent') {
      const r = order.recipient;
      const txRef = r.kind === 'fiat' ? artefacts.bankReference() : artefacts.txHash(core.formatOf(order.env, r.network));
      order.payout = {
        refs: [txRef],
        paidAt: now,
        amount: settledAmount(order, p.to),
        percentage: settledPercentage(order),
        state: 'sent',
      };
      note(order, 'payout', 'sent', { amount: order.payout.amount, [r.kind === 'fiat' ? 'tx_reference' : 'tx_hash']: txRef });
    } else if (order.payout) {
      order.payout.state = phase;
      if (phase === 'failed') order.payout.paidAt = null;
      note(order, 'payout', phase, { amount: order.payout.amount });
    }
  }

  function onRefund(order: OrderRecord, phase: 'started' | 'completed') {
    if (phase === 'started') {
      order.refund ??= { ref: null, refundedAt: null };
      note(order, 'refund', 'started', { amount: order.context.refundDue });
      return;
    }
    const t = order.refundTarget;
    order.refund = {
      ref: t.kind === 'fiat' ? artefacts.bankReference() : artefacts.txHash(core.formatOf(order.env, t.network)),
      refundedAt: clock.now(),
    };
    note(order, 'refund', 'completed', { amount: order.context.refunded });
  }

  function note(order: OrderRecord, group: TimelineRecord['group'], event: string, details: TimelineRecord['details']) {
    order.timeline.push({ group, event, details, at: clock.now() });
    order.version++;
    changed(order.reference);
  }

  return { machines, snapshotOf, can, start, dispatch, note, recordPayin, reviveTimer, cancelTimer, listeners, changeListeners, changed };
}

export type Lifecycle = ReturnType<typeof createLifecycle>;

const machineCache = new Map<string, OrderMachine>();

/**
 * The machine of a type and timings, built once per process: a machine is data (its effects
 * are run here), so sandboxes share it, and starting one stays cheap (CONTRACT §14).
 */
function machineFor(type: OrderType, timings: LifecycleTimings): OrderMachine {
  const key = `${type} ${JSON.stringify(timings)}`;
  let machine = machineCache.get(key);
  if (!machine) {
    machine = createOrderMachine(type, timings);
    machineCache.set(key, machine);
  }
  return machine;
}

/** Timer ids are the machine's few delays: what each says is worked out once (every order sets one). */
const timerNames = new Map<string, { delay: string | undefined; description: string }>();

function timerName(id: string) {
  let name = timerNames.get(id);
  if (!name) {
    const m = /^xstate\.after\.([^.]+)\.[^.]+\.(.+)$/.exec(id);
    name = { delay: /^xstate\.after\.([^.]+)\./.exec(id)?.[1], description: m ? `${m[1]} elapsed in ${m[2]}` : id };
    if (timerNames.size < 1_000) timerNames.set(id, name);
  }
  return name;
}

/** `xstate.after.<delay>.<machine id>.<state>` → the delay's name. */
function delayName(id: string): string | undefined {
  return timerName(id).delay;
}

function describeTimer(id: string): string {
  return timerName(id).description;
}
