import { describe, expect, it } from 'vitest';
import { createPartnerRegistry } from '../auth';
import { VirtualClock } from '../clock';
import { createOrderService, type OrderEvents, type OrderRecord, type OrderSummary } from '../orders';
import { createReferenceStore, DEFAULT_FIXTURES_DIR, loadFixturesOnce } from '../reference';
import { createBus } from '../shared/bus';
import type { WebhookEvent } from '../shared/events';
import { createIds } from '../shared/ids';
import type { DeliveryInput, Dispatcher } from './dispatcher';
import { routeOrderEvents } from './subscription';

// CONTRACT §5: an event becomes a delivery when the partner subscribes to it and has a URL;
// either way the order's timeline says what became of it, reported through orders.noteDelivery.

const T0 = Date.UTC(2026, 0, 15, 12, 0, 0);
const HOOK = 'http://receiver.invalid/hooks';

/** A dispatcher that only remembers what it was asked to deliver; `listening` lists the (client, event) pairs a listener takes. */
function fakeDispatcher() {
  const enqueued: DeliveryInput[] = [];
  const listening = new Set<string>();
  const dispatcher = {
    enqueue: (input: DeliveryInput) => {
      enqueued.push(input);
      return { id: `dlv_${enqueued.length}` };
    },
    listening: (clientId: string, event: WebhookEvent) => listening.has(`${clientId} ${event}`),
  } as unknown as Dispatcher;
  return { dispatcher, enqueued, listening };
}

/**
 * Orders reduced to their bus and the one command the webhooks call back: the test publishes
 * the events by hand; `emit` answers what was reported for that event's timeline entry.
 */
function fakeOrders() {
  const bus = createBus<OrderEvents>();
  const noted: Array<{ reference: string; entryId: number; outcome: Readonly<Record<string, unknown>> }> = [];
  const orders = {
    noteDelivery(reference: string, entryId: number, outcome: Readonly<Record<string, unknown>>) {
      noted.push({ reference, entryId, outcome });
      return true;
    },
  };
  let entries = 0;
  const emit = (event: WebhookEvent, order: Partial<OrderRecord>) => {
    const entryId = entries++;
    const summary = () => ({ reference: order.reference, status: 'awaiting_user_payment' }) as unknown as OrderSummary;
    bus.emit('order.emitted', { event, order: order as OrderRecord, summary, at: T0, entryId });
    return noted.filter((n) => n.entryId === entryId).map((n) => n.outcome);
  };
  return { bus, orders, emit, noted };
}

function setup() {
  const clock = new VirtualClock({ start: T0, mode: 'manual' });
  const partners = createPartnerRegistry({ ids: createIds(1), clock });
  const { dispatcher, enqueued, listening } = fakeDispatcher();
  const { bus, orders, emit, noted } = fakeOrders();
  const stop = routeOrderEvents({ bus, orders, partners, dispatcher });
  return { clock, partners, enqueued, listening, emit, bus, noted, stop };
}

