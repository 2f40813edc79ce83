import { describe, expect, it } from 'vitest';
import { initialTransition, transition } from 'xstate';
import { createOrderMachine, DEFAULT_TIMINGS, type OrderEvent } from './order.machine';

const machine = createOrderMachine('offramp');
const start = (due = 100, hold = false) => initialTransition(machine, { due, precision: 6, hold });

/** Applies events purely; returns the last snapshot and every action type seen. */
function run(events: OrderEvent[], due = 100) {
  let [snap, actions] = start(due);
  const seen = actions.map((a) => a.type);
  for (const e of events) {
    [snap, actions] = transition(machine, snap, e);
    seen.push(...actions.map((a) => a.type));
  }
  return { snap, seen };
}

describe('order machine (pure)', () => {
  it('passes initiated at once into awaiting_user_payment, with order.created and a pay-in window timer', () => {
    const [snap, actions] = start();
    expect(snap.value).toBe('awaiting_user_payment');
    expect(actions.find((a) => a.type === 'notify')?.params).toEqual({ event: 'order.created' });
    const window = actions.filter((a) => a.type === 'xstate.raise').at(-1);
    expect((window?.params as { delay: number } | undefined)?.delay).toBe(DEFAULT_TIMINGS.payinWindow);
  });

  it('holds an order in initiated for the provisioning delay', () => {
    const [snap, actions] = start(100, true);
    expect(snap.value).toBe('initiated');
    expect(actions.some((a) => a.type === 'notify')).toBe(false);
    expect((actions.find((a) => a.type === 'xstate.raise')?.params as { delay: number } | undefined)?.delay).toBe(
      DEFAULT_TIMINGS.provisioning,
    );
    const [next] = transition(machine, snap, { type: 'xstate.after.provisioning.order-offramp.initiated' } as never);
    expect(next.value).toBe('awaiting_user_payment');
  });

  it('accumulates partial confirmed pay-ins and moves on once the due amount is covered', () => {
    const { snap } = run([
      { type: 'PAYIN', amount: 40, confirmed: true },
      { type: 'PAYIN', amount: 60, confirmed: true },
    ]);
    expect(snap.value).toBe('processing');
    expect(snap.context).toMatchObject({ paid: 100, ratio: 1, refundDue: 0 });
  });

  it('computes the excess to refund on overpayment', () => {
    const { snap, seen } = run([{ type: 'PAYIN', amount: 130, confirmed: true }]);
    expect(snap.context).toMatchObject({ ratio: 1, refundDue: 30 });
    expect(seen).toContain('refund');
  });

  it('cannot be cancelled once anything is paid', () => {
    const { snap } = run([{ type: 'PAYIN', amount: 1, confirmed: true }]);
    expect(snap.can({ type: 'CANCEL' })).toBe(false);
    const fresh = run([]).snap;
    expect(fresh.can({ type: 'CANCEL' })).toBe(true);
  });

  it('moves an unconfirmed pay-in to pending and confirms it on CONFIRM', () => {
    const { snap } = run([{ type: 'PAYIN', amount: 100, confirmed: false }]);
    expect(snap.value).toBe('pending');
    expect(snap.context).toMatchObject({ paid: 0, unconfirmed: 100 });
    const [next] = transition(machine, snap, { type: 'CONFIRM' });
    expect(next.value).toBe('processing');
    expect(next.context).toMatchObject({ paid: 100, unconfirmed: 0 });
  });

  it('applies a partial payout: settles the percentage of the share and refunds the rest', () => {
    const { snap } = run([
      { type: 'SET_PAYOUT', outcome: 'partial', percentage: 25 },
      { type: 'PAYIN', amount: 100, confirmed: true },
    ]);
    let s = snap;
    for (const state of ['processing', 'routing', 'awaiting_lp_payment', 'executing'] as const) {
      const delay = { processing: 'processing', routing: 'routing', awaiting_lp_payment: 'lpAssignment', executing: 'payout' }[state];
      [s] = transition(machine, s, { type: `xstate.after.${delay}.order-offramp.${state}` } as never);
    }
    expect(s.value).toBe('settled');
    expect(s.context.ratio).toBeCloseTo(0.25, 10);
    expect(s.context.refundDue).toBe(75);
  });

  it('ignores events a status does not take', () => {
    const { snap } = run([{ type: 'CANCEL' }]);
    expect(snap.value).toBe('cancelled');
    expect(snap.can({ type: 'CANCEL' })).toBe(false);
    expect(snap.can({ type: 'EXPIRE' })).toBe(false);
    expect(snap.can({ type: 'PAYIN', amount: 5, confirmed: true })).toBe(true);
  });
});
