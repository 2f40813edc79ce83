import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { initialTransition, transition } from 'xstate';
import { seeded } from '../../test/support/property';
import { createOrderMachine, orderInitialKey, type OrderEvent, type OrderInput } from './order.machine';
import { createPureTransitions } from './pure-transition';

// The shortcut must compute exactly what xstate's own pure transition() computes: the next
// status, context and action list, for any order type, input and sequence of events.
const events: fc.Arbitrary<OrderEvent> = fc.oneof(
  fc.record({ type: fc.constant('PAYIN' as const), amount: fc.constantFrom(10, 50, 100, 150), confirmed: fc.boolean() }),
  fc.constantFrom<OrderEvent>({ type: 'CONFIRM' }, { type: 'CANCEL' }, { type: 'EXPIRE' }, { type: 'REFUND_DONE' }, { type: 'AUTO_PAYIN' }),
  fc.record({ type: fc.constant('SET_PAYOUT' as const), outcome: fc.constantFrom('success' as const, 'fail' as const, 'revert' as const) }),
  fc.record({ type: fc.constant('SET_PAYOUT' as const), outcome: fc.constant('partial' as const), percentage: fc.constantFrom(25, 60) }),
);
const inputs: fc.Arbitrary<OrderInput> = fc.record({
  due: fc.constantFrom(37.5, 100, 2500),
  precision: fc.constantFrom(2, 6),
  hold: fc.boolean(),
  outcome: fc.constantFrom('success' as const, 'fail' as const, 'revert' as const, 'partial' as const),
  percentage: fc.constantFrom(40, 100),
  autoPayin: fc.option(fc.record({ fraction: fc.constantFrom(0.5, 1, 1.1), confirmed: fc.boolean() }), { nil: null }),
});
/** What is compared: each action's type and params (events, ids, delays), not the actor it ran in. */
const plain = (actions: ReadonlyArray<{ type: string; params?: unknown }>) => actions.map((a) => ({ type: a.type, params: JSON.parse(JSON.stringify(a.params ?? null)) }));

// One machine and one shortcut per type for the whole run, so the initial cache (by
// orderInitialKey) answers most inputs: its answers are what is checked.
const machines = { onramp: createOrderMachine('onramp'), offramp: createOrderMachine('offramp'), swap: createOrderMachine('swap') };
const pures = {
  onramp: createPureTransitions(machines.onramp, orderInitialKey),
  offramp: createPureTransitions(machines.offramp, orderInitialKey),
  swap: createPureTransitions(machines.swap, orderInitialKey),
};

describe('createPureTransitions', () => {
  it('computes what xstate’s transition() computes, step by step', () => {
    fc.assert(
      fc.property(fc.constantFrom('onramp' as const, 'offramp' as const, 'swap' as const), inputs, fc.array(events, { maxLength: 12 }), (type, input, sequence) => {
        const machine = machines[type];
        const pure = pures[type];
        const [first, firstActions] = pure.initial(input);
        let [theirs, theirActions] = initialTransition(machine, input);
        expect(first.value).toEqual(theirs.value);
        expect(first.context).toEqual(theirs.context);
        expect(plain(firstActions)).toEqual(plain(theirActions));
        // as the lifecycle does: the next step starts from the snapshot resolved from both
        let ours = machine.resolveState(first);
        let ourActions = firstActions;
        for (const event of sequence) {
          [ours, ourActions] = pure.transition(ours, event);
          [theirs, theirActions] = transition(machine, theirs, event);
          expect(ours.value).toEqual(theirs.value);
          expect(ours.context).toEqual(theirs.context);
          expect(plain(ourActions)).toEqual(plain(theirActions));
        }
      }),
      seeded({ numRuns: 300 }),
    );
  });
});
