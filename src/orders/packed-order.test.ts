import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { seeded } from '../../test/support/property';
import { MAX_INSTANT } from '../shared/schemas';
import { TIMELINE_GROUPS } from './order.vocabulary';
import { appended, NO_TIMERS, ownTimers, packContext, PackedTimeline, releaseTimers, type TimelineRecord } from './packed-order';
import type { OrderContext } from './order.records';

// Shared details as the webhooks share theirs: the same frozen object for every order.
const SHARED = [Object.freeze({ delivery: 'skipped: no webhook_url' }), Object.freeze({ delivery: 'skipped: event not subscribed' })];

const details: fc.Arbitrary<TimelineRecord['details']> = fc.oneof(
  fc.constant(null),
  fc.constantFrom(...SHARED),
  fc.string({ minLength: 1, maxLength: 30 }).map((id) => ({ delivery_id: id })),
  fc.record({ delivery_id: fc.string(), reason: fc.string() }),
  fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 }),
);
const instant: fc.Arbitrary<number> = fc.oneof(
  fc.integer({ min: 0, max: MAX_INSTANT }),
  fc.integer({ min: 1_767_225_600_000, max: 1_767_225_600_000 + 10 * 86_400_000 }),
  fc.constantFrom(0, -0, MAX_INSTANT, Number.MAX_SAFE_INTEGER, 2 ** 53, 1.5, -1, -(2 ** 40)),
  fc.double({ noNaN: true }),
);
type Op = { kind: 'push'; group: TimelineRecord['group']; event: string; details: TimelineRecord['details']; at: number } | { kind: 'set'; index: number; details: TimelineRecord['details'] };
const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('push' as const), group: fc.constantFrom(...TIMELINE_GROUPS), event: fc.oneof(fc.constantFrom('initiated', 'order.created', 'confirmed', 'sent'), fc.string({ maxLength: 12 })), details, at: instant }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('set' as const), index: fc.nat(), details }) },
);

describe('PackedTimeline', () => {
  it('answers what an array of timeline records answers, through any pushes and changes of details (seeded)', () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 40 }), (ops) => {
        const model: TimelineRecord[] = [];
        const packed = new PackedTimeline();
        for (const o of ops) {
          if (o.kind === 'push') {
            expect(packed.push(o.group, o.event, o.details, o.at)).toBe(model.push({ group: o.group, event: o.event, details: o.details, at: o.at }) - 1);
          } else if (model.length > 0) {
            const i = o.index % model.length;
            model[i] = { ...model[i]!, details: o.details };
            packed.setDetails(i, o.details);
          }
        }
        expect(packed.length).toBe(model.length);
        for (const outside of [-1, model.length, model.length + 3, 0.5]) expect(packed.find(outside)).toBeUndefined();
        expect(packed.toArray()).toStrictEqual(model);
        // The same JSON, byte for byte (a state snapshot), and restored from it, the same again.
        expect(JSON.stringify(packed)).toBe(JSON.stringify(model));
        expect(PackedTimeline.from(model).toArray()).toStrictEqual(model);
        model.forEach((r, i) => {
          expect(packed.entry(i)).toStrictEqual(r);
          expect(packed.find(i)).toStrictEqual(r);
          expect([packed.group(i), packed.event(i), packed.at(i), packed.details(i)]).toStrictEqual([r.group, r.event, r.at, r.details]);
          // A shared details object stays the very same object.
          if (r.details !== null && Object.isFrozen(r.details)) expect(packed.details(i)).toBe(r.details);
          // Every instant exactly, -0 and fractions included.
          expect(Object.is(packed.at(i), r.at)).toBe(true);
        });
      }),
      seeded({ numRuns: 1_000 }),
    );
  });

  it('keeps a finished order’s timeline in a short string and a few details', () => {
    const t = new PackedTimeline();
    const at = 1_767_225_600_000;
    const events = ['initiated', 'awaiting_user_payment', 'order.created', 'confirmed', 'processing', 'order.asset_locked', 'routing', 'awaiting_lp_payment', 'order.assigned', 'executing', 'order.fiat_sent', 'sent', 'settled', 'order.settled', 'completed'];
    events.forEach((e, i) => t.push(e.startsWith('order.') ? 'webhook' : 'status', e, e.startsWith('order.') ? SHARED[0]! : null, at + i * 60_000));
    expect(t.length).toBe(15);
    expect((t as unknown as { bytes: string }).bytes.length).toBeLessThan(15 * 6 + 8);
    expect((t as unknown as { extra: unknown }).extra).toBeUndefined();
  });
});

describe('appended', () => {
  it('answers [...list, item] (seeded)', () => {
    fc.assert(
      fc.property(fc.array(fc.string()), fc.string(), (list, item) => {
        const out = appended(list, item);
        expect(out).toStrictEqual([...list, item]);
        expect(out).not.toBe(list);
      }),
      seeded({ numRuns: 300 }),
    );
  });
});

describe('packContext', () => {
  const context: fc.Arbitrary<OrderContext> = fc.record({
    due: fc.double({ noNaN: true }),
    precision: fc.nat(18),
    hold: fc.boolean(),
    paid: fc.double({ noNaN: true }),
    unconfirmed: fc.double({ noNaN: true }),
    ratio: fc.double({ noNaN: true }),
    refundDue: fc.double({ noNaN: true }),
    refunded: fc.double({ noNaN: true }),
    outcome: fc.constantFrom('success', 'fail', 'revert', 'partial'),
    percentage: fc.double({ noNaN: true }),
    autoPayin: fc.option(fc.record({ fraction: fc.double({ noNaN: true }), confirmed: fc.boolean() }), { nil: null }),
    payinClosesAfter: fc.option(fc.nat(), { nil: null }),
  }) as fc.Arbitrary<OrderContext>;

  it('answers the same context, fields in the same order, whatever their values (seeded)', () => {
    fc.assert(
      fc.property(context, (c) => {
        // As xstate's assign builds it.
        c = { ...c };
        const built = Object.assign({}, c, { paid: c.paid });
        const packed = packContext(built);
        expect(packed).toStrictEqual(c);
        expect(Object.keys(packed)).toEqual(Object.keys(c));
        expect(JSON.stringify(packed)).toBe(JSON.stringify(c));
      }),
      seeded({ numRuns: 500 }),
    );
  });

  it('keeps a context of other fields as it is', () => {
    const other = { due: 1, extra: true } as unknown as OrderContext;
    expect(packContext(other)).toBe(other);
  });
});

describe('NO_TIMERS', () => {
  it('is shared while no timer is pending, and an order’s own array once one is', () => {
    const order = { timers: NO_TIMERS };
    expect(() => NO_TIMERS.push(['x', 1])).toThrow();
    ownTimers(order).push(['payinWindow', 7]);
    expect(order.timers).toEqual([['payinWindow', 7]]);
    expect(NO_TIMERS).toEqual([]);
    releaseTimers(order);
    expect(order.timers).toEqual([['payinWindow', 7]]);
    order.timers.length = 0;
    releaseTimers(order);
    expect(order.timers).toBe(NO_TIMERS);
  });
});
