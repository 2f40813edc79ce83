import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import {
  assign,
  cancel,
  createActor,
  raise,
  setup,
  SimulatedClock,
  type AnyMachineSnapshot,
  type AnyStateMachine,
  type EventFromLogic,
  type InputFrom,
  type StateValue,
} from 'xstate';
import { seeded } from '../../test/support/property';
import { VirtualClock, type TimerTag } from '../clock';
import { inputKey, jsonKey } from './input-key';
import { createMachineRunner, type Effects } from './machine.runner';
import { createOrderMachine, type OrderEvent, type OrderInput } from './order.machine';
import { ORDER_TYPES } from './model';

// The runner is xstate's pure API executed as an actor would: these tests hold it to xstate's own
// createActor (with its SimulatedClock), on a toy machine and on the order machines.

const T0 = Date.UTC(2026, 0, 15, 12, 0, 0);

type ToyEvent =
  | { type: 'GO' }
  | { type: 'STOP' }
  | { type: 'NUDGE' }
  | { type: 'ECHO'; text: string }
  | { type: 'FLASH' }
  | { type: 'LOG' };

/** A small machine with every kind of step the runner executes. */
const toy = setup({
  types: { context: {} as { n: number }, events: {} as ToyEvent, input: {} as { n: number } },
  actions: {
    ping: (_, _params: { n: number }) => {},
    echo: (_, _params: { text: string }) => {},
    bump: assign(({ context }) => ({ n: context.n + 1 })),
    /** An action with its own implementation, which the owner leaves to it. */
    own: (_, _params: { n: number }) => {},
  },
  delays: { short: 1_000, long: 60_000 },
}).createMachine({
  id: 'toy',
  context: ({ input }) => ({ n: input?.n ?? 0 }),
  initial: 'idle',
  states: {
    idle: { on: { GO: 'running', FLASH: 'flash', LOG: { actions: { type: 'own', params: ({ context }) => ({ n: context.n }) } } } },
    running: {
      entry: [{ type: 'ping', params: ({ context }) => ({ n: context.n }) }, raise({ type: 'NUDGE' }, { delay: 'long', id: 'nudge' })],
      exit: cancel('nudge'),
      after: { short: { target: 'paused', actions: 'bump' } },
      on: { STOP: 'idle', NUDGE: { actions: 'bump' }, ECHO: { actions: { type: 'echo', params: ({ event }) => ({ text: event.text }) } } },
    },
    paused: {
      initial: 'resting',
      states: { resting: { after: { long: '#toy.running' } } },
      on: { GO: 'running', STOP: 'idle' },
    },
    // Passed through at once: its delay is raised and cancelled in the same step.
    flash: { after: { short: 'idle' }, always: 'idle' },
  },
});

interface Instance {
  name: string;
  value: StateValue;
  context: { n: number };
  timers: Array<[string, number]>;
}

/** A runner of the toy machine; `instances`: where its timers find their instance (a restored copy has a store of its own). */
function toyRunner(clock: VirtualClock, effects: Effects<typeof toy, Instance> = {}, instances: ReadonlyMap<string, Instance> = byName) {
  const log: unknown[] = [];
  const runner = createMachineRunner(toy, {
    clock,
    stateOf: (i: Instance) => ({ value: i.value, context: i.context }),
    store: (i, next) => {
      i.value = next.value;
      i.context = next.context;
    },
    timersOf: (i) => i.timers,
    effects: {
      ping: (i, params: { n: number }) => log.push([i.name, 'ping', params]),
      echo: (i, params: { text: string }, raiseNext) => {
        log.push([i.name, 'echo', params]);
        if (params.text === 'stop') raiseNext({ type: 'STOP' });
      },
      ...effects,
    },
    tag: (i, id, event) => ({ kind: 'toy', name: i.name, id, event }),
    fromTag: (tag) => toyFromTag(tag, instances),
    describeTag: toyDescribeTag,
    label: (owner, what) => `${owner}: ${what}`,
  });
  return { runner, log };
}

