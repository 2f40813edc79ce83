import * as z from 'zod';
import { ORDER_TYPES, type OrderType } from './model';
import { transitionRows } from './lifecycle-doc';
import {
  DEFAULT_TIMINGS,
  ORDER_STATUSES,
  type LifecycleTimings,
  type OrderContext,
  type OrderMachine,
  type OrderStatus,
} from './order.machine';

/** One arrow of an order type's lifecycle, read from the machine. */
const LifecycleEdgeSchema = z
  .object({
    from: z.enum(ORDER_STATUSES),
    to: z.enum(ORDER_STATUSES),
    /** What moves it: `pay-in`, `after processing (2 min)`, `at once`, `cancel`… */
    on: z.string(),
    /** The guard, in words (empty when unguarded). */
    when: z.string(),
    emits: z.array(z.string()),
  })
  .meta({ id: 'LifecycleEdge' });
export type LifecycleEdge = z.output<typeof LifecycleEdgeSchema>;

export const LifecycleGraphSchema = z
  .object({
    type: z.enum(ORDER_TYPES),
    initial: z.enum(ORDER_STATUSES),
    /** The statuses an order of this type can reach, initial first. */
    states: z.array(z.object({ id: z.enum(ORDER_STATUSES), final: z.boolean() })),
    edges: z.array(LifecycleEdgeSchema),
  })
  .meta({ id: 'LifecycleGraph' });
export type LifecycleGraph = z.output<typeof LifecycleGraphSchema>;

/** The steps the control API can take on an order, and whether its status allows each now. */
export const OrderActionsSchema = z
  .object({
    payin: z.boolean().meta({ description: 'a confirmed pay-in (exact, partial or over) applies' }),
    payin_unconfirmed: z.boolean().meta({ description: 'a pay-in seen but not confirmed applies' }),
    fulfil: z.boolean().meta({ description: 'a pending pay-in can be confirmed' }),
    cancel: z.boolean(),
    expire: z.boolean().meta({ description: 'the pay-in window can be ended now' }),
    payout: z.boolean().meta({ description: 'the payout outcome can still be decided' }),
  })
  .meta({ id: 'OrderActions' });
export type OrderActions = z.output<typeof OrderActionsSchema>;

const graphs = new Map<string, LifecycleGraph>();

/**
 * The lifecycle of one order type as a graph (states and labelled edges), read from the same
 * machine that runs the orders, so the dashboard's diagram can never disagree with it.
 */
export function lifecycleGraph(type: OrderType, timings: LifecycleTimings = DEFAULT_TIMINGS): LifecycleGraph {
  const key = `${type}|${JSON.stringify(timings)}`;
  const cached = graphs.get(key);
  if (cached) return cached;
  const edges: LifecycleEdge[] = [];
  const seen = new Set<string>();
  for (const row of transitionRows(type, timings)) {
    if (row.to === '(stays)' || row.to === row.from) continue;
    const edge = { from: row.from as OrderStatus, to: row.to as OrderStatus, on: row.on, when: row.guard, emits: row.emits };
    const id = `${edge.from}>${edge.to}>${edge.on}>${edge.when}`;
    if (!seen.has(id)) edges.push(edge);
    seen.add(id);
  }
  // Only what an order can reach from `initiated` (a swap never waits for an LP, for one).
  const reachable = new Set<OrderStatus>(['initiated']);
  for (let grew = true; grew; ) {
    grew = false;
    for (const e of edges) {
      if (reachable.has(e.from) && !reachable.has(e.to)) {
        reachable.add(e.to);
        grew = true;
      }
    }
  }
  const kept = edges.filter((e) => reachable.has(e.from));
  const graph: LifecycleGraph = {
    type,
    initial: 'initiated',
    states: [...reachable].map((id) => ({ id, final: !kept.some((e) => e.from === id) })),
    edges: kept,
  };
  graphs.set(key, graph);
  return graph;
}

/** Which control steps the machine accepts for an order in `status` with `context` now. */
export function availableActions(machine: OrderMachine, status: OrderStatus, context: OrderContext): OrderActions {
  const snapshot = machine.resolveState({ value: status, context });
  const amount = context.due > 0 ? context.due : 1;
  return {
    payin: snapshot.can({ type: 'PAYIN', amount, confirmed: true }),
    payin_unconfirmed: snapshot.can({ type: 'PAYIN', amount, confirmed: false }),
    fulfil: snapshot.can({ type: 'CONFIRM' }),
    cancel: snapshot.can({ type: 'CANCEL' }),
    expire: snapshot.can({ type: 'EXPIRE' }),
    payout: snapshot.can({ type: 'SET_PAYOUT', outcome: 'success' }),
  };
}
