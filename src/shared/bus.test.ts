import { describe, expect, it } from 'vitest';
import { createBus } from './bus';

interface Events {
  'order.changed': string | null;
  'delivery.changed': { id: string };
}

describe('createBus', () => {
  it('tells each listener of a type its payloads, in the order they subscribed', () => {
    const bus = createBus<Events>();
    const seen: string[] = [];
    bus.on('order.changed', (ref) => seen.push(`a:${ref}`));
    bus.on('order.changed', (ref) => seen.push(`b:${ref}`));
    bus.on('delivery.changed', (d) => seen.push(`d:${d.id}`));
    bus.emit('order.changed', 'ORD1');
    bus.emit('order.changed', null);
    bus.emit('delivery.changed', { id: 'dlv_1' });
    expect(seen).toEqual(['a:ORD1', 'b:ORD1', 'a:null', 'b:null', 'd:dlv_1']);
  });

  it('stops telling a listener once its unsubscribe is called, and says who listens', () => {
    const bus = createBus<Events>();
    const seen: Array<string | null> = [];
    expect(bus.has('order.changed')).toBe(false);
    const off = bus.on('order.changed', (ref) => seen.push(ref));
    expect(bus.has('order.changed')).toBe(true);
    bus.emit('order.changed', 'ORD1');
    off();
    off(); // twice is harmless
    bus.emit('order.changed', 'ORD2');
    expect(seen).toEqual(['ORD1']);
    expect(bus.has('order.changed')).toBe(false);
  });

  it('tells a function subscribed twice twice, and each unsubscribe removes its own', () => {
    const bus = createBus<Events>();
    const seen: Array<string | null> = [];
    const listener = (ref: string | null) => seen.push(ref);
    const first = bus.on('order.changed', listener);
    bus.on('order.changed', listener);
    bus.emit('order.changed', 'ORD1');
    first();
    bus.emit('order.changed', 'ORD2');
    expect(seen).toEqual(['ORD1', 'ORD1', 'ORD2']);
  });

  it('ignores what a listener returns: nothing flows back to the publisher', () => {
    const bus = createBus<Events>();
    const payload = { id: 'dlv_1' };
    bus.on('delivery.changed', () => ({ delivery_id: 'x' }));
    expect(bus.emit('delivery.changed', payload)).toBeUndefined();
    expect(payload).toEqual({ id: 'dlv_1' });
  });

  it('lets a listener’s error through to the publisher (a create that fails is taken back)', () => {
    const bus = createBus<Events>();
    bus.on('order.changed', () => {
      throw new Error('listener failed');
    });
    expect(() => bus.emit('order.changed', 'ORD1')).toThrow('listener failed');
  });
});
