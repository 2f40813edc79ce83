import { inputKey } from './input-key';
import {
  createActor,
  type AnyActorScope,
  type AnyMachineSnapshot,
  type AnyStateMachine,
  type ContextFrom,
  type EventFromLogic,
  type ExecutableActionObject,
  type InputFrom,
  type SnapshotFrom,
  type StateMachine,
  type StateValue,
} from 'xstate';
import type { TimerTag, VirtualClock } from '../clock';

/**
 * Runs any `setup()` machine over many instances kept as plain data (a state value and a
 * context each, never a live actor), on the virtual clock. It is xstate's pure API applied:
 * `initialTransition` / `transition` give the next snapshot and the actions to execute, and the
 * runner executes them as an actor would — a delayed `xstate.raise` becomes a clock timer (tagged
 * so a state snapshot can revive it), `xstate.cancel` clears it, and the machine's own actions
 * run as the `effects` its owner gives. One difference on purpose: a raise delayed by 0 ms is
 * applied right after its step, where an actor would wait for its clock's next tick.
 *
 * Two liberties, for speed, both held equal to xstate's own `createActor` by
 * `machine.runner.test.ts`: xstate's `transition()` builds a throwaway actor (running the
 * machine's initial microsteps) on every call just to have an actor scope that collects the
 * actions, and the runner builds that same inert scope once per machine
 * (docs/decisions/005-one-actor-scope-per-machine.md); and an initial step is a function of the
 * input alone, so the runner remembers the last few by their whole input and answers a repeated
 * one without running it again (docs/decisions/006-first-steps-by-whole-input.md).
 */
