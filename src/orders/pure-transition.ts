import { createActor, type AnyActorScope, type AnyStateMachine, type EventFromLogic, type InputFrom, type SnapshotFrom } from 'xstate';

export interface ExecutableAction {
  type: string;
  params?: unknown;
}

/**
 * xstate's pure `transition()` / `initialTransition()`, with one inert actor scope per machine
 * reused across calls. `transition()` builds a throwaway actor (and its initial snapshot) on
 * every call; reusing the scope computes the same next snapshot and action list at a fraction
 * of the cost (bench: ~36 µs → a few µs per transition). Nothing is executed: actions are
 * collected and returned, exactly as `transition()` does.
 */
export function createPureTransitions<M extends AnyStateMachine>(machine: M) {
  const self = createActor(machine);
  let collected: ExecutableAction[] = [];
  const scope = {
    self,
    defer: () => {},
    id: '',
    logger: () => {},
    sessionId: '',
    stopChild: () => {},
    system: self.system,
    emit: () => {},
    actionExecutor: (action: ExecutableAction) => {
      collected.push(action);
    },
  } as unknown as AnyActorScope;

  const take = () => {
    const out = collected;
    collected = [];
    return out;
  };

  return {
    initial(input: InputFrom<M>): [SnapshotFrom<M>, ExecutableAction[]] {
      collected = [];
      const snapshot = machine.getInitialSnapshot(scope, input) as SnapshotFrom<M>;
      return [snapshot, take()];
    },
    transition(snapshot: SnapshotFrom<M>, event: EventFromLogic<M>): [SnapshotFrom<M>, ExecutableAction[]] {
      collected = [];
      const next = machine.transition(snapshot as never, event, scope) as SnapshotFrom<M>;
      return [next, take()];
    },
  };
}
