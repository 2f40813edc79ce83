import { describe, expect, it } from 'vitest';
import { availableActions, lifecycleGraph } from './lifecycle-graph';
import { createOrderMachine, type OrderContext } from './order.machine';

const context = (over: Partial<OrderContext> = {}): OrderContext => ({
  due: 100,
  precision: 2,
  hold: false,
  paid: 0,
  unconfirmed: 0,
  ratio: 0,
  refundDue: 0,
  refunded: 0,
  outcome: 'success',
  percentage: 100,
  autoPayin: null,
  payinClosesAfter: null,
  ...over,
});

describe('lifecycleGraph', () => {
  it('reads each type’s reachable statuses and edges from the machine', () => {
    for (const type of ['onramp', 'offramp', 'swap'] as const) {
      const graph = lifecycleGraph(type);
      const ids = graph.states.map((s) => s.id);
      expect(ids[0]).toBe('initiated');
      expect(
        graph.states
          .filter((s) => s.final)
          .map((s) => s.id)
          .sort(),
      ).toEqual(['completed', 'partially_completed', 'refunded']);
      for (const e of graph.edges) {
        expect(ids).toContain(e.from);
        expect(ids).toContain(e.to);
      }
      expect(ids.includes('awaiting_lp_payment')).toBe(type !== 'swap');
    }
  });

  it('labels edges with what moves them, the guard and the webhook events', () => {
    const edge = lifecycleGraph('onramp').edges.find((e) => e.from === 'awaiting_user_payment' && e.to === 'cancelled');
    expect(edge).toEqual({
      from: 'awaiting_user_payment',
      to: 'cancelled',
      on: 'cancel',
      when: 'nothing paid or seen',
      emits: ['order.cancelled'],
    });
  });
});

describe('availableActions', () => {
  const machine = createOrderMachine('offramp');

  it('offers what the machine accepts in each status, and nothing in a final one', () => {
    expect(availableActions(machine, 'awaiting_user_payment', context())).toEqual({
      payin: true,
      payin_unconfirmed: true,
      fulfil: false,
      cancel: true,
      expire: true,
      payout: true,
    });
    expect(availableActions(machine, 'awaiting_user_payment', context({ paid: 10 })).cancel).toBe(false);
    expect(availableActions(machine, 'pending', context({ unconfirmed: 100 }))).toMatchObject({
      fulfil: true,
      cancel: false,
      expire: false,
    });
    expect(availableActions(machine, 'executing', context({ paid: 100 }))).toMatchObject({ payin: false, payout: true });
    expect(availableActions(machine, 'expired', context())).toMatchObject({ payin: true, payout: false, cancel: false });
    expect(Object.values(availableActions(machine, 'completed', context({ paid: 100, ratio: 1 })))).not.toContain(true);
  });
});
