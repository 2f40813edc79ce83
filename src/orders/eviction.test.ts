import { describe, expect, it } from 'vitest';
import { createEviction, type NearlyFull } from './eviction';
import type { OrderStatus } from './order.machine';
import type { OrderRecord } from './model';
import { createPlainStore } from './store';
import { refusal } from '../../test/support/refusal';

// CONTRACT §9 on a small store: what is evicted, when a create is refused, the warning.

/** A hand-made order; its pending timers kept on it here (the lifecycle keeps them beside the store). */
type Fake = OrderRecord & { status: OrderStatus; timers: Array<[string, number]> };

function order(reference: string, status: OrderStatus, opts: { timer?: boolean; quote?: string } = {}): Fake {
  return {
    reference,
    clientId: 'ptr_1',
    env: 'test',
    merchant_reference: null,
    status,
    timers: opts.timer ? [['xstate.after.refund', 1]] : [],
    timeline: opts.quote ? [{ group: 'order', event: 'quote_used', details: { quote_id: opts.quote }, at: 0 }] : [],
  } as unknown as Fake;
}

function setup(maxOrders: number, orders: Fake[] = []) {
  const store = createPlainStore();
  for (const o of orders) store.create(o);
  const batches: string[][] = [];
  const warnings: NearlyFull[] = [];
  const eviction = createEviction({
    store,
    pendingTimers: (o) => (o as Fake).timers,
    maxOrders,
    onEvicted: (evicted) => batches.push([...evicted].map((o) => o.reference)),
    onNearlyFull: (info) => warnings.push(info),
  });
  const refs = () => [...store.orders.keys()];
  /** A create as the intake does it: room first, then the order, then the warning check. */
  const create = (o: Fake) => {
    eviction.makeRoom();
    store.create(o);
    eviction.afterAdd();
  };
  /** A lifecycle step that leaves `o` in `status`. */
  const finish = (o: Fake, status: OrderStatus = 'completed') => {
    o.status = status;
    eviction.afterFinal(o);
  };
  return { store, eviction, batches, warnings, refs, create, finish };
}

