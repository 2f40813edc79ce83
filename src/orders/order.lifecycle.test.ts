import { describe, expect, it } from 'vitest';
import type { Partner } from '../auth';
import { VirtualClock } from '../clock';
import { createReferenceStore, DEFAULT_FIXTURES_DIR, loadFixturesOnce } from '../reference';
import { createBus } from '../shared/bus';
import { createIds } from '../shared/ids';
import type { OrderEvents } from './order.effects';
import { DEFAULT_TIMINGS } from './order.machine';
import type { CreateOrderBody } from './model';
import { createOrderService } from './order.service';
import { OrdersStateSchema } from './order.state';

// The order machine on stored orders (CONTRACT §3, §13): the pay-in deadline is the machine's,
// and orders saved by earlier versions run on after a restore.

const T0 = Date.UTC(2026, 0, 15, 12, 0, 0);
const fixtures = loadFixturesOnce(DEFAULT_FIXTURES_DIR);
const PARTNER = {
  client_id: 'ptr_acme',
  name: 'Acme',
  kyb_status: 'approved',
  webhook_url: null,
  events: [],
  ip_whitelist: [],
  keys: {},
  created_at: new Date(T0).toISOString(),
  updated_at: new Date(T0).toISOString(),
} as unknown as Partner;
const CALLER = { partner: PARTNER, env: 'test' as const };

/** An onramp of `amount` NGN (4444: held in `initiated`, magic amount). */
const onramp = (amount: number, i = 1): CreateOrderBody => ({
  from: { currency: 'NGN', amount },
  to: { currency: 'USDT', network: 'base-sepolia' },
  recipient: { address: '0x52908400098527886E0F7030069857D2E4169EE7' },
  customer: { reference: `cus_${i}`, name: 'Ada Obi', email: 'ada@example.com' },
});

function makeOrders() {
  const clock = new VirtualClock({ start: T0, mode: 'manual' });
  const ids = createIds(1);
  const bus = createBus<OrderEvents>();
  const orders = createOrderService({ clock, reference: createReferenceStore(fixtures, { seed: 1, clock }), ids, bus });
  return { clock, orders, bus };
}

describe('order lifecycle', () => {
  it('sets the pay-in deadline as the window opens: at creation, or once a held order is provisioned', () => {
    const { clock, orders } = makeOrders();
    const open = orders.create(CALLER, onramp(50_000, 1));
    const held = orders.create(CALLER, onramp(4_444, 2));
    expect(open.payin.expires_at).toBe(new Date(T0 + DEFAULT_TIMINGS.payinWindow).toISOString());
    expect(held.status).toBe('initiated');
    expect(held.payin.expires_at).toBeNull();
    clock.advance(DEFAULT_TIMINGS.provisioning);
    const provisioned = orders.detail(held.reference);
    expect(provisioned.status).toBe('awaiting_user_payment');
    expect(provisioned.payin.expires_at).toBe(new Date(T0 + DEFAULT_TIMINGS.provisioning + DEFAULT_TIMINGS.payinWindow).toISOString());
    // In the machine's context as a duration from the creation: the machine knows no instants.
    expect(orders.store.orders.get(held.reference)!.context.payinClosesAfter).toBe(
      DEFAULT_TIMINGS.provisioning + DEFAULT_TIMINGS.payinWindow,
    );
  });

  it('runs on an order saved before its context kept payinClosesAfter (an earlier version’s state)', () => {
    const { clock, orders } = makeOrders();
    const held = orders.create(CALLER, onramp(4_444, 1));
    const saved = JSON.parse(JSON.stringify({ ...orders.exportState(), timers: clock.pendingTimers() }));
    for (const order of saved.orders) delete order.context.payinClosesAfter;

    const later = makeOrders();
    later.clock.restore(clock.exportState());
    later.orders.restoreState(OrdersStateSchema.parse(saved));
    for (const timer of saved.timers) expect(later.orders.reviveTimer(timer.tag, timer.due)).toBe(true);
    later.clock.advance(DEFAULT_TIMINGS.provisioning);
    const detail = later.orders.detail(held.reference);
    expect(detail.status).toBe('awaiting_user_payment');
    // Counted from the order's created_at, as the earlier version's timer was.
    expect(detail.payin.expires_at).toBe(new Date(T0 + DEFAULT_TIMINGS.provisioning + DEFAULT_TIMINGS.payinWindow).toISOString());
    later.clock.advance(DEFAULT_TIMINGS.payinWindow);
    expect(later.orders.detail(held.reference).status).toBe('expired');
  });

  it('publishes each webhook event with its timeline entry, and takes what became of it through noteDelivery', () => {
    const { orders, bus } = makeOrders();
    const published: Array<[string, number]> = [];
    const changed: Array<string | null> = [];
    bus.on('order.emitted', (e) => published.push([e.event, e.entryId]));
    bus.on('order.changed', (ref) => changed.push(ref));
    const { reference } = orders.create(CALLER, onramp(50_000));
    const order = orders.store.orders.get(reference)!;
    expect(published).toEqual([['order.created', 2]]);
    expect(order.timeline[2]!).toMatchObject({ group: 'webhook', event: 'order.created', details: null });
    expect(changed.every((ref) => ref === reference)).toBe(true);

    const version = order.version;
    changed.length = 0;
    expect(orders.noteDelivery(reference, 2, { delivery_id: 'dlv_1' })).toBe(true);
    expect(order.timeline[2]!.details).toEqual({ delivery_id: 'dlv_1' });
    expect(order.version).toBe(version + 1); // a detail rendered before is rendered again
    expect(changed).toEqual([reference]);
    // Only a webhook entry of an order that exists takes a delivery.
    expect(orders.noteDelivery(reference, 0, { delivery_id: 'dlv_2' })).toBe(false);
    expect(orders.noteDelivery(reference, 99, { delivery_id: 'dlv_2' })).toBe(false);
    expect(orders.noteDelivery('ORDNONE', 2, { delivery_id: 'dlv_2' })).toBe(false);
    expect(order.timeline[0]!.details).toBeNull();
  });
});