describe('routeOrderEvents', () => {
  it('delivers a subscribed event to a partner with a URL, in the order’s environment, with the summary as data', () => {
    const t = setup();
    const partner = t.partners.create({ client_id: 'ptr_sub', webhook_url: HOOK, events: ['order.created'] });
    const details = t.emit('order.created', { reference: 'ORD1', clientId: 'ptr_sub', env: 'live' });
    expect(details).toEqual([{ delivery_id: 'dlv_1' }]);
    expect(t.noted).toEqual([{ reference: 'ORD1', entryId: 0, outcome: { delivery_id: 'dlv_1' } }]);
    expect(t.enqueued).toEqual([
      { partner, environment: 'live', order: 'ORD1', event: 'order.created', data: { reference: 'ORD1', status: 'awaiting_user_payment' } },
    ]);
  });

  it('skips an event the partner does not subscribe to, saying so', () => {
    const t = setup();
    t.partners.create({ client_id: 'ptr_sub', webhook_url: HOOK, events: ['order.settled'] });
    expect(t.emit('order.created', { reference: 'ORD1', clientId: 'ptr_sub', env: 'test' })).toEqual([
      { delivery: 'skipped: event not subscribed' },
    ]);
    expect(t.enqueued).toEqual([]);
  });

  it('skips every event of a partner with no webhook_url, saying so', () => {
    const t = setup();
    t.partners.create({ client_id: 'ptr_sub', webhook_url: null });
    expect(t.emit('order.created', { reference: 'ORD1', clientId: 'ptr_sub', env: 'test' })).toEqual([
      { delivery: 'skipped: no webhook_url' },
    ]);
    expect(t.enqueued).toEqual([]);
  });

  it('delivers to a partner with no webhook_url the events a connected listener takes (CONTRACT §17 listen)', () => {
    const t = setup();
    t.partners.create({ client_id: 'ptr_sub', webhook_url: null });
    t.listening.add('ptr_sub order.created');
    expect(t.emit('order.created', { reference: 'ORD1', clientId: 'ptr_sub', env: 'test' })).toEqual([{ delivery_id: 'dlv_1' }]);
    expect(t.emit('order.cancelled', { reference: 'ORD1', clientId: 'ptr_sub', env: 'test' })).toEqual([
      { delivery: 'skipped: no webhook_url' },
    ]);
    expect(t.enqueued.map((d) => d.event)).toEqual(['order.created']);
  });

  it('skips the events of an order whose partner was removed, saying so', () => {
    const t = setup();
    expect(t.emit('order.created', { reference: 'ORD1', clientId: 'ptr_gone', env: 'test' })).toEqual([
      { delivery: 'skipped: partner removed' },
    ]);
    expect(t.enqueued).toEqual([]);
  });

  it('reads the subscription when the event happens, not when the route was set up', () => {
    const t = setup();
    t.partners.create({ client_id: 'ptr_sub', webhook_url: null, events: [] });
    t.emit('order.created', { reference: 'ORD1', clientId: 'ptr_sub', env: 'test' });
    t.partners.update('ptr_sub', { webhook_url: HOOK, events: ['order.created'] });
    t.emit('order.created', { reference: 'ORD2', clientId: 'ptr_sub', env: 'test' });
    expect(t.enqueued.map((d) => d.order)).toEqual(['ORD2']);
  });

  it('stops routing once the returned function is called', () => {
    const t = setup();
    t.partners.create({ client_id: 'ptr_sub', webhook_url: HOOK });
    t.stop();
    expect(t.bus.has('order.emitted')).toBe(false);
    expect(t.emit('order.created', { reference: 'ORD1', clientId: 'ptr_sub', env: 'test' })).toEqual([]);
    expect(t.enqueued).toEqual([]);
  });

  it('records on the order’s timeline which events were delivered and which were skipped', () => {
    const clock = new VirtualClock({ start: T0, mode: 'manual' });
    const ids = createIds(1);
    const partners = createPartnerRegistry({ ids, clock });
    const reference = createReferenceStore(loadFixturesOnce(DEFAULT_FIXTURES_DIR), { seed: 1, clock });
    const bus = createBus<OrderEvents>();
    const orders = createOrderService({ clock, reference, ids, bus });
    const { dispatcher, enqueued } = fakeDispatcher();
    routeOrderEvents({ bus, orders, partners, dispatcher });
    const partner = partners.create({ client_id: 'ptr_sub', webhook_url: HOOK, events: ['order.cancelled'] });
    const order = orders.create(
      { partner, env: 'test' },
      {
        from: { currency: 'NGN', amount: 50_000 },
        to: { currency: 'USDT', network: 'base-sepolia' },
        recipient: { address: '0x52908400098527886E0F7030069857D2E4169EE7' },
        customer: { reference: 'cus_1', name: 'Ada Obi', email: 'ada@example.com' },
      },
    );
    orders.cancel({ partner, env: 'test' }, order.reference, undefined);
    const webhooks = orders.store.orders.get(order.reference)!.timeline.filter((e) => e.group === 'webhook');
    expect(webhooks.map((e) => [e.event, e.details])).toEqual([
      ['order.created', { delivery: 'skipped: event not subscribed' }],
      ['order.cancelled', { delivery_id: 'dlv_1' }],
    ]);
    expect(enqueued).toHaveLength(1);
    expect(enqueued[0]).toMatchObject({
      environment: 'test',
      order: order.reference,
      event: 'order.cancelled',
      data: { reference: order.reference, status: 'cancelled' },
    });
  });
});