describe('createEviction', () => {
  it('refuses a create at the limit when no order is final, naming the limit and what frees room, changing nothing', () => {
    const t = setup(3, [order('a', 'initiated'), order('b', 'pending'), order('c', 'processing')]);
    const error = refusal(() => t.eviction.makeRoom());
    expect(error.code).toBe('E_CONFLICT');
    expect(error.status).toBe(409);
    expect(error.message).toMatch(/holds 3 orders, its limit \(--max-orders 3\), and none can be evicted/);
    for (const way of [/advancing the clock/, /expire/, /POST \/sandbox\/reset/, /larger --max-orders/]) expect(error.message).toMatch(way);
    expect(t.refs()).toEqual(['a', 'b', 'c']);
    expect(t.batches).toEqual([]);
    expect(t.eviction.count).toBe(0);
  });

  it('makes room below the limit without evicting, and at the limit evicts the oldest final order with no timer pending', () => {
    const t = setup(4, [
      order('a', 'cancelled', { timer: true }),
      order('b', 'initiated'),
      order('c', 'expired', { quote: 'qt_c' }),
      order('d', 'completed'),
    ]);
    t.store.quotes.set('qt_c', {} as never);
    t.eviction.makeRoom();
    t.store.create(order('e', 'initiated'));
    // 'a' is older but its late refund is still pending: 'c' goes, with its quote.
    expect(t.refs()).toEqual(['a', 'b', 'd', 'e']);
    expect(t.batches).toEqual([['c']]);
    expect(t.store.quotes.has('qt_c')).toBe(false);
    expect(t.eviction.count).toBe(1);
    const below = setup(4, [order('a', 'completed')]);
    below.eviction.makeRoom();
    expect(below.batches).toEqual([]);
  });

  it('evicts in batches of 1% of the limit, so the scan is paid once per batch', () => {
    const done = Array.from({ length: 200 }, (_, i) => order(`o${i}`, 'completed'));
    const t = setup(200, done);
    t.create(order('n0', 'initiated'));
    expect(t.batches).toEqual([['o0', 'o1']]);
    expect(t.store.orders.size).toBe(199);
    t.create(order('n1', 'initiated'));
    expect(t.batches).toHaveLength(1);
    expect(t.store.orders.size).toBe(200);
    t.create(order('n2', 'initiated'));
    expect(t.batches).toEqual([
      ['o0', 'o1'],
      ['o2', 'o3'],
    ]);
    expect(t.store.orders.size).toBe(199);
  });

  it('never takes the store past the limit: a create is refused until a lifecycle step finishes an order', () => {
    const running = [order('a', 'initiated'), order('b', 'pending'), order('c', 'initiated')];
    const t = setup(3, running);
    refusal(() => t.create(order('x', 'initiated')));
    refusal(() => t.create(order('x', 'initiated')));
    // A final order with a timer pending (a late refund) is not evictable yet...
    t.finish(running[1]!, 'cancelled');
    running[1]!.timers = [['late-refund', 7]];
    refusal(() => t.create(order('x', 'initiated')));
    // ...and is once the step that fires the timer leaves it final with none.
    running[1]!.timers = [];
    t.finish(running[1]!, 'refunded');
    expect(t.refs()).toEqual(['a', 'b', 'c']); // at the limit, not over: nothing goes before a create needs it
    t.create(order('x', 'initiated'));
    expect(t.refs()).toEqual(['a', 'c', 'x']);
    refusal(() => t.create(order('y', 'initiated')));
    t.finish(running[2]!, 'expired');
    t.create(order('y', 'initiated'));
    expect(t.refs()).toEqual(['a', 'x', 'y']);
    expect(t.eviction.count).toBe(2);
  });

  it('brings a store over the limit (a restored one) back to it as soon as orders finish, with no create', () => {
    const restored = Array.from({ length: 12 }, (_, i) => order(`o${i}`, 'processing'));
    const t = setup(5, restored);
    const error = refusal(() => t.create(order('x', 'initiated')));
    expect(error.message).toMatch(/holds 12 orders, its limit \(--max-orders 5\), and none can be evicted/);
    for (const o of restored) {
      t.finish(o);
      expect(t.store.orders.size).toBe(Math.max(5, 12 - restored.indexOf(o) - 1));
    }
    expect(t.store.orders.size).toBe(5);
    expect(t.eviction.count).toBe(7);
    t.create(order('x', 'initiated'));
    expect(t.store.orders.size).toBe(5);
  });

  it('refuses without evicting anything when evicting what it can would not bring the store under the limit', () => {
    const t = setup(3, [
      order('a', 'completed'),
      order('b', 'pending'),
      order('c', 'pending'),
      order('d', 'pending'),
      order('e', 'pending'),
    ]);
    const error = refusal(() => t.eviction.makeRoom());
    expect(error.message).toMatch(/holds 5 orders, its limit \(--max-orders 3\), and only 1 can be evicted/);
    expect(t.refs()).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(t.batches).toEqual([]);
  });

  it('forgets on reset what earlier scans learnt: orders restored final are found', () => {
    const t = setup(2, [order('a', 'pending'), order('b', 'pending')]);
    refusal(() => t.eviction.makeRoom()); // every order read: none evictable
    t.store.clear();
    t.eviction.reset(4);
    t.store.create(order('c', 'completed'));
    t.store.create(order('d', 'completed'));
    t.create(order('e', 'initiated'));
    expect(t.refs()).toEqual(['d', 'e']);
    expect(t.eviction.count).toBe(5);
  });

  it('warns once when a create takes the store past 90% of the limit, and again only after a reset', () => {
    const t = setup(20);
    for (let i = 0; i < 18; i++) t.create(order(`o${i}`, i < 3 ? 'completed' : 'initiated'));
    expect(t.warnings).toEqual([]);
    t.create(order('o18', 'initiated'));
    expect(t.warnings).toEqual([{ orders: 19, maxOrders: 20, unfinished: 16 }]);
    for (let i = 19; i < 23; i++) t.create(order(`o${i}`, 'initiated')); // the last 3 evict the completed ones
    expect(t.eviction.count).toBe(3);
    expect(t.warnings).toHaveLength(1);
    t.store.clear();
    t.eviction.reset();
    for (let i = 0; i < 19; i++) t.create(order(`p${i}`, 'initiated'));
    expect(t.warnings).toHaveLength(2);
  });

  it('has no bound when maxOrders is infinite', () => {
    const t = setup(Number.POSITIVE_INFINITY);
    for (let i = 0; i < 50; i++) t.create(order(`o${i}`, 'pending'));
    expect(t.store.orders.size).toBe(50);
    expect(t.warnings).toEqual([]);
  });
});
