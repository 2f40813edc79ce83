import type { PartnerRegistry, RateLimiter } from '../auth';
import type { FiredTimer, VirtualClock } from '../clock';
import type { FaultStore } from '../http/faults/fault.store';
import type { RequestLog } from '../http/inspector/request-log';
import type { OrderService } from '../orders';
import type { Ids } from '../shared/ids';
import type { Dispatcher } from '../webhooks';
import type { Market } from '../reference';

export interface SimulationDeps {
  clock: VirtualClock;
  dispatcher: Dispatcher;
  orders: OrderService;
  partners: PartnerRegistry;
  rateLimiter: RateLimiter;
  faults: FaultStore;
  requests: RequestLog;
  ids: Ids;
  /** The seed the run's ids restart from on reset. */
  runSeed: number;
  /** The partner a reset keeps. */
  demoClientId: string;
  /** Market rates: a reset drops their scripts (CONTRACT §22). */
  market?: Market;
}

/**
 * Moving the simulation (CONTRACT §2, §4, §9): advancing the virtual clock with the webhook
 * attempts it starts finished at their own virtual time, and reset. The clock throws the typed
 * `ClockBusyError` (another advance is under way) and `AdvanceInterruptedError` (a reset or a
 * state restore stopped this one, its `reason` says which); the control route maps them to 409.
 * An advance yields to the event loop every few tens of ms of work (CONTRACT §9), so requests
 * (a reset, a restore, a create) are served while it runs.
 */
export function createSimulation(deps: SimulationDeps) {
  const { clock, dispatcher } = deps;

  /** Resolves when no webhook attempt is in flight; undefined (nothing to wait for) at once. */
  const deliveriesIdle = (): Promise<void> | undefined => (dispatcher.inFlightCount > 0 ? dispatcher.idle() : undefined);

  /**
   * Advances the virtual clock to `target`. Attempts already under way finish first, at the
   * time they started (the clock waits for them before its first timer), and every attempt a timer
   * starts finishes at that timer's time: a retry they schedule inside the span fires too.
   */
  function advanceTo(target: number): Promise<FiredTimer[]> {
    return clock.advanceToAsync(target, deliveriesIdle);
  }

  /** CONTRACT §4 reset: drops everything but the demo partner; clock back to its start. */
  function reset(): void {
    dispatcher.clear();
    deps.orders.clear();
    deps.partners.retainOnly([deps.demoClientId]);
    deps.rateLimiter.clear();
    deps.faults.clear();
    deps.market?.clear();
    deps.requests.clear();
    clock.reset();
    deps.ids.reseed(deps.runSeed);
  }

  return { advanceTo, advance: (ms: number) => advanceTo(clock.now() + ms), deliveriesIdle, reset };
}

export type Simulation = ReturnType<typeof createSimulation>;