export function createMachineRunner<M extends AnyStateMachine, E>(machine: M, options: MachineRunnerOptions<M, E>): MachineRunner<M, E> {
  type Ev = EventFromLogic<M>;
  type Snapshot = AnyMachineSnapshot;
  const { clock, effects } = options;
  let collected: ExecutableActionObject[] = [];
  const scope = inertScope(machine, (action) => {
    collected.push(action);
  });
  const descriptions = delayedEventDescriptions(machine);
  /** First steps by their input's key (`inputKey`): the state and the actions to execute. */
  const firstSteps = new Map<string, { value: StateValue; context: ContextFrom<M>; actions: ExecutableActionObject[] }>();

  const take = () => {
    const out = collected;
    collected = [];
    return out;
  };

  function snapshotOf(entity: E): Snapshot {
    return machine.resolveState(options.stateOf(entity));
  }

  function can(entity: E, event: Ev): boolean {
    return snapshotOf(entity).can(event);
  }

  function start(entity: E, input: InputFrom<M>): void {
    const queue: Ev[] = [];
    const key = inputKey(input);
    const known = key === undefined ? undefined : firstSteps.get(key);
    if (known) {
      // Its own copy of the context: instances never share one.
      apply(entity, { value: known.value, context: copy(known.context) }, known.actions, queue);
    } else {
      collected = [];
      const first: Snapshot = machine.getInitialSnapshot(scope, input);
      const actions = take();
      if (key !== undefined && actions.every(isReplayable)) {
        if (firstSteps.size >= FIRST_STEPS_KEPT) firstSteps.clear();
        // Only what replaying needs: not the step's own snapshot and event (`info`).
        const kept = actions.map(({ type, params }) => ({ type, params, info: undefined as never, exec: undefined }));
        firstSteps.set(key, { value: first.value, context: copy(first.context as ContextFrom<M>), actions: kept });
      }
      apply(entity, first, actions, queue);
    }
    drain(entity, queue);
    options.stepEnded?.(entity);
  }

  /**
   * An action whose execution needs nothing of the step that computed it but its params: the
   * runner's own (raise, cancel) and the owner's effects. An action left to its own
   * implementation reads its `info` (that step's context and event): not replayed.
   */
  function isReplayable(action: ExecutableActionObject): boolean {
    return (
      action.type === 'xstate.raise' || action.type === 'xstate.cancel' || (effects as Record<string, unknown>)[action.type] !== undefined
    );
  }

  function send(entity: E, event: Ev): boolean {
    const snapshot = snapshotOf(entity);
    if (!snapshot.can(event)) return false;
    const queue: Ev[] = [];
    step(entity, snapshot, event, queue);
    drain(entity, queue);
    options.stepEnded?.(entity);
    return true;
  }

  /** The zero-delay events a step raised, each applied if the state it reached takes it. */
  function drain(entity: E, queue: Ev[]): void {
    for (let event = queue.shift(); event !== undefined; event = queue.shift()) {
      const snapshot = snapshotOf(entity);
      if (snapshot.can(event)) step(entity, snapshot, event, queue);
    }
  }

  function step(entity: E, snapshot: Snapshot, event: Ev, queue: Ev[]): void {
    collected = [];
    const next: Snapshot = machine.transition(snapshot, event, scope);
    apply(entity, next, take(), queue);
  }

  /** Stores what the machine computed, then executes its actions in order. */
  function apply(entity: E, next: MachineState<ContextFrom<M>>, actions: readonly ExecutableActionObject[], queue: Ev[]): void {
    options.store(entity, next);
    for (let i = 0; i < actions.length; i++) {
      const action = actions[i]!;
      switch (action.type) {
        case 'xstate.raise': {
          const { event, delay, id } = action.params as { event: Ev; delay: number | undefined; id: string | undefined };
          // Without a delay xstate already applied it inside this transition.
          if (delay === undefined) break;
          const key = id ?? event.type;
          // Raised and cancelled in the same step (a state passed through at once): no timer.
          if (cancelledLater(actions, i, key)) break;
          cancel(entity, key);
          if (delay <= 0) queue.push(event);
          else setTimer(entity, key, event, clock.now() + delay);
          break;
        }
        case 'xstate.cancel':
          cancel(entity, (action.params as { sendId: string }).sendId);
          break;
        case 'xstate.spawnChild':
        case 'xstate.sendTo':
        case 'xstate.stopChild':
          throw new Error(`${action.type}: the machine runner runs machines without child actors`);
        default: {
          const effect = (effects as Record<string, Effect<E, unknown, Ev> | undefined>)[action.type];
          // (An inline arrow: a named closure costs a defineProperty per step under tsx's keepNames.)
          if (effect) effect(entity, action.params, (event) => queue.push(event));
          // An action the owner does not run is the machine's own implementation, as in an actor.
          else action.exec?.(action.info, action.params);
        }
      }
    }
  }

  /**
   * A delayed event of the machine on the clock, found again by its id (and by its tag after a
   * restore). The timer keeps no closure of its own: one function for every timer of the runner
   * finds the instance, the raise id and the event from the timer's tag, and its label is read
   * from the tag when a list shows it (decision 015).
   */
  function setTimer(entity: E, id: string, event: Ev, at: number): void {
    const handle = clock.setTimer(at, fireTimer, labelTimer, options.tag(entity, id, event));
    options.timersOf(entity).push([id, handle]);
  }

  function fireTimer(tag: TimerTag | undefined, handle: number): void {
    const found = tag && options.fromTag(tag);
    if (!found) return;
    const timers = options.timersOf(found.entity);
    const slot = timers.findIndex(([, h]) => h === handle);
    if (slot >= 0) timers.splice(slot, 1);
    send(found.entity, found.event);
  }

  function labelTimer(tag: TimerTag | undefined): string {
    const found = tag && options.describeTag(tag);
    return found ? options.label(found.owner, descriptions.get(found.id) ?? found.id) : 'timer';
  }

  function cancel(entity: E, id: string): void {
    const timers = options.timersOf(entity);
    const slot = timers.findIndex(([key]) => key === id);
    if (slot < 0) return;
    clock.clearTimer(timers[slot]![1]);
    timers.splice(slot, 1);
  }

  return {
    machine,
    snapshotOf: snapshotOf as (entity: E) => SnapshotFrom<M>,
    can,
    start,
    send,
    revive: setTimer,
    stop(entity) {
      const timers = options.timersOf(entity);
      for (const [, handle] of timers) clock.clearTimer(handle);
      timers.length = 0;
    },
  };
}

export interface MachineRunner<M extends AnyStateMachine, E> {
  machine: M;
  /** The instance's state as an xstate snapshot (to ask `can`, `hasTag`, …). */
  snapshotOf(entity: E): SnapshotFrom<M>;
  /** Whether the machine takes `event` in the instance's state now. */
  can(entity: E, event: EventFromLogic<M>): boolean;
  /** The machine's initial transition for a new instance, then the zero-delay events it raised. */
  start(entity: E, input: InputFrom<M>): void;
  /** Applies `event` and the zero-delay events it raises; false (nothing done) when the state ignores it. */
  send(entity: E, event: EventFromLogic<M>): boolean;
  /** Sets a delayed event again from what its tag said (a restored state snapshot). */
  revive(entity: E, id: string, event: EventFromLogic<M>, due: number): void;
  /** Clears every pending delayed event of the instance. */
  stop(entity: E): void;
}

