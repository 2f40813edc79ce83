import type { Middleware, Next } from 'koa';
// Node's own, taken when this module loads: a test of a partner's that fakes the global timers
// (vi.useFakeTimers, jest's modern timers) after importing the sandbox must not stop its requests.
import { setImmediate as hostImmediate } from 'node:timers';

/** At most this many requests wait: the one that makes this many runs them all at once (docs/decisions/025-requests-routed-by-turn.md). */
const TURN_BATCH_MAX = 256;

/**
 * Routes the requests of one turn of the event loop together (docs/decisions/025-requests-routed-by-turn.md).
 * A request that reaches this middleware (its body read) waits for the end of the turn, in
 * `setImmediate`; then the turn's requests run the rest of the app (the route's guard, checks and
 * handler, and the rendering of its answer) one after another, in the order they reached it, and
 * their answers are written together. Run back to back, the same code stays warm in the CPU's
 * caches; run between other sockets' reads and writes, each request paid for its code cold.
 *
 * The order is the one the app had without it: requests still reach their routes in the order
 * their bodies were read, every route included (the control API's too), and each route's work
 * runs to its first `await` before the next begins. No host timer fires between a request's
 * arrival and its route (a turn's timers run before its I/O). The request that makes `max`
 * waiting runs them all at once, itself included, rather than at the turn's end.
 */
export function routedByTurn(max = TURN_BATCH_MAX): Middleware {
  let waiting: Waiting[] = [];
  const runWaiting = (): void => {
    const batch = waiting;
    waiting = [];
    for (let i = 0; i < batch.length; i++) {
      const w = batch[i]!;
      let done: Promise<void>;
      try {
        done = w.next();
      } catch (error) {
        // koa-compose turns a throw into a rejection; a `next` that throws fails its request alone.
        done = Promise.reject(error);
      }
      done.then(w.resolve, w.reject);
    }
  };
  return (_ctx, next) =>
    new Promise<void>((resolve, reject) => {
      waiting.push({ next, resolve, reject });
      if (waiting.length >= max) runWaiting();
      else if (waiting.length === 1) hostImmediate(runWaiting);
    });
}

interface Waiting {
  next: Next;
  resolve: () => void;
  reject: (error: unknown) => void;
}
