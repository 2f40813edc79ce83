import type { TimerFire, TimerLabel, TimerTag } from '../clock';
import { badRequest, conflict, notFound } from '../shared/errors';
import { round } from '../shared/money';
import { createMachineRunner, type MachineRunner, type MachineState } from './machine.runner';
import { lifecycleGraph } from './lifecycle-graph';
import type { OrdersCore } from './order.core';
import type { Lifecycle } from './order.lifecycle';
import type { OrderContext, OrderEvent, OrderMachine } from './order.machine';
import type { Order } from './model';
import { isFinal, ORDER_STATUSES, type OrderStatus, type OrderType } from './model';

/**
 * CONTRACT §16: driving an order to a status in one call. The path is searched on the order's
 * own machine (the same machine runner, on a scratch clock and a copy of the order's state), so
 * there is no second table of transitions: a move is either one of the machine's events with
 * the parameters a partner or the control API would send (a pay-in, a confirmation, a cancel, an
 * expiry, a payout outcome) or the order's own earliest delayed step, fired now. The moves are
 * then taken on the real order, one at a time, each through the same lifecycle as the control
 * routes', so every webhook on the way is sent, in order.
 */

/** One step of a plan: a machine event taken now, or the order's earliest pending timer fired now. */
export type SimulateMove = { kind: 'event'; event: OrderEvent; partial?: boolean } | { kind: 'timer'; id: string };

export interface SimulatePlan {
  moves: SimulateMove[];
  /** The statuses the order passes through, its current one first and `target` last. */
  path: OrderStatus[];
}

/** A search node: the order's machine state and its pending delayed events, by due time. */
interface Sim {
  value: OrderStatus;
  context: OrderContext;
  /** [raise id, scratch timer handle] as the runner keeps them. */
  timers: Array<[string, number]>;
  /** Scratch timers of this node: due time, insertion order and the event each raises. */
  pending: Map<number, { due: number; seq: number; event: OrderEvent }>;
  path: OrderStatus[];
  moves: SimulateMove[];
  /** Ordering of plans: late pay-ins, then non-default choices, then statuses passed, then moves. */
  cost: [number, number, number];
  payins: number;
}

/** A pay-in to an order whose business is over: refunded; chosen only when nothing else gets there. */
const LATE_PAYIN_PENALTY = 100;
/** A partial payout outcome: where a partial pay-in tells the same story, that is preferred. */
const PARTIAL_PAYOUT_PENALTY = 1;
/** Bounds of the search: moves in a plan, pay-ins in a plan, nodes expanded. */
const MAX_MOVES = 20;
const MAX_PAYINS = 2;
const MAX_EXPANDED = 5000;
/** Moves taken on one order before giving up (each re-planned if the order moved meanwhile). */
const MAX_STEPS = 40;

/** Statuses that tell of a failure: the step entering the first of them carries the `reason`. */
const UNHAPPY: ReadonlySet<OrderStatus> = new Set(['failed', 'reverted', 'cancelled', 'expired', 'refunded', 'partially_completed']);

export interface SimulateOptions {
  reason?: string;
  /**
   * Awaited after each move: the first attempt of each delivery the move started is done
   * before the next move, so webhooks reach the partner in the order the steps happened.
   */
  afterStep?: () => Promise<void> | undefined;
}

