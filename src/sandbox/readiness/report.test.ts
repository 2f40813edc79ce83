import { describe, expect, it } from 'vitest';
import { lifecycleGraph } from '../../orders/lifecycle-graph';
import { MAX_EVIDENCE, type CheckDef } from './check';
import { coverageOf, evaluate, reachable, verdictOf } from './report';
import { seededOrder } from './runs';

// CONTRACT §21: the verdict, the evidence cap and coverage derived from the machine.
describe('readiness report', () => {
  it('verdict: not_ready on any fail, incomplete when an applicable check was not exercised or nothing passed, else ready', () => {
    expect(
      verdictOf([
        { status: 'pass', applies: true },
        { status: 'fail', applies: true },
      ]),
    ).toBe('not_ready');
    expect(
      verdictOf([
        { status: 'pass', applies: true },
        { status: 'not_exercised', applies: true },
      ]),
    ).toBe('incomplete');
    expect(
      verdictOf([
        { status: 'pass', applies: true },
        { status: 'not_exercised', applies: false },
      ]),
    ).toBe('ready');
    expect(verdictOf([{ status: 'not_exercised', applies: false }])).toBe('incomplete');
  });

  it('keeps at most MAX_EVIDENCE items per check, the last saying how many more', () => {
    const noisy: CheckDef = {
      id: 'noisy',
      side: 'client',
      clause: 'x',
      title: 't',
      fix: 'f',
      run: () => ({ status: 'fail', applies: true, evidence: Array.from({ length: 50 }, (_, i) => ({ note: `n${i}` })) }),
    };
    const [result] = evaluate({ environment: 'test', requests: [], deliveries: [] }, false, [noisy]);
    expect(result!.evidence).toHaveLength(MAX_EVIDENCE);
    expect(result!.evidence.at(-1)).toEqual({ note: `… and ${50 - MAX_EVIDENCE + 1} more` });
  });

  it("reads what is reachable from the machine's graph, not a list of its own", () => {
    for (const type of ['onramp', 'offramp', 'swap'] as const) {
      const graph = lifecycleGraph(type);
      expect(reachable(type).statuses).toEqual(graph.states.map((s) => s.id));
      expect(new Set(reachable(type).events)).toEqual(new Set(graph.edges.flatMap((e) => e.emits).filter((e) => e.startsWith('order.'))));
    }
  });

  it('coverage: per type used, statuses reached and events acknowledged, and the error codes seen', () => {
    const f = {
      environment: 'test' as const,
      requests: [
        {
          id: 'r1',
          start: 0,
          end: 1,
          method: 'POST',
          path: '/v1/orders',
          kind: 'create' as const,
          status: 200,
          auth: 'secret' as const,
          fingerprint: 'a',
          hasBody: true,
          reference: 'ORD1',
        },
        {
          id: 'r2',
          start: 2,
          end: 3,
          method: 'POST',
          path: '/v1/orders',
          kind: 'create' as const,
          status: 422,
          code: 'E_VALIDATION_ERROR',
          auth: 'secret' as const,
          fingerprint: 'b',
          hasBody: true,
        },
      ],
      deliveries: [
        { id: 'd1', order: 'ORD1', event: 'order.created', attempts: [{ status: 200, ms: 1, error: null }], aimed: true, gaveUp: false },
        {
          id: 'd2',
          order: 'ORD1',
          event: 'order.expired',
          attempts: [{ status: 500, ms: 1, error: 'HTTP 500' }],
          aimed: true,
          gaveUp: false,
        },
        {
          id: 'd3',
          order: 'ORD1',
          event: 'order.settled',
          probe: 'duplicate' as const,
          attempts: [{ status: 200, ms: 1, error: null }],
          aimed: true,
          gaveUp: false,
        },
      ],
    };
    const coverage = coverageOf(f, (reference) =>
      reference === 'ORD1' ? { type: 'onramp', statuses: ['initiated', 'awaiting_user_payment', 'expired'] } : undefined,
    );
    expect(coverage.order_types).toEqual(['onramp']);
    expect(coverage.statuses.onramp).toEqual({
      reached: ['initiated', 'awaiting_user_payment', 'expired'],
      reachable: reachable('onramp').statuses,
    });
    expect(coverage.events.onramp!.acknowledged).toEqual(['order.created']);
    expect(coverage.error_codes.seen).toEqual(['E_VALIDATION_ERROR']);
    expect(coverage.error_codes.possible).toContain('E_RATE_LIMITED');
    expect(coverage.error_codes.possible).not.toContain('E_STATE_NOT_SAVED');
  });

  it('orders the probes by the seed: the same seed the same order, another seed another', () => {
    const kinds = ['a', 'b', 'c', 'd', 'e'];
    expect(seededOrder([...kinds], 42)).toEqual(seededOrder([...kinds], 42));
    const orders = new Set([1, 2, 3, 4, 5, 6].map((seed) => seededOrder([...kinds], seed).join()));
    expect(orders.size).toBeGreaterThan(1);
  });
});