/** The toy instances by name, as the orders' store holds orders by reference: a timer finds its instance from its tag. */
const byName = new Map<string, Instance>();
const instance = (name = 'T1'): Instance => {
  const i: Instance = { name, value: '', context: { n: 0 }, timers: [] };
  byName.set(name, i);
  return i;
};
const toyFromTag = (tag: TimerTag, instances: ReadonlyMap<string, Instance> = byName) => {
  const i = instances.get(tag.name as string);
  return i && { entity: i, id: tag.id as string, event: tag.event as EventFromLogic<typeof toy> };
};
const toyDescribeTag = (tag: TimerTag) => ({ owner: tag.name as string, id: tag.id as string });

describe('createMachineRunner', () => {
  it('starts an instance in the machine’s initial state, with its input in the context', () => {
    const clock = new VirtualClock({ start: T0 });
    const { runner } = toyRunner(clock);
    const t = instance();
    runner.start(t, { n: 5 });
    expect(t).toMatchObject({ value: 'idle', context: { n: 5 }, timers: [] });
    expect(clock.pending).toBe(0);
  });

  it('turns each delay into a timer on the clock, tagged and labelled, and fires it when the clock gets there', () => {
    const clock = new VirtualClock({ start: T0 });
    const { runner } = toyRunner(clock);
    const t = instance();
    runner.start(t, { n: 0 });
    expect(runner.send(t, { type: 'GO' })).toBe(true);
    expect(clock.pendingTimers()).toEqual([
      {
        due: T0 + 1_000,
        label: 'T1: short elapsed in running',
        tag: { kind: 'toy', name: 'T1', id: 'xstate.after.short.toy.running', event: { type: 'xstate.after.short.toy.running' } },
      },
      { due: T0 + 60_000, label: 'T1: nudge', tag: { kind: 'toy', name: 'T1', id: 'nudge', event: { type: 'NUDGE' } } },
    ]);
    clock.advance(1_000);
    expect(t.value).toEqual({ paused: 'resting' });
    expect(t.context.n).toBe(1);
    // Leaving `running` cancelled the nudge; `paused.resting` has its own delay (a nested state's path).
    expect(clock.pendingTimers().map((p) => p.label)).toEqual(['T1: long elapsed in paused.resting']);
    expect(t.timers.map(([id]) => id)).toEqual(['xstate.after.long.toy.paused.resting']);
  });

  it('clears a state’s timers when the state is left', () => {
    const clock = new VirtualClock({ start: T0 });
    const { runner } = toyRunner(clock);
    const t = instance();
    runner.start(t, { n: 0 });
    runner.send(t, { type: 'GO' });
    runner.send(t, { type: 'STOP' });
    expect(t.value).toBe('idle');
    expect(clock.pending).toBe(0);
    expect(t.timers).toEqual([]);
  });

  it('runs the machine’s own actions as the owner’s effects, in order, with their params', () => {
    const clock = new VirtualClock({ start: T0 });
    const { runner, log } = toyRunner(clock);
    const t = instance();
    runner.start(t, { n: 3 });
    runner.send(t, { type: 'GO' });
    runner.send(t, { type: 'ECHO', text: 'hello' });
    expect(log).toEqual([
      ['T1', 'ping', { n: 3 }],
      ['T1', 'echo', { text: 'hello' }],
    ]);
  });

  it('applies an event an effect raises once the step’s actions have run', () => {
    const clock = new VirtualClock({ start: T0 });
    const { runner, log } = toyRunner(clock);
    const t = instance();
    runner.start(t, { n: 0 });
    runner.send(t, { type: 'GO' });
    runner.send(t, { type: 'ECHO', text: 'stop' });
    expect(t.value).toBe('idle');
    expect(log.at(-1)).toEqual(['T1', 'echo', { text: 'stop' }]);
    expect(clock.pending).toBe(0);
  });

  it('answers false and changes nothing for an event the state does not take', () => {
    const clock = new VirtualClock({ start: T0 });
    const { runner } = toyRunner(clock);
    const t = instance();
    runner.start(t, { n: 0 });
    const before = structuredClone(t);
    expect(runner.can(t, { type: 'STOP' })).toBe(false);
    expect(runner.send(t, { type: 'STOP' })).toBe(false);
    expect(t).toEqual(before);
  });

  it('sets no timer for a delay raised and cancelled in the same step (a state passed through)', () => {
    const clock = new VirtualClock({ start: T0 });
    const { runner } = toyRunner(clock);
    const t = instance();
    runner.start(t, { n: 0 });
    runner.send(t, { type: 'FLASH' });
    expect(t.value).toBe('idle');
    expect(clock.pending).toBe(0);
  });

  it('runs an action the owner leaves out with the machine’s own implementation, as an actor does', () => {
    const seen: number[] = [];
    const own = toy.provide({ actions: { own: (_, params: { n: number }) => seen.push(params.n) } });
    const clock = new VirtualClock({ start: T0 });
    const runner = createMachineRunner(own, {
      clock,
      stateOf: (i: Instance) => ({ value: i.value, context: i.context }),
      store: (i, next) => Object.assign(i, { value: next.value, context: next.context }),
      timersOf: (i) => i.timers,
      effects: {},
      tag: (i, id, event) => ({ kind: 'toy', name: i.name, id, event }),
      fromTag: toyFromTag,
      describeTag: toyDescribeTag,
      label: (owner, what) => `${owner}: ${what}`,
    });
    const t = instance();
    runner.start(t, { n: 7 });
    runner.send(t, { type: 'LOG' });
    expect(seen).toEqual([7]);
  });

  it('revives a delayed event from its tag after a restore, and it fires as it would have', () => {
    const clock = new VirtualClock({ start: T0 });
    const { runner } = toyRunner(clock);
    const t = instance();
    runner.start(t, { n: 0 });
    runner.send(t, { type: 'GO' });
    const saved = { clock: clock.exportState(), timers: clock.pendingTimers(), instance: structuredClone({ ...t, timers: [] }) };

    const restored = new VirtualClock({ start: T0 });
    restored.restore(saved.clock);
    const copy: Instance = saved.instance;
    const { runner: again } = toyRunner(restored, {}, new Map([[copy.name, copy]]));
    for (const { due, tag } of saved.timers) again.revive(copy, tag!.id as string, tag!.event as EventFromLogic<typeof toy>, due);
    expect(restored.pendingTimers()).toEqual(saved.timers);
    clock.advance(61_000);
    restored.advance(61_000);
    expect(copy).toMatchObject({ value: t.value, context: t.context });
    expect(restored.pendingTimers()).toEqual(clock.pendingTimers());
  });

  it('keeps no closure per timer: one fire and one label function for every instance, the instance found from the tag', () => {
    const clock = new VirtualClock({ start: T0 });
    const set = vi.spyOn(clock, 'setTimer');
    const { runner } = toyRunner(clock);
    const [a, b] = [instance('A'), instance('B')];
    for (const t of [a, b]) {
      runner.start(t, { n: 0 });
      runner.send(t, { type: 'GO' });
    }
    const calls = set.mock.calls;
    expect(calls.length).toBeGreaterThanOrEqual(2);
    for (const [, fire, label] of calls) {
      expect(fire).toBe(calls[0]![1]);
      expect(label).toBe(calls[0]![2]);
      expect(typeof label).toBe('function');
    }
    expect(clock.pendingTimers().map((p) => p.label)).toEqual(
      expect.arrayContaining(['A: short elapsed in running', 'B: short elapsed in running']),
    );
    // An instance gone from its owner's store: its label still reads from the tag, and its timer does nothing.
    byName.delete('A');
    expect(clock.pendingTimers().some((p) => p.label.startsWith('A: '))).toBe(true);
    clock.advance(1_000);
    expect(a.value).toBe('running');
    expect(b.value).toEqual({ paused: 'resting' });
  });

  it('stops an instance: every timer of its own is cleared', () => {
    const clock = new VirtualClock({ start: T0 });
    const { runner } = toyRunner(clock);
    const [a, b] = [instance('A'), instance('B')];
    for (const t of [a, b]) {
      runner.start(t, { n: 0 });
      runner.send(t, { type: 'GO' });
    }
    runner.stop(a);
    expect(a.timers).toEqual([]);
    expect(clock.pendingTimers().map((p) => p.label)).toEqual(['B: short elapsed in running', 'B: nudge']);
  });

  it('answers a repeated input’s first step from memory, each instance with its own context', () => {
    const clock = new VirtualClock({ start: T0 });
    const { runner, log } = toyRunner(clock);
    const initial = vi.spyOn(toy, 'getInitialSnapshot');
    try {
      const [a, b, c] = [instance('A'), instance('B'), instance('C')];
      runner.start(a, { n: 4 });
      runner.start(b, { n: 4 });
      runner.start(c, { n: 5 });
      expect(initial).toHaveBeenCalledTimes(2); // { n: 4 } once, { n: 5 } once
      expect([a, b, c].map((t) => [t.value, t.context])).toEqual([
        ['idle', { n: 4 }],
        ['idle', { n: 4 }],
        ['idle', { n: 5 }],
      ]);
      expect(a.context).not.toBe(b.context);
      runner.send(b, { type: 'GO' });
      expect(log).toEqual([['B', 'ping', { n: 4 }]]);
    } finally {
      initial.mockRestore();
    }
  });

  it('keys an input by all of its data, and not one that is more than data', () => {
    expect(inputKey({ n: 1, s: 'x', list: [1, null] })).toBe(inputKey({ n: 1, s: 'x', list: [1, null] }));
    // What JSON would blur stays apart.
    const keys = [{ n: null }, { n: Number.NaN }, { n: Number.POSITIVE_INFINITY }, { n: -0 }, { n: 0 }, { n: undefined }, {}].map(inputKey);
    expect(keys.every((k) => k !== undefined)).toBe(true);
    expect(new Set(keys).size).toBe(keys.length);
    expect(inputKey({ at: new Date(T0) })).toBeUndefined();
    expect(inputKey({ f: () => 1 })).toBeUndefined();
    expect(inputKey(undefined)).toBe(inputKey(undefined));
  });

  it('keys an input as the JSON walk does, whatever it is (seeded)', () => {
    const orderInput = fc.record(
      {
        due: fc.oneof(fc.double(), fc.integer()),
        precision: fc.nat(18),
        hold: fc.boolean(),
        outcome: fc.option(fc.constantFrom('success', 'fail', 'revert', 'partial'), { nil: undefined }),
        percentage: fc.option(fc.double(), { nil: undefined }),
        autoPayin: fc.option(fc.record({ fraction: fc.double(), confirmed: fc.boolean() }), { nil: null }),
      },
      { requiredKeys: ['due', 'precision', 'hold'] },
    );
    fc.assert(
      fc.property(
        fc.oneof(
          orderInput,
          orderInput.map((o) => ({ ...o })),
          fc.anything({ withNullPrototype: true, withObjectString: true, withBoxedValues: true }),
        ),
        (input) => {
          expect(inputKey(input)).toBe(jsonKey(input));
        },
      ),
      { ...seeded({ numRuns: 3_000 }) },
    );
  });

  it('refuses a machine with child actors: it has none to run them', () => {
    const parent = setup({ actors: { child: toy } }).createMachine({
      initial: 'a',
      states: { a: { invoke: { src: 'child', input: { n: 0 } } } },
    });
    const runner = createMachineRunner(parent, {
      clock: new VirtualClock({ start: T0 }),
      stateOf: (i: Instance) => ({ value: i.value, context: i.context }),
      store: () => {},
      timersOf: (i) => i.timers,
      effects: {},
      tag: () => ({ kind: 'x' }),
      fromTag: () => undefined,
      describeTag: () => undefined,
      label: () => 'x',
    });
    expect(() => runner.start(instance(), undefined)).toThrow(/without child actors/);
  });
});

