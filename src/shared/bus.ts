/**
 * A small typed event bus: a module publishes what happened (`emit`), others subscribe (`on`).
 * Data flows one way: a listener returns nothing the publisher sees (its type is `=> void`);
 * a subscriber with something to report calls the publisher's command for it.
 *
 * @example
 * const bus = createBus<{ 'order.changed': string | null }>();
 * const off = bus.on('order.changed', (reference) => seen.add(reference));
 * bus.emit('order.changed', 'ORD1');
 * off();
 */
export interface Bus<Events extends object> {
  /** Calls `listener` with each `type` event from now on, in the order listeners subscribed; returns the unsubscribe. */
  on<K extends keyof Events>(type: K, listener: (payload: Events[K]) => void): () => void;
  /** Tells every listener of `type`, at once; a listener that throws stops the emit and the publisher's step. */
  emit<K extends keyof Events>(type: K, payload: Events[K]): void;
  /** Whether anyone listens to `type` now: a publisher can skip building a payload no one reads. */
  has(type: keyof Events): boolean;
}

export function createBus<Events extends object>(): Bus<Events> {
  const listeners = new Map<keyof Events, Set<(payload: never) => void>>();
  return {
    on(type, listener) {
      let set = listeners.get(type);
      if (!set) listeners.set(type, (set = new Set()));
      // Each subscription is its own entry, so the same function subscribed twice is told twice.
      const entry = (payload: never) => listener(payload);
      set.add(entry);
      return () => {
        set.delete(entry);
      };
    },
    emit(type, payload) {
      const set = listeners.get(type);
      if (set === undefined || set.size === 0) return;
      for (const listener of set) listener(payload as never);
    },
    has(type) {
      const set = listeners.get(type);
      return set !== undefined && set.size > 0;
    },
  };
}
