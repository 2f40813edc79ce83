import type { TimerTag, VirtualClock } from '../clock';
import type { ReferenceStore } from '../reference';
import { createBus, type Bus } from '../shared/bus';
import type { Ids } from '../shared/ids';
import { createEviction, type NearlyFull } from './eviction';
import { createCommands } from './order.commands';
import { ALL_INCLUDES, createCore } from './order.core';
import { createIntake } from './order.intake';
import { createLifecycle, type OrderEvents } from './order.lifecycle';
import { DEFAULT_TIMINGS, type LifecycleTimings } from './order.machine';
import { createQueries } from './order.queries';
import { createQuotes } from './order.quotes';
import { createSimulator } from './order.simulate';
import type { OrdersState } from './order.state';
import type { Order } from './model';
import { createPlainStore } from './store';

export { ALL_INCLUDES, requireKyb, type Caller } from './order.core';
export type { EmittedEvent, OrderEvents } from './order.lifecycle';

export interface OrderServiceDeps {
  clock: VirtualClock;
  reference: ReferenceStore;
  ids: Ids;
  /** Where orders publish each webhook event the machine emits and each change (default: their own). */
  bus?: Bus<OrderEvents>;
  timings?: Partial<LifecycleTimings>;
  /** Quote lifetime, virtual ms (default 60 s). */
  quoteTtlMs?: number;
  /** CONTRACT §9: orders kept at most (default: no bound). */
  maxOrders?: number;
  /** Told of each batch of evicted orders, to forget what hangs off them (deliveries). */
  onEvicted?: (orders: ReadonlySet<Order>) => void;
  /** Told once when the store passes 90% of `maxOrders` (again only after a reset or restore). */
  onNearlyFull?: (info: NearlyFull) => void;
}

/**
 * Quotes, orders and their lifecycle: the domain behind /v1/orders and the order controls,
 * composed of one module per job: intake (typed input to a stored order), quotes, commands,
 * queries and views, the lifecycle (the machine applied), eviction and the state snapshot.
 */
export function createOrderService(deps: OrderServiceDeps) {
  const timings: LifecycleTimings = { ...DEFAULT_TIMINGS, ...deps.timings };
  const bus = deps.bus ?? createBus<OrderEvents>();
  // Every write publishes the order's change (the dashboard's feed, `waitFor`).
  const store = createPlainStore({ onChange: (reference) => bus.emit('order.changed', reference) });
  const core = createCore({ clock: deps.clock, ref: deps.reference, ids: deps.ids, timings, store });
  // Eviction is checked whenever a step leaves an order final, not only on a create (CONTRACT §9).
  const lifecycle = createLifecycle(core, { bus, onFinal: (order) => eviction.afterFinal(order) });
  const queries = createQueries(core);
  const eviction = createEviction({
    store,
    pendingTimers: lifecycle.pendingTimers,
    maxOrders: deps.maxOrders ?? Number.POSITIVE_INFINITY,
    onEvicted: (evicted) => {
      queries.forget(evicted);
      deps.onEvicted?.(evicted);
      lifecycle.changedAll();
    },
    onNearlyFull: deps.onNearlyFull,
  });
  const quotes = createQuotes(core, deps.quoteTtlMs ?? 60_000);
  const intake = createIntake(core, lifecycle, eviction);
  const commands = createCommands(core, lifecycle, queries);
  const simulator = createSimulator(core, lifecycle);

  return {
    quote: quotes.quote,
    /** Ends a quote's lifetime now (a readiness probe, CONTRACT §21). */
    endQuote: quotes.endQuote,
    create: intake.create,
    detailJson: queries.detailJson,
    list: queries.list,
    find: queries.find,
    ...commands,
    /** CONTRACT §16: takes an order to a status along its machine's shortest path; the statuses passed. */
    simulate: simulator.simulate,
    /** The statuses an order can still be taken to (CONTRACT §16; the dashboard's "Take it to …"). */
    reachable: (reference: string) => simulator.reachable(queries.find(reference)),
    /** Detail of any order by reference (control API). */
    detail: (reference: string) => queries.detail(queries.find(reference), ALL_INCLUDES),
    summary: queries.summary,
    /** Whether the machine accepts `event` for the order now (the dashboard's valid actions). */
    can: lifecycle.can,
    /**
     * What became of a webhook event the orders published (`order.emitted`): a delivery's id or
     * why none was made, on the order's timeline entry `entryId`. The webhooks' report back.
     */
    noteDelivery: lifecycle.noteDelivery,
    machines: lifecycle.machines,
    timings,
    store,
    /** Orders and quotes for a state snapshot (CONTRACT §13); timers are the clock's to list. */
    exportState(): OrdersState {
      return {
        orders: [...store.snapshot()],
        quotes: [...store.quotes.values()].map((q) => structuredClone(q)),
        evicted_orders: eviction.count,
      };
    },
    /** Each order's and quote's snapshot as JSON, one at a time (a state save streams them). */
    *ordersJson(): Generator<string> {
      yield* store.snapshotJson();
    },
    *quotesJson(): Generator<string> {
      for (const quote of store.quotes.values()) yield JSON.stringify(quote);
    },
    /** Replaces every order and quote with a validated snapshot's; then revive the timers. */
    restoreState(state: OrdersState): void {
      store.clear();
      lifecycle.forgetTimers();
      queries.clearCache();
      eviction.reset(state.evicted_orders);
      store.restore(state.orders);
      for (const entry of state.quotes) store.quotes.set(entry.quote_id, entry);
      lifecycle.changedAll();
    },
    /** Re-creates one of the orders' or quotes' timers from its snapshot tag (CONTRACT §13). */
    reviveTimer: (tag: TimerTag, due: number) => lifecycle.reviveTimer(tag, due) || quotes.reviveTimer(tag, due),
    /** An order's pending timers on the clock: [delayed event id, clock timer id] pairs. */
    pendingTimers: (reference: string) => lifecycle.pendingTimers({ reference }),
    /** Orders evicted to stay within `maxOrders` (CONTRACT §9). */
    get evictedCount() {
      return eviction.count;
    },
    clear: () => {
      store.clear();
      lifecycle.forgetTimers();
      queries.clearCache();
      eviction.reset();
      lifecycle.changedAll();
    },
  };
}

export type OrderService = ReturnType<typeof createOrderService>;
