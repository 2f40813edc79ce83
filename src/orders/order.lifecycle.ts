import type { TimerTag } from '../clock';
import { createBus, type Bus } from '../shared/bus';
import type { OrdersCore } from './order.core';
import { createOrderEffects, type OrderEvents } from './order.effects';
import { createOrderMachine, type LifecycleTimings, type OrderEvent, type OrderInput, type OrderMachine } from './order.machine';
import type { OrderRecord } from './order.store';
import { isFinal, ORDER_TYPES, type OrderStatus, type OrderType } from './order.vocabulary';
import { createMachineRunner, type MachineRunner } from './machine.runner';
import { ownTimers, packContext, releaseTimers } from './packed-order';
import { settleOrder } from './order-terms';

export type { EmittedEvent, OrderEvents } from './order.effects';

export interface LifecycleOptions {
  /** Where orders publish their webhook events and changes (default: a bus of their own). */
  bus?: Bus<OrderEvents>;
  /**
   * After each step (an event and the zero-delay events it raised) that leaves the order in a
   * final status, timers already set or cancelled: eviction's check (CONTRACT §9).
   */
  onFinal?: (order: OrderRecord) => void;
}

type OrderRunner = MachineRunner<OrderMachine, OrderRecord>;

/**
 * The order machine applied to stored orders: one machine runner per order type (the machine's
 * transitions, its delays on the virtual clock) and the order effects (webhook events, payout
 * and refund artefacts, the timeline). What a status allows is always asked of the machine.
 */
export function createLifecycle(core: OrdersCore, options: LifecycleOptions = {}) {
  const { clock, timings, store } = core;
  const bus = options.bus ?? createBus<OrderEvents>();
  const effects = createOrderEffects(core, bus);

  const runnerFor = (type: OrderType): OrderRunner =>
    createMachineRunner(machineFor(type, timings), {
      clock,
      stateOf: (order) => ({ value: order.status, context: order.context }),
      store: (order, next) => {
        order.version++;
        const before = order.status;
        // The pay-in window's end is the machine's, set in its context as the window opens.
        const closesAfter = next.context.payinClosesAfter;
        if (closesAfter !== order.context?.payinClosesAfter) order.payinExpiresAt = closesAfter === null ? null : order.created_at + closesAfter;
        order.context = packContext(next.context);
        order.status = next.value as OrderStatus;
        if (before !== order.status) {
          order.updated_at = clock.now();
          effects.note(order, 'status', order.status, null);
        }
      },
      timersOf: (order) => ownTimers(order),
      effects: {
        notify: (order, { event }) => effects.notify(order, event),
        payout: (order, { phase }) => effects.payout(order, phase),
        refund: (order, { phase }) => effects.refund(order, phase),
        arrivePayin: effects.arrivePayin,
      },
      tag: (order, id, event): TimerTag => ({ kind: 'order', reference: order.reference, id, event }),
      fromTag: (tag) => {
        const order = tag.kind === 'order' && typeof tag.reference === 'string' ? store.orders.get(tag.reference) : undefined;
        return order && typeof tag.id === 'string' ? { entity: order, id: tag.id, event: tag.event as OrderEvent } : undefined;
      },
      describeTag: (tag) => (typeof tag.reference === 'string' && typeof tag.id === 'string' ? { owner: tag.reference, id: tag.id } : undefined),
      label: (owner, what) => `${owner}: ${what}`,
      // Every time, since a timer of its own that just fired may have been the last one (CONTRACT §9).
      settled: (order) => {
        releaseTimers(order);
        if (isFinal(order.status)) options.onFinal?.(order);
        // Settled now (in a final status, no timer pending): its changing fields packed (decision 018).
        settleOrder(order);
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
    settleOrder(order);
  }

  /** What became of a webhook event, on its timeline entry (the webhooks' report); false when unknown. */
  function noteDelivery(reference: string, entryId: number, outcome: Readonly<Record<string, unknown>>): boolean {
    const order = store.orders.get(reference);
    if (order === undefined || !effects.noteDelivery(order, entryId, outcome)) return false;
    settleOrder(order);
    return true;
  }

  /** Every order went (a reset, a restore, an eviction): one change for all. */
  function changedAll(): void {
    bus.emit('order.changed', null);
  }

  /** One timeline entry, outside a step (a control command's note). */
  function note(order: OrderRecord, group: Parameters<typeof effects.note>[1], event: string, details: Parameters<typeof effects.note>[3]): void {
    effects.note(order, group, event, details);
    settleOrder(order);
  }

  return { bus, machines, can, start, dispatch, stop, note, noteDelivery, recordPayin, reviveTimer, changedAll };
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
