// What the virtual clock takes from its host: timers, and how long work shares the event loop.
// Node's are the defaults; a test injects its own.

/** Host timers, injectable so tests never wait on real time. */
export interface HostTimers {
  set(fn: () => void, ms: number): unknown;
  clear(handle: unknown): void;
}

/** Node's timers, unref'd so a pending virtual timer never keeps the process alive. */
export const nodeTimers: HostTimers = {
  set: (fn, ms) => {
    const t = setTimeout(fn, ms);
    t.unref?.();
    return t;
  },
  clear: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

/**
 * CONTRACT §9: an advance never blocks other requests for long. It measures its own work on
 * `now` and, after `sliceMs` of it, lets the event loop run (I/O included) before going on.
 */
export interface WorkSlicing {
  /** Monotonic work time, ms (default `performance.now()`). */
  now(): number;
  /** Work between two yields, ms (default 20: well inside the contract's 50). */
  sliceMs: number;
  /** Lets the event loop run, I/O included (default `setImmediate`, never a microtask). */
  yield(): Promise<void>;
}

/** The default slicing: `performance.now()`, 20 ms slices, `setImmediate`. */
export const nodeSlicing: WorkSlicing = {
  now: () => performance.now(),
  sliceMs: 20,
  yield: () => new Promise<void>((resolve) => setImmediate(resolve)),
};

/** The longest delay a host timer takes (node turns a larger one into 1 ms). */
export const MAX_HOST_DELAY = 2 ** 31 - 1;
