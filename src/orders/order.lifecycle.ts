import type { TimerTag } from '../clock';
import type { WebhookEvent } from '../shared/events';
import type { OrdersCore } from './order.core';
import { createOrderEffects } from './order.effects';
import { createOrderMachine, type LifecycleTimings, type OrderEvent, type OrderInput, type OrderMachine } from './order.machine';
import type { OrderRecord, TimelineRecord } from './order.store';
import { toSummary, type OrderSummary } from './order.view';
import { isFinal, ORDER_TYPES, type OrderStatus, type OrderType } from './order.vocabulary';
import { createMachineRunner, type MachineRunner } from './machine.runner';

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

type OrderRunner = MachineRunner<OrderMachine, OrderRecord>;

/**
 * The order machine applied to stored orders: one machine runner per order type (the machine's
 * transitions, its delays on the virtual clock) and the order effects (webhook events, payout
 * and refund artefacts, the timeline). What a status allows is always asked of the machine.
 */
export function createLifecycle(core: OrdersCore, hooks: LifecycleHooks = {}) {
  const { clock, timings, store } = core;
  /** Listeners may return details to record on the order's timeline entry (e.g. a delivery id). */
  const listeners = new Set<(e: EmittedEvent) => Record<string, unknown> | void>();
  /** Told the reference of each order that changed (null: all of them went); the dashboard's live feed. */
  const changeListeners = new Set<(reference: string | null) => void>();
  const changed = (reference: string | null) => {
    for (const listener of changeListeners) listener(reference);
  };

  const effects = createOrderEffects(core, {
    changed: (order) => changed(order.reference),
    notified(order, event, entry) {
      if (listeners.size === 0) return;
      const summary = summaryOf(order);
      for (const listener of listeners) {
        const details = listener({ event, order, summary, at: entry.at });
        if (details) entry.details = entry.details ? { ...entry.details, ...details } : details;
      }
    },
  });

  const runnerFor = (type: OrderType): OrderRunner =>
    createMachineRunner(machineFor(type, timings), {
      clock,
      stateOf: (order) => ({ value: order.status, context: order.context }),
      store: (order, next) => {
        order.version++;
        const before = order.status;
        // The pay-in window's end is the machine's, set in its context as the window opens.
        if (next.context.payinDeadline !== order.context?.payinDeadline) order.payinExpiresAt = next.context.payinDeadline;
        order.context = next.context;
        order.status = next.value as OrderStatus;
        if (before !== order.status) {
          order.updated_at = clock.now();
          effects.note(order, 'status', order.status, null);
        }
      },
      timersOf: (order) => order.timers,
      effects: {
        notify: (order, { event }) => effects.notify(order, event),
        payout: (order, { phase }) => effects.payout(order, phase),
        refund: (order, { phase }) => effects.refund(order, phase),
        arrivePayin: effects.arrivePayin,
      },
      tag: (order, id, event): TimerTag => ({ kind: 'order', reference: order.reference, id, event }),
      label: (order, what) => `${order.reference}: ${what}`,
      // Every time, since a timer of its own that just fired may have been the last one (CONTRACT §9).
      settled: (order) => {
        if (isFinal(order.status)) hooks.onFinal?.(order);
      },
    });
  const runners = Object.fromEntries(ORDER_TYPES.map((type) => [type, runnerFor(type)])) as Record<OrderType, OrderRunner>;
  const machines = Object.fromEntries(ORDER_TYPES.map((type) => [type, runners[type].machine])) as Record<OrderType, OrderMachine>;

  function can(order: Pick<OrderRecord, 'type' | 'status' | 'context'>, event: OrderEvent): boolean {
    return runners[order.type].can(order as OrderRecord, event);
  }

  /** The machine's first state for a new order, applied, then the zero-delay events it raised. */
  function start(order: OrderRecord, input: OrderInput): void {
    runners[order.type].start(order, input);
  }

  /** Applies `event` and any zero-delay events it raises; false when the status ignores it. */
  function dispatch(order: OrderRecord, event: OrderEvent): boolean {
    return runners[order.type].send(order, event);
  }

  /** Clears the order's pending timers (a create taken back). */
  function stop(order: OrderRecord): void {
    runners[order.type].stop(order);
  }

  /** Re-creates an order's timer from a snapshot tag (CONTRACT §13); false when not an order's. */
  function reviveTimer(tag: TimerTag, due: number): boolean {
    const order = typeof tag.reference === 'string' ? store.orders.get(tag.reference) : undefined;
    if (!order || tag.kind !== 'order' || typeof tag.id !== 'string') return false;
    runners[order.type].revive(order, tag.id, tag.event as OrderEvent, due);
    return true;
  }

  /** A pay-in arrives (control API): on the record, then applied to the machine. */
  function recordPayin(order: OrderRecord, amount: number, confirmed: boolean, ref?: string) {
    effects.notePayin(order, amount, confirmed, ref);
    dispatch(order, { type: 'PAYIN', amount, confirmed });
  }

  /**
   * The order's summary on demand. Returned unnamed: tsx compiles with esbuild's keepNames, which
   * would give a named closure a `defineProperty` call (~2 µs) every time one is made.
   */
  function summaryOf(order: OrderRecord): () => OrderSummary {
    return () => toSummary(order, core.precisions(order));
  }

  return { machines, can, start, dispatch, stop, note: effects.note, recordPayin, reviveTimer, listeners, changeListeners, changed };
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