/** The clock a runner sets delayed events on. */
export type RunnerClock = Pick<VirtualClock, 'now' | 'setTimer' | 'clearTimer'>;

/** What an instance keeps of its machine: the state value and the context. */
export interface MachineState<C> {
  value: StateValue;
  context: C;
}

/** One of the machine's own actions, run by the owner on the instance; `raise` queues an event after this step's actions. */
export type Effect<E, P, Ev> = (entity: E, params: P, raise: (event: Ev) => void) => void;

/** The machine's own actions as its `setup` declares them: `{ type, params }` each. */
type ActionsOf<M> =
  M extends StateMachine<
    infer _C,
    infer _E,
    infer _Ch,
    infer _Ac,
    infer TAction,
    infer _G,
    infer _D,
    infer _SV,
    infer _T,
    infer _I,
    infer _O,
    infer _Em,
    infer _Me,
    infer _SS,
    infer _TM
  >
    ? TAction
    : never;

/** The owner's implementation of the machine's named actions, by name (those it leaves out run their own). */
export type Effects<M extends AnyStateMachine, E> = {
  [A in ActionsOf<M> as A['type']]?: Effect<E, A['params'], EventFromLogic<M>>;
};

export interface MachineRunnerOptions<M extends AnyStateMachine, E> {
  clock: RunnerClock;
  /** The instance's stored state. */
  stateOf(entity: E): MachineState<ContextFrom<M>>;
  /** Keeps the state the machine computed; called before that step's actions run. */
  store(entity: E, next: MachineState<ContextFrom<M>>): void;
  /** The instance's pending delayed events, [raise id, clock timer id]: the runner keeps this array. */
  timersOf(entity: E): Array<[string, number]>;
  effects: Effects<M, E>;
  /** What a delayed event's timer says it is for, as JSON (CONTRACT §13: a snapshot revives it from this). */
  tag(entity: E, id: string, event: EventFromLogic<M>): TimerTag;
  /** The instance, raise id and event a timer's tag names (as `tag` wrote it), or undefined when the instance is gone. */
  fromTag(tag: TimerTag): { entity: E; id: string; event: EventFromLogic<M> } | undefined;
  /** Whose timer a tag is (e.g. the order's reference) and its raise id, read from the tag alone: a label outlives its instance. */
  describeTag(tag: TimerTag): { owner: string; id: string } | undefined;
  /** The timer's line in a list; `owner` as `describeTag` gives it, `what` e.g. `payinWindow elapsed in awaiting_user_payment`. */
  label(owner: string, what: string): string;
  /** After each start or send (the event and the zero-delay events it raised), timers set or cleared. */
  stepEnded?(entity: E): void;
}

/**
 * The actor scope xstate's own `transition()` builds for each call (`createInertActorScope` in
 * xstate's source): its own actor as `self` and `system`, nothing deferred, stopped or emitted,
 * and every action handed to `actionExecutor` instead of executed. Built once per machine.
 */
function inertScope(machine: AnyStateMachine, actionExecutor: (action: ExecutableActionObject) => void): AnyActorScope {
  const self = createActor(machine);
  return {
    self,
    id: '',
    sessionId: '',
    system: self.system,
    logger: () => {},
    defer: () => {},
    emit: () => {},
    stopChild: () => {},
    actionExecutor,
  };
}

/** `xstate.after…` event ids → `<delay> elapsed in <state>`, read from the machine's own `after` definitions. */
function delayedEventDescriptions(machine: AnyStateMachine): Map<string, string> {
  const out = new Map<string, string>();
  const visit = (node: AnyStateMachine['root']) => {
    for (const t of node.after) {
      const delay = typeof t.delay === 'function' ? 'a delay' : String(t.delay);
      out.set(t.eventType, `${delay} elapsed in ${node.path.join('.')}`);
    }
    for (const child of Object.values(node.states)) visit(child as AnyStateMachine['root']);
  };
  visit(machine.root);
  return out;
}

const copy = <C>(context: C): C => ({ ...(context as object) }) as C;

/** How many first steps a runner remembers (by distinct input) before it starts over. */
const FIRST_STEPS_KEPT = 256;

function cancelledLater(actions: readonly ExecutableActionObject[], from: number, id: string): boolean {
  for (let j = from + 1; j < actions.length; j++) {
    const a = actions[j]!;
    if (a.type === 'xstate.cancel' && (a.params as { sendId?: unknown }).sendId === id) return true;
  }
  return false;
}