export function createSimulator(core: OrdersCore, lifecycle: Lifecycle) {
  const { clock, store } = core;

  // The planner's runners: the lifecycle's machines on a scratch clock that only records timers.
  let node: Sim | undefined;
  let handles = 0;
  let seq = 0;
  const scratchClock = {
    now: () => clock.now(),
    setTimer(at: number, _fire: TimerFire, _label?: TimerLabel, tag?: TimerTag): number {
      const handle = ++handles;
      node!.pending.set(handle, { due: at, seq: seq++, event: tag!.event as OrderEvent });
      return handle;
    },
    clearTimer(handle: number): void {
      node!.pending.delete(handle);
    },
  };
  const planners = new Map<OrderType, MachineRunner<OrderMachine, Sim>>();
  const plannerFor = (type: OrderType): MachineRunner<OrderMachine, Sim> => {
    let runner = planners.get(type);
    if (!runner) {
      runner = createMachineRunner<OrderMachine, Sim>(lifecycle.machines[type], {
        clock: scratchClock,
        stateOf: (sim) => ({ value: sim.value, context: sim.context }),
        store: (sim, next: MachineState<OrderContext>) => {
          const status = next.value as OrderStatus;
          if (status !== sim.value) sim.path.push(status);
          sim.value = status;
          sim.context = next.context;
        },
        timersOf: (sim) => sim.timers,
        // A magic amount's own pay-in is applied as the machine raises it; other effects are the real order's.
        effects: { arrivePayin: (_sim, params, raise) => raise({ type: 'PAYIN', amount: params.amount, confirmed: params.confirmed }) },
        tag: (_sim, id, event) => ({ kind: 'plan', id, event }),
        // The scratch clock never fires a timer (the planner reads what it recorded).
        fromTag: () => undefined,
        describeTag: (tag) => ({ owner: 'plan', id: tag.id as string }),
        label: (_owner, what) => what,
      });
      planners.set(type, runner);
    }
    return runner;
  };

  /** The events a move may send in this state, in order of preference, with their penalty. */
  function candidates(sim: Sim, precision: number): Array<{ event: OrderEvent; penalty: number; partial?: boolean }> {
    const c = sim.context;
    const outstanding = round(c.due - c.paid - c.unconfirmed, precision);
    const exact = outstanding > 0 ? outstanding : c.due;
    const half = round(exact / 2, precision);
    const late = isFinal(sim.value) ? LATE_PAYIN_PENALTY : 0;
    const out: Array<{ event: OrderEvent; penalty: number; partial?: boolean }> = [];
    if (sim.payins < MAX_PAYINS) {
      out.push({ event: { type: 'PAYIN', amount: exact, confirmed: true }, penalty: late });
      if (half > 0 && half < exact) out.push({ event: { type: 'PAYIN', amount: half, confirmed: true }, penalty: late, partial: true });
      out.push({ event: { type: 'PAYIN', amount: exact, confirmed: false }, penalty: late });
    }
    out.push(
      { event: { type: 'CONFIRM' }, penalty: 0 },
      { event: { type: 'CANCEL' }, penalty: 0 },
      { event: { type: 'EXPIRE' }, penalty: 0 },
    );
    // An outcome already decided is not decided again.
    for (const outcome of ['fail', 'revert', 'partial', 'success'] as const) {
      if (outcome === c.outcome) continue;
      out.push({
        event: outcome === 'partial' ? { type: 'SET_PAYOUT', outcome, percentage: 50 } : { type: 'SET_PAYOUT', outcome },
        penalty: outcome === 'partial' ? PARTIAL_PAYOUT_PENALTY : 0,
      });
    }
    return out;
  }

  const earliest = (sim: Sim): [string, number] | undefined => {
    let best: [string, number] | undefined;
    let bestKey: { due: number; seq: number } | undefined;
    for (const pair of sim.timers) {
      const t = sim.pending.get(pair[1]);
      if (t && (!bestKey || t.due < bestKey.due || (t.due === bestKey.due && t.seq < bestKey.seq))) {
        best = pair;
        bestKey = t;
      }
    }
    return best;
  };

  const clone = (sim: Sim): Sim => ({
    value: sim.value,
    context: sim.context,
    timers: sim.timers.map((t) => [t[0], t[1]] as [string, number]),
    pending: new Map(sim.pending),
    path: [...sim.path],
    moves: [...sim.moves],
    cost: [...sim.cost],
    payins: sim.payins,
  });

  const signature = (sim: Sim): string =>
    `${sim.value}|${JSON.stringify(sim.context)}|${sim.timers
      .map(([id, h]) => `${id}@${sim.pending.get(h)?.due}`)
      .sort()
      .join(',')}`;

  const before = (a: Sim['cost'], b: Sim['cost']) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2];

  /**
   * The cheapest plan from the order's state to `target`, and every status some plan reaches
   * (for the refusal's message). Dijkstra over machine states on a scratch clock.
   */
  function search(order: Order, target: OrderStatus | undefined): { plan?: SimulatePlan; reachable: Set<OrderStatus> } {
    const runner = plannerFor(order.type);
    const precision = core.precisionOf(order.env, order.from.currency);
    const root: Sim = {
      value: order.status,
      context: order.context,
      timers: [],
      pending: new Map(),
      path: [order.status],
      moves: [],
      cost: [0, 0, 0],
      payins: 0,
    };
    // The order's pending timers, due as on the real clock.
    node = root;
    for (const [id, handle] of lifecycle.pendingTimers(order)) {
      const timer = clock.timer(handle);
      if (timer?.tag) runner.revive(root, id, timer.tag.event as OrderEvent, timer.due);
    }
    node = undefined;
    const reachable = new Set<OrderStatus>();
    const best = new Map<string, Sim['cost']>([[signature(root), root.cost]]);
    const open: Sim[] = [root];
    let expanded = 0;
    while (open.length > 0 && expanded < MAX_EXPANDED) {
      // The open list stays small (tens of nodes): a sort is cheaper than a heap here.
      open.sort((a, b) => before(a.cost, b.cost));
      const sim = open.shift()!;
      if (target !== undefined && sim.value === target && sim.moves.length > 0)
        return { plan: { moves: sim.moves, path: sim.path }, reachable };
      if (sim.moves.length >= MAX_MOVES) continue;
      expanded++;
      const next: Sim[] = [];
      const due = earliest(sim);
      if (due) {
        const s = clone(sim);
        node = s;
        s.timers.splice(s.timers.indexOf(s.timers.find((t) => t[1] === due[1])!), 1);
        const event = s.pending.get(due[1])!.event;
        s.pending.delete(due[1]);
        runner.send(s, event);
        s.moves.push({ kind: 'timer', id: due[0] });
        next.push(s);
      }
      for (const { event, penalty, partial } of candidates(sim, precision)) {
        const s = clone(sim);
        node = s;
        if (!runner.send(s, event)) continue;
        // Only a pay-in may leave the status as it is (pay-ins add up); a payout outcome is
        // decided where it ends the payout, so the search does not branch on it everywhere.
        if (s.value === sim.value && event.type !== 'PAYIN') continue;
        if (event.type === 'PAYIN') s.payins++;
        s.cost[0] += penalty;
        s.moves.push(partial ? { kind: 'event', event, partial } : { kind: 'event', event });
        next.push(s);
      }
      node = undefined;
      for (const s of next) {
        // The statuses passed (the path's length), then the moves taken.
        s.cost[1] = s.path.length;
        s.cost[2] = s.moves.length;
        for (const status of s.path.slice(1)) reachable.add(status);
        const key = signature(s);
        const known = best.get(key);
        if (known && before(known, s.cost) <= 0) continue;
        best.set(key, s.cost);
        open.push(s);
      }
    }
    return { reachable };
  }

  /** The plan that takes `order` to `target`; a 400 listing the reachable statuses when there is none. */
  function plan(order: Order, target: OrderStatus): SimulatePlan {
    if (order.status === target) return { moves: [], path: [target] };
    const { plan: found, reachable } = search(order, target);
    if (found) return found;
    const inOrder = ORDER_STATUSES.filter((s) => reachable.has(s));
    const inMachine = lifecycleGraph(order.type, core.timings).states.some((s) => s.id === target);
    throw badRequest(
      `Order ${order.reference} (${order.type}, status ${order.status}) cannot be taken to ${target}: ` +
        `${inMachine ? `it is not reachable from ${order.status}` : `${target} is not a status of the ${order.type} lifecycle`}. ` +
        (inOrder.length > 0
          ? `Reachable from ${order.status}: ${inOrder.join(', ')}`
          : `Nothing is reachable from ${order.status}: the order's lifecycle is over`),
    );
  }

  /**
   * Takes one planned move on the real order, through the same lifecycle as the control routes;
   * false when the order does not take it any more (it moved on its own meanwhile).
   */
  function take(order: Order, move: SimulateMove): boolean {
    if (move.kind === 'timer') {
      const pair = lifecycle.pendingTimers(order).find(([id]) => id === move.id);
      return pair !== undefined && clock.fireNow(pair[1]);
    }
    const event = move.event;
    if (!lifecycle.can(order, event)) return false;
    switch (event.type) {
      case 'PAYIN':
        lifecycle.recordPayin(order, event.amount, event.confirmed);
        return true;
      case 'CONFIRM': {
        const seen = order.payinRefs.at(-1);
        lifecycle.note(
          order,
          'payin',
          'proof_submitted',
          seen === undefined ? null : { [order.payin.kind === 'fiat' ? 'reference' : 'tx_hash']: seen },
          (o) => {
            o.payinPaidAt = clock.now();
          },
        );
        return lifecycle.dispatch(order, event);
      }
      case 'CANCEL':
        lifecycle.note(order, 'order', 'cancel_requested', null);
        return lifecycle.dispatch(order, event);
      case 'EXPIRE':
        store.update(order, (o) => {
          o.payinExpiresAt = clock.now();
        });
        return lifecycle.dispatch(order, event);
      case 'SET_PAYOUT':
        lifecycle.note(order, 'payout', 'outcome_set', {
          outcome: event.outcome,
          ...(event.percentage === undefined ? {} : { percentage: event.percentage }),
        });
        return lifecycle.dispatch(order, event);
      default:
        return false;
    }
  }

  /** Whether a move chose a failure: a partial pay-in, a cancel, an expiry, a payout that does not succeed. */
  const chosenFailure = (move: SimulateMove): boolean =>
    move.kind === 'event' &&
    (move.event.type === 'CANCEL' ||
      move.event.type === 'EXPIRE' ||
      (move.event.type === 'SET_PAYOUT' && move.event.outcome !== 'success') ||
      (move.event.type === 'PAYIN' && move.event.confirmed && move.partial === true));

  /**
   * `reason` on the timeline entry of the failing step, among the entries from `from` on: the
   * control step that chose the failure (its note), else the unhappy status the step entered.
   * False when this step was not the failing one.
   */
  function noteReason(order: Order, from: number, move: SimulateMove, reason: string): boolean {
    const entries = order.timeline.slice(from);
    let at = -1;
    if (chosenFailure(move)) at = entries.findIndex((e) => e.group !== 'status' && e.group !== 'webhook');
    if (at < 0) at = entries.findIndex((e) => e.group === 'status' && UNHAPPY.has(e.event as OrderStatus));
    if (at < 0) return false;
    withReason(order, from + at, reason);
    return true;
  }

  /** `reason` added to the details of the order's timeline entry `at`. */
  function withReason(order: Order, at: number, reason: string): void {
    store.update(order, (o) => {
      const entry = o.timeline[at]!;
      o.timeline[at] = { ...entry, details: { ...(entry.details ?? {}), reason } };
    });
  }

  /**
   * Takes the order to `target` (CONTRACT §16). Each move is taken, then `afterStep` awaited; if
   * the order moved meanwhile (a clock in realtime, a partner's cancel), the rest is planned
   * again from where it stands. Resolves with the statuses passed through, current one first.
   */
  async function simulate(reference: string, target: OrderStatus, options: SimulateOptions = {}): Promise<OrderStatus[]> {
    const order = store.get(reference);
    if (!order) throw notFound(`Order ${reference} not found`);
    let current = plan(order, target);
    const path: OrderStatus[] = [order.status];
    let reason = options.reason;
    for (let steps = 0, i = 0; order.status !== target; steps++) {
      if (steps >= MAX_STEPS) throw conflict(`Order ${reference} did not reach ${target} in ${MAX_STEPS} steps; it is ${order.status}`);
      if (store.get(reference) !== order)
        throw conflict(`Order ${reference} went while it was being simulated (a reset, a restore or an eviction)`);
      const move = current.moves[i];
      const from = order.timeline.length;
      if (move === undefined || !take(order, move)) {
        // The order moved on its own meanwhile: plan again from where it stands.
        current = plan(order, target);
        i = 0;
        continue;
      }
      i++;
      if (reason !== undefined && noteReason(order, from, move, reason)) reason = undefined;
      for (const entry of order.timeline.slice(from)) if (entry.group === 'status') path.push(entry.event as OrderStatus);
      await options.afterStep?.();
    }
    // A reason no step could carry (a path without a failing step): on the last status entry.
    if (reason !== undefined) {
      const last = order.timeline.findLastIndex((e) => e.group === 'status');
      if (last >= 0) withReason(order, last, reason);
    }
    return path;
  }

  return { plan, simulate, reachable: (order: Order) => search(order, undefined).reachable };
}

export type Simulator = ReturnType<typeof createSimulator>;