type Held = { value: StateValue; context: unknown; timers: Array<[string, number]> };

/**
 * One runner for `machine` over every run of a property, as the lifecycle keeps one per order
 * type: its remembered first steps (by whole input) are then answered and checked too. Each run
 * gives it a fresh clock and a fresh record of effects (`runs.current`).
 */
function sharedRunner<M extends AnyStateMachine>(
  machine: M,
  effectNames: readonly string[],
  // (each takes its effect's own params: `never` here accepts any of them)
  raiseFrom: Record<string, (params: never) => EventFromLogic<M>> = {},
) {
  const runs = { current: { clock: new VirtualClock({ start: T0 }), seen: [] as unknown[] } };
  // Instances by a number of their own: a timer finds its instance from its tag.
  const heldIds = new WeakMap<Held, number>();
  const heldById = new Map<number, Held>();
  const heldId = (held: Held): number => {
    let n = heldIds.get(held);
    if (n === undefined) {
      heldIds.set(held, (n = heldById.size + 1));
      heldById.set(n, held);
    }
    return n;
  };
  const clock = {
    now: () => runs.current.clock.now(),
    setTimer: (...args: Parameters<VirtualClock['setTimer']>) => runs.current.clock.setTimer(...args),
    clearTimer: (id: number) => runs.current.clock.clearTimer(id),
  };
  const runner = createMachineRunner(machine as AnyStateMachine, {
    clock,
    stateOf: (i: Held) => ({ value: i.value, context: i.context }),
    store: (i, next) => {
      i.value = next.value;
      i.context = next.context;
    },
    timersOf: (i) => i.timers,
    effects: Object.fromEntries(
      effectNames.map((name) => [
        name,
        (_: Held, params: unknown, raiseNext: (e: EventFromLogic<M>) => void) => {
          runs.current.seen.push([name, params]);
          const next = raiseFrom[name];
          if (next) raiseNext(next(params as never));
        },
      ]),
    ),
    tag: (held, id, event) => ({ kind: 'test', held: heldId(held), id, event }),
    fromTag: (tag) => {
      const held = heldById.get(tag.held as number);
      return held && { entity: held, id: tag.id as string, event: tag.event as EventFromLogic<M> };
    },
    describeTag: (tag) => ({ owner: String(tag.held), id: tag.id as string }),
    label: (_, what) => what,
  });
  return { machine, effectNames, raiseFrom, runner, runs };
}

