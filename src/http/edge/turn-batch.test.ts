import { AsyncLocalStorage } from 'node:async_hooks';
import type { Context, Middleware } from 'koa';
import { describe, expect, it } from 'vitest';
import { routedByTurn } from './turn-batch';

const turnEnd = () => new Promise<void>((done) => setImmediate(done));
const ctx = {} as Context;

/** Calls the middleware as Koa would, with a `next` that notes when the route ran. */
function arrive(mw: Middleware, ran: string[], name: string, route: () => void | Promise<void> = () => undefined): Promise<unknown> {
  return mw(ctx, () => {
    ran.push(name);
    return Promise.resolve(route());
  }) as Promise<unknown>;
}

function callerAtOnce(route: () => void): Error {
  route();
  return new Error('the route did not throw');
}

// Decision 025: a turn's requests reach their routes together, at the turn's end, in order.
describe('routedByTurn', () => {
  it('runs no route before the turn ends, then every waiting one in the order they came', async () => {
    const mw = routedByTurn();
    const ran: string[] = [];
    const answered: string[] = [];
    const all = ['a', 'b', 'c'].map((name) => arrive(mw, ran, name).then(() => answered.push(name)));
    expect(ran).toEqual([]);
    await Promise.resolve();
    expect(ran).toEqual([]);
    await turnEnd();
    expect(ran).toEqual(['a', 'b', 'c']);
    await Promise.all(all);
    expect(answered).toEqual(['a', 'b', 'c']);
  });

  it('answers each request with its own route’s outcome: a route that fails fails its request alone', async () => {
    const mw = routedByTurn();
    const ran: string[] = [];
    const failed = new Error('boom');
    const outcomes = await Promise.allSettled([
      arrive(mw, ran, 'ok'),
      arrive(mw, ran, 'rejects', () => Promise.reject(failed)),
      mw(ctx, () => {
        ran.push('throws');
        throw failed;
      }),
      arrive(mw, ran, 'after'),
    ]);
    expect(ran).toEqual(['ok', 'rejects', 'throws', 'after']);
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'rejected', 'fulfilled']);
    expect(outcomes[1]).toMatchObject({ reason: failed });
    expect(outcomes[2]).toMatchObject({ reason: failed });
  });

  it('waits for a route that awaits, and lets the next route start meanwhile', async () => {
    const mw = routedByTurn();
    const ran: string[] = [];
    let release!: () => void;
    const slow = arrive(mw, ran, 'slow', () => new Promise<void>((done) => (release = done)));
    let slowAnswered = false;
    void slow.then(() => (slowAnswered = true));
    const fast = arrive(mw, ran, 'fast');
    await fast;
    expect(ran).toEqual(['slow', 'fast']);
    expect(slowAnswered).toBe(false);
    release();
    await slow;
    expect(slowAnswered).toBe(true);
  });

  it('runs the waiting requests at once when `max` wait, the rest at the turn’s end', async () => {
    const mw = routedByTurn(3);
    const ran: string[] = [];
    const all = ['a', 'b'].map((name) => arrive(mw, ran, name));
    expect(ran).toEqual([]);
    all.push(arrive(mw, ran, 'c'));
    expect(ran).toEqual(['a', 'b', 'c']);
    all.push(arrive(mw, ran, 'd'));
    expect(ran).toEqual(['a', 'b', 'c']);
    await turnEnd();
    expect(ran).toEqual(['a', 'b', 'c', 'd']);
    await Promise.all(all);
  });

  it('starts a new batch in the next turn, and runs a request that comes while a batch runs in a later one', async () => {
    const mw = routedByTurn();
    const ran: string[] = [];
    let late: Promise<unknown> | undefined;
    const first = arrive(mw, ran, 'first', () => {
      late = arrive(mw, ran, 'late');
    });
    await turnEnd();
    expect(ran).toEqual(['first']);
    await first;
    await turnEnd();
    expect(ran).toEqual(['first', 'late']);
    await late;
  });

  // What the batch costs (decision 025, "Costs"): pinned, so a change to either is seen.
  it('runs every route of a batch in the async context of the request that opened it, not its own', async () => {
    const mw = routedByTurn();
    const als = new AsyncLocalStorage<string>();
    const seen: string[] = [];
    await Promise.all(
      ['A', 'B', 'C'].map((name) => als.run(name, () => mw(ctx, async () => void seen.push(`${name} sees ${als.getStore()}`)))),
    );
    expect(seen).toEqual(['A sees A', 'B sees A', 'C sees A']);
  });

  it('gives a failing route a stack that starts at the batch, without the middleware that called it', async () => {
    const mw = routedByTurn();
    const route = () => {
      throw new Error('boom');
    };
    const callerBeforeTheBatch = () => mw(ctx, route as never) as Promise<unknown>;
    const failed = (await callerBeforeTheBatch().catch((error: unknown) => error)) as Error;
    expect(failed.message).toBe('boom');
    expect(failed.stack).toContain('runWaiting');
    expect(failed.stack).not.toContain('callerBeforeTheBatch');
    // Called at once, as without the batch, the same route's stack holds its caller.
    const direct = (() => {
      try {
        return callerAtOnce(route);
      } catch (error) {
        return error as Error;
      }
    })();
    expect(direct.stack).toContain('callerAtOnce');
  });
});
