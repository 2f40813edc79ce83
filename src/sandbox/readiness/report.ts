// From a run's facts to its checks, verdict and coverage (CONTRACT §21). Pure: the orders are
// read through what it is given (the order store's `get`), the machine through its graph.
import { ERROR_CODES } from '../../shared/errors';
import { WEBHOOK_EVENTS } from '../../shared/events';
import { lifecycleGraph } from '../../orders/lifecycle-graph';
import { ORDER_TYPES, type OrderType } from '../../orders/model';
import { MAX_EVIDENCE, type CheckDef } from './check';
import { CLIENT_CHECKS } from './checks.client';
import { RECEIVER_CHECKS } from './checks.receiver';
import type { RunFacts } from './facts';
import type { CheckResult, Coverage, ReadinessReport } from './readiness.schemas';

/** Every check, the client's first (the report's order). */
const CHECKS: readonly CheckDef[] = [...CLIENT_CHECKS, ...RECEIVER_CHECKS];

export function evaluate(facts: RunFacts, final: boolean, checks: readonly CheckDef[] = CHECKS, probes = true): CheckResult[] {
  return checks.map((c) => {
    const outcome = c.run(facts, { final, probes });
    const evidence = outcome.evidence.slice(0, MAX_EVIDENCE);
    if (outcome.evidence.length > MAX_EVIDENCE)
      evidence[MAX_EVIDENCE - 1] = { note: `… and ${outcome.evidence.length - MAX_EVIDENCE + 1} more` };
    return {
      id: c.id,
      side: c.side,
      clause: c.clause,
      title: c.title,
      status: outcome.status,
      applies: outcome.applies,
      evidence,
      fix: c.fix,
    };
  });
}

/**
 * CONTRACT §21: `not_ready` on any fail; `incomplete` when a check that applies to what the
 * partner used stayed not_exercised, or when nothing passed at all (a run with no traffic is
 * no evidence of readiness); `ready` otherwise.
 */
export function verdictOf(checks: readonly Pick<CheckResult, 'status' | 'applies'>[]): ReadinessReport['verdict'] {
  if (checks.some((c) => c.status === 'fail')) return 'not_ready';
  if (checks.some((c) => c.status === 'not_exercised' && c.applies) || !checks.some((c) => c.status === 'pass')) return 'incomplete';
  return 'ready';
}

/** What coverage needs of an order: its type and the statuses it entered. */
export interface OrderPath {
  type: OrderType;
  statuses: readonly string[];
}

/** The statuses and events the machine can reach for an order type, read from its graph. */
export function reachable(type: OrderType): { statuses: string[]; events: string[] } {
  const graph = lifecycleGraph(type);
  const events = new Set<string>(graph.edges.flatMap((e) => e.emits));
  return { statuses: graph.states.map((s) => s.id), events: WEBHOOK_EVENTS.filter((e) => events.has(e)) };
}

/** The error codes a /v1 request can get: every code but those only the control API raises. */
const V1_ERROR_CODES = ERROR_CODES.filter((c) => c !== 'E_STATE_NOT_SAVED');

/**
 * Per order type the partner used: the statuses its orders reached and the events its receiver
 * acknowledged, out of what the machine can reach; and the error codes its requests got.
 */
export function coverageOf(facts: RunFacts, orderOf: (reference: string) => OrderPath | undefined): Coverage {
  const references = new Set<string>();
  for (const r of facts.requests) if (r.reference && (r.kind === 'create' || r.kind === 'get_order')) references.add(r.reference);
  for (const d of facts.deliveries) if (d.order && !d.probe) references.add(d.order);
  const reached = new Map<OrderType, Set<string>>();
  const typeOf = new Map<string, OrderType>();
  for (const reference of references) {
    const order = orderOf(reference);
    if (!order) continue;
    typeOf.set(reference, order.type);
    const set = reached.get(order.type) ?? new Set<string>();
    for (const s of order.statuses) set.add(s);
    reached.set(order.type, set);
  }
  const acknowledged = new Map<OrderType, Set<string>>();
  for (const d of facts.deliveries) {
    const type = d.order && !d.probe ? typeOf.get(d.order) : undefined;
    if (!type || !d.attempts.some((a) => a.status !== null && a.status >= 200 && a.status < 300)) continue;
    const set = acknowledged.get(type) ?? new Set<string>();
    set.add(d.event);
    acknowledged.set(type, set);
  }
  const types = ORDER_TYPES.filter((t) => reached.has(t));
  const coverage: Coverage = {
    order_types: [...types],
    statuses: {},
    events: {},
    error_codes: { seen: [], possible: [...V1_ERROR_CODES] },
  };
  for (const type of types) {
    const machine = reachable(type);
    coverage.statuses[type] = { reached: machine.statuses.filter((s) => reached.get(type)!.has(s)), reachable: machine.statuses };
    coverage.events[type] = { acknowledged: machine.events.filter((e) => acknowledged.get(type)?.has(e)), reachable: machine.events };
  }
  const seen = new Set<string>();
  for (const r of facts.requests) if (r.code) seen.add(r.code);
  coverage.error_codes.seen = [...seen].sort();
  return coverage;
}