/**
 * One run of a machine both ways from `input`: the shared runner on a fresh VirtualClock, and
 * xstate's own actor on its SimulatedClock, each effect recorded. `ops` are events to send, or
 * `advance` to the next timer due. After each op both must be in the same state, with the same
 * effects seen and the same delayed events pending. `warm`: another instance starts from the
 * same input first, so this one's first step is the runner's remembered one.
 */
function compareWithActor<M extends AnyStateMachine>(
  shared: ReturnType<typeof sharedRunner<M>>,
  input: InputFrom<M>,
  ops: ReadonlyArray<EventFromLogic<M> | 'advance'>,
  warm = false,
) {
  const { machine, effectNames, raiseFrom, runner, runs } = shared;
  // The actor: each effect recorded, and an effect's follow-up event sent to itself (its mailbox
  // takes it once the current event is done: the runner's `raise`).
  const actorSeen: unknown[] = [];
  const provided = machine.provide({
    actions: Object.fromEntries(
      effectNames.map((name) => [
        name,
        ({ self }: { self: { send(e: unknown): void } }, params: unknown) => {
          actorSeen.push([name, params]);
          const next = raiseFrom[name];
          if (next) self.send(next(params as never));
        },
      ]),
    ),
  }) as M;
  const sim = new SimulatedClock();
  sim.set(T0);
  const actor = createActor(provided, { input, clock: sim });
  actor.start();

  if (warm) {
    runs.current = { clock: new VirtualClock({ start: T0 }), seen: [] };
    runner.start({ value: '', context: undefined, timers: [] }, input);
  }
  const clock = new VirtualClock({ start: T0 });
  runs.current = { clock, seen: [] };
  const t: Held = { value: '', context: undefined, timers: [] };
  runner.start(t, input);

  const same = (step: string) => {
    const snap = actor.getSnapshot() as AnyMachineSnapshot;
    expect({ value: t.value, context: t.context }, step).toEqual({ value: snap.value, context: snap.context });
    expect(runs.current.seen, step).toEqual(actorSeen);
    // The same delayed events pending (when each is due shows in the steps that follow).
    const scheduled = Object.values(actor.system.getSnapshot()._scheduledEvents).map((e) => [e.id, e.event]);
    const ours = t.timers.map(([id]) => clock.pendingTimers().find((p) => p.tag?.id === id)!).map((p) => [p.tag!.id, p.tag!.event]);
    expect(sortById(ours), step).toEqual(sortById(scheduled));
    expect(clock.pending, step).toBe(t.timers.length);
  };
  same('start');
  for (const [i, op] of ops.entries()) {
    if (op === 'advance') {
      const due = clock.nextDue;
      if (due === undefined) continue;
      clock.advanceTo(due);
      sim.increment(due - sim.now());
    } else {
      runner.send(t, op);
      actor.send(op);
    }
    same(`op ${i}: ${typeof op === 'string' ? op : op.type}`);
  }
  actor.stop();
}

