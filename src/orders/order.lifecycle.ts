import type { TimerTag } from '../clock';
import { createBus, type Bus } from '../shared/bus';
import type { OrdersCore } from './order.core';
import { createOrderEffects, type OrderEvents } from './order.effects';
import { createOrderMachine, type LifecycleTimings, type OrderEvent, type OrderInput, type OrderMachine } from './order.machine';
import type { Order } from './model';
import { isFinal, ORDER_TYPES, type OrderStatus, type OrderType } from './model';
import { createMachineRunner, type MachineRunner } from './machine.runner';

export type { EmittedEvent, OrderEvents } from './order.effects';

export interface LifecycleOptions {
  /** Where orders publish their webhook events and changes (default: a bus of their own). */
  bus?: Bus<OrderEvents>;
  /**
   * After each step (an event and the zero-delay events it raised) that leaves the order in a
   * final status, timers already set or cancelled: eviction's check (CONTRACT §9).
   */
  onFinal?: (order: Order) => void;
}

type OrderRunner = MachineRunner<OrderMachine, Order>;

/** Pending clock timers of one order: [xstate delayed-event id, clock timer id] pairs (usually 0 or 1). */
export type OrderTimers = Array<[string, number]>;
const NO_TIMERS: readonly [string, number][] = Object.freeze([]);

/**
 * The order machine applied to stored orders: one machine runner per order type (the machine's
 * transitions, its delays on the virtual clock) and the order effects (webhook events, payout
 * and refund artefacts, the timeline). What a status allows is always asked of the machine.
 */
export function createLifecycle(core: OrdersCore, options: LifecycleOptions = {}) {
  const { clock, timings, store } = core;
  const bus = options.bus ?? createBus<OrderEvents>();
  const effects = createOrderEffects(core, bus);
  /**
   * Each order's pending timers, by reference: handles on this sandbox's clock, not the order's
   * data (a snapshot lists them with the clock's timers, CONTRACT §13). Only orders with one.
   */
  const timers = new Map<string, OrderTimers>();
  const timersOf = (order: Order): OrderTimers => {
    let own = timers.get(order.reference);
    if (!own) timers.set(order.reference, (own = []));
    return own;
  };

  const runnerFor = (type: OrderType): OrderRunner =>
    createMachineRunner(machineFor(type, timings), {
      clock,
      stateOf: (order) => ({ value: order.status, context: order.context }),
      store: (order, next) => {
        const before = order.status;
        const status = next.value as OrderStatus;
        store.update(order, (o) => {
          // The pay-in window's end is the machine's, set in its context as the window opens.
          const closesAfter = next.context.payinClosesAfter;
          if (closesAfter !== o.context?.payinClosesAfter) o.payinExpiresAt = closesAfter === null ? null : o.created_at + closesAfter;
          o.context = next.context;
          o.status = status;
          if (before !== status) o.updated_at = clock.now();
        });
        if (before !== status) effects.note(order, 'status', status, null);
      },
      timersOf,
      effects: {
        notify: (order, { event }) => effects.notify(order, event),
        payout: (order, { phase }) => effects.payout(order, phase),
        refund: (order, { phase }) => effects.refund(order, phase),
        arrivePayin: effects.arrivePayin,
      },
      tag: (order, id, event): TimerTag => ({ kind: 'order', reference: order.reference, id, event }),
      fromTag: (tag) => {
        const order = tag.kind === 'order' && typeof tag.reference === 'string' ? store.get(tag.reference) : undefined;
        return order && typeof tag.id === 'string' ? { entity: order, id: tag.id, event: tag.event as OrderEvent } : undefined;
      },
      describeTag: (tag) =>
        typeof tag.reference === 'string' && typeof tag.id === 'string' ? { owner: tag.reference, id: tag.id } : undefined,
      label: (owner, what) => `${owner}: ${what}`,
      // Every time, since a timer of its own that just fired may have been the last one (CONTRACT §9).
      stepEnded: (order) => {
        if (timers.get(order.reference)?.length === 0) timers.delete(order.reference);
        if (isFinal(order.status)) options.onFinal?.(order);
      },
    });
  const runners = Object.fromEntries(ORDER_TYPES.map((type) => [type, runnerFor(type)])) as Record<OrderType, OrderRunner>;
  const machines = Object.fromEntries(ORDER_TYPES.map((type) => [type, runners[type].machine])) as Record<OrderType, OrderMachine>;

  function can(order: Pick<Order, 'type' | 'status' | 'context'>, event: OrderEvent): boolean {
    return runners[order.type].can(order as Order, event);
  }

  /** The machine's first state for a new order, applied, then the zero-delay events it raised. */
  function start(order: Order, input: OrderInput): void {
    runners[order.type].start(order, input);
  }

  /** Applies `event` and any zero-delay events it raises; false when the status ignores it. */
  function dispatch(order: Order, event: OrderEvent): boolean {
    return runners[order.type].send(order, event);
  }

  /** Clears the order's pending timers (a create taken back). */
  function stop(order: Order): void {
    runners[order.type].stop(order);
    timers.delete(order.reference);
  }

  /** The order's pending timers (none: an empty list). */
  function pendingTimers(order: Pick<Order, 'reference'>): readonly [string, number][] {
    return timers.get(order.reference) ?? NO_TIMERS;
  }

  /** Forgets every order's timers (a reset or a restore: the clock's timers went with them). */
  function forgetTimers(): void {
    timers.clear();
  }

  /** Re-creates an order's timer from a snapshot tag (CONTRACT §13); false when not an order's. */
  function reviveTimer(tag: TimerTag, due: number): boolean {
    const order = typeof tag.reference === 'string' ? store.get(tag.reference) : undefined;
    if (!order || tag.kind !== 'order' || typeof tag.id !== 'string') return false;
    runners[order.type].revive(order, tag.id, tag.event as OrderEvent, due);
    return true;
  }

  /** A pay-in arrives (control API): on the record, then applied to the machine. */
  function recordPayin(order: Order, amount: number, confirmed: boolean, ref?: string) {
    effects.notePayin(order, amount, confirmed, ref);
    dispatch(order, { type: 'PAYIN', amount, confirmed });
  }

  /** What became of a webhook event, on its timeline entry (the webhooks' report); false when unknown. */
  function noteDelivery(reference: string, entryId: number, outcome: Readonly<Record<string, unknown>>): boolean {
    const order = store.get(reference);
    return order !== undefined && effects.noteDelivery(order, entryId, outcome);
  }

  /** Every order went (a reset, a restore, an eviction): one change for all. */
  function changedAll(): void {
    bus.emit('order.changed', null);
  }

  /** One timeline entry, outside a step (a control command's note). */
  const note: typeof effects.note = effects.note;

  return {
    bus,
    machines,
    can,
    start,
    dispatch,
    stop,
    note,
    noteDelivery,
    recordPayin,
    reviveTimer,
    changedAll,
    pendingTimers,
    forgetTimers,
  };
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