const sortById = (rows: unknown[][]) => [...rows].sort((a, b) => String(a[0]).localeCompare(String(b[0])));

describe('createMachineRunner against xstate’s createActor', () => {
  const toyOps = fc.array(
    fc.oneof(
      fc.constant('advance' as const),
      fc.constantFrom<ToyEvent>(
        { type: 'GO' },
        { type: 'STOP' },
        { type: 'NUDGE' },
        { type: 'FLASH' },
        { type: 'ECHO', text: 'hi' },
        { type: 'ECHO', text: 'stop' },
      ),
    ),
    { maxLength: 20 },
  );

  it('runs the toy machine as its actor does, step by step', () => {
    const shared = sharedRunner(toy, ['ping', 'echo'], {
      echo: (p: { text: string }): ToyEvent => (p.text === 'stop' ? { type: 'STOP' } : { type: 'LOG' }),
    });
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 9 }), toyOps, fc.boolean(), (n, ops, warm) => {
        compareWithActor(shared, { n }, ops, warm);
      }),
      seeded({ numRuns: 200 }),
    );
  });

  const orderEvents: fc.Arbitrary<OrderEvent | 'advance'> = fc.oneof(
    { weight: 4, arbitrary: fc.constant('advance' as const) },
    fc.record({ type: fc.constant('PAYIN' as const), amount: fc.constantFrom(10, 50, 100, 150), confirmed: fc.boolean() }),
    fc.constantFrom<OrderEvent>({ type: 'CONFIRM' }, { type: 'CANCEL' }, { type: 'EXPIRE' }, { type: 'REFUND_DONE' }),
    fc.record({
      type: fc.constant('SET_PAYOUT' as const),
      outcome: fc.constantFrom('success' as const, 'fail' as const, 'revert' as const),
    }),
    fc.record({ type: fc.constant('SET_PAYOUT' as const), outcome: fc.constant('partial' as const), percentage: fc.constantFrom(25, 60) }),
  );
  const orderInputs: fc.Arbitrary<OrderInput> = fc.record({
    due: fc.constantFrom(37.5, 100, 2500),
    precision: fc.constantFrom(2, 6),
    hold: fc.boolean(),
    outcome: fc.constantFrom('success' as const, 'fail' as const, 'revert' as const, 'partial' as const),
    percentage: fc.constantFrom(40, 100),
    autoPayin: fc.option(fc.record({ fraction: fc.constantFrom(0.5, 1, 1.1), confirmed: fc.boolean() }), { nil: null }),
  });
  // One runner per type for the whole property, as the lifecycle has: repeated inputs are
  // answered from its remembered first steps, and checked like the others.
  const runners = Object.fromEntries(
    ORDER_TYPES.map((type) => [
      type,
      sharedRunner(createOrderMachine(type), ['notify', 'payout', 'refund', 'arrivePayin'], {
        // A magic amount's own pay-in is applied after it is recorded (order.effects: arrivePayin).
        arrivePayin: (p: { amount: number; confirmed: boolean }): OrderEvent => ({
          type: 'PAYIN',
          amount: p.amount,
          confirmed: p.confirmed,
        }),
      }),
    ]),
  );

  it('runs each order machine as its actor does: statuses, context, effects and timers', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...ORDER_TYPES),
        orderInputs,
        fc.array(orderEvents, { maxLength: 16 }),
        fc.boolean(),
        (type, input, ops, warm) => {
          compareWithActor(runners[type]!, input, ops, warm);
        },
      ),
      seeded({ numRuns: 300 }),
    );
  });
});
