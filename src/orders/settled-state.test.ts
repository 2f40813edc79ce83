import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { seeded } from '../../test/support/property';
import { exact, packedTermsOf, packState, unpackState, type OrderState } from './settled-state';
import { SETTLED_BEFORE_SLAB, settleOrder, StoredOrder, unsettled } from './order-terms';
import { orderSnapshot, orderSnapshotJson } from './order.state';
import type { OrderRecord, TimelineRecord } from './order.records';
import { NO_REFS, NO_TIMERS, PackedTimeline } from './packed-order';
import { TIMELINE_GROUPS } from './order.vocabulary';

/** JSON data as a parsed body holds it (fast-check's JSON objects have no prototype; records' do). */
const plain = (v: unknown): unknown => JSON.parse(JSON.stringify(v));
const jsonValue = fc.jsonValue({ maxDepth: 2 }).map(plain);
const details: fc.Arbitrary<Record<string, unknown> | null> = fc.oneof(
  fc.constant(null),
  fc.string().map((id) => ({ delivery_id: id })),
  fc.dictionary(fc.constantFrom('reason', 'amount', 'delivery_id', '__proto__', 'toJSON', ''), jsonValue, { maxKeys: 3, noNullPrototype: true }),
);
/** Instants as a clock or a restored document makes them: safe integers, fractions, steps back. */
const instant = fc.oneof(fc.integer({ min: 0, max: 8_640_000_000_000 }), fc.double({ min: 0, max: 1e13, noNaN: true, noDefaultInfinity: true }).filter((x) => !Object.is(x, -0)));
const entry = fc.record({ group: fc.constantFrom(...TIMELINE_GROUPS), event: fc.constantFrom('completed', 'order.settled', 'sent', 'x\n"y', ''), details, at: instant }, { noNullPrototype: true });
const finite = fc.double({ noNaN: true, noDefaultInfinity: true }).filter((x) => !Object.is(x, -0));

const state: fc.Arbitrary<{ s: OrderState; records: TimelineRecord[] }> = fc
  .record({
    payinRefs: fc.array(fc.string(), { maxLength: 3 }),
    payinExpiresAt: fc.option(instant, { nil: null }),
    payinPaidAt: fc.option(instant, { nil: null }),
    payout: fc.option(fc.record({ refs: fc.array(fc.string(), { maxLength: 2 }), paidAt: fc.option(instant, { nil: null }), amount: finite, percentage: finite, state: fc.constantFrom('sent', 'failed', 'reverted') }, { noNullPrototype: true }), { nil: null }),
    refund: fc.option(fc.record({ ref: fc.option(fc.string(), { nil: null }), refundedAt: fc.option(instant, { nil: null }) }, { noNullPrototype: true }), { nil: null }),
    records: fc.array(entry, { maxLength: 20 }),
    context: fc.record({
      due: finite,
      precision: fc.integer({ min: 0, max: 18 }),
      hold: fc.boolean(),
      paid: finite,
      unconfirmed: finite,
      ratio: finite,
      refundDue: finite,
      refunded: finite,
      outcome: fc.constantFrom('success', 'partial', 'failure'),
      percentage: finite,
      autoPayin: fc.option(fc.record({ fraction: finite, confirmed: fc.boolean() }, { noNullPrototype: true }), { nil: null }),
      payinClosesAfter: fc.option(fc.integer({ min: 0, max: 1e9 }), { nil: null }),
    }, { noNullPrototype: true }),
    created_at: instant,
    updated_at: instant,
  })
  .map(({ records, payinRefs, ...rest }) => {
    const timeline = new PackedTimeline();
    for (const r of records) timeline.push(r.group, r.event, r.details, r.at);
    return { s: { ...rest, payinRefs: payinRefs.length === 0 ? NO_REFS : payinRefs, timeline } as unknown as OrderState, records };
  });

/** Terms as `packTerms` packs them (JSON text: no newline of its own). */
const TERMS = JSON.stringify([{ currency: 'USDT', amount: 100 }, { currency: 'NGN' }, null, 'line\nbreak']);

/** The state's fields as plain data, the timeline as its records. */
function fieldsOf(s: OrderState) {
  return { ...s, timeline: s.timeline.toArray() };
}

describe('a settled order\'s state, packed (decision 018)', () => {
  it('unpack(pack(state)) answers the same fields, timeline included, frozen or not (seeded)', () => {
    fc.assert(
      fc.property(state, fc.constantFrom('[]', TERMS, '["a\\nb","ü\\u0000"]'), ({ s, records }, terms) => {
        const packed = packState(s, terms);
        expect(packed).not.toBeNull();
        expect(packedTermsOf(packed!)).toBe(terms);
        for (const frozen of [false, true]) {
          const back = unpackState(packed!, frozen);
          expect(fieldsOf(back)).toStrictEqual(fieldsOf(s));
          expect(back.timeline.toArray()).toStrictEqual(records);
          expect(JSON.stringify(back.timeline)).toBe(JSON.stringify(records));
          expect(Object.keys(back.context)).toStrictEqual(Object.keys(s.context));
          expect(back.timeline.length).toBe(records.length);
          if (s.payinRefs.length === 0) expect(back.payinRefs).toBe(NO_REFS);
        }
      }),
      seeded({ numRuns: 500 }),
    );
  });

  it('packs nothing JSON would not give back exactly: -0, NaN, undefined, a holey array, a class instance, a context of other fields', () => {
    const base = () => {
      const timeline = new PackedTimeline();
      timeline.push('status', 'completed', null, 5);
      return {
        payinRefs: ['ref'],
        payinExpiresAt: null,
        payinPaidAt: 4,
        payout: { refs: ['tx'], paidAt: 5, amount: 1.5, percentage: 100, state: 'sent' },
        refund: null,
        timeline,
        context: { due: 1, precision: 6, hold: false, paid: 1, unconfirmed: 0, ratio: 1, refundDue: 0, refunded: 0, outcome: 'success', percentage: 100, autoPayin: null, payinClosesAfter: 1_800_000 },
        created_at: 1,
        updated_at: 5,
      } as unknown as OrderState & { payout: Record<string, unknown>; context: Record<string, unknown> };
    };
    expect(packState(base(), TERMS)).not.toBeNull();
    const spoiled: Array<(s: ReturnType<typeof base>) => void> = [
      (s) => (s.payout.amount = -0),
      (s) => (s.context.paid = Number.NaN),
      (s) => (s.context.ratio = Number.POSITIVE_INFINITY),
      (s) => (s.payout.extra = undefined),
      (s) => (s.payout.refs = [, 'tx'] as unknown as string[]), // a hole
      (s) => (s.payout.when = new Date(0)),
      (s) => (s.payout.nested = Object.create(null)),
      (s) => (s.updated_at = -0),
      (s) => (s.created_at = -0),
      (s) => s.timeline.push('order', 'n', { at: undefined }, 6),
      (s) => s.timeline.push('order', 'n', null, -0), // kept in the details list as it is
      (s) => (s.context = { ...s.context, extra: 1 }),
      (s) => {
        const { precision, ...rest } = s.context;
        s.context = { ...rest, precision }; // the same fields in another order
      },
      (s) => (s.context = Object.assign(Object.create(null) as Record<string, unknown>, s.context)),
    ];
    for (const spoil of spoiled) {
      const s = base();
      spoil(s);
      expect(packState(s, TERMS)).toBeNull();
    }
  });

  it('reads a frozen copy: a write to it throws instead of being lost', () => {
    const timeline = new PackedTimeline();
    timeline.push('webhook', 'order.settled', { delivery_id: 'dlv_1', extra: 1 }, 5);
    const s = { payinRefs: ['r'], payinExpiresAt: null, payinPaidAt: 4, payout: { refs: ['tx'], paidAt: 5, amount: 1, percentage: 100, state: 'sent' }, refund: null, timeline, context: { due: 1, precision: 6, hold: false, paid: 1, unconfirmed: 0, ratio: 1, refundDue: 0, refunded: 0, outcome: 'success', percentage: 100, autoPayin: null, payinClosesAfter: null }, created_at: 1, updated_at: 5 } as unknown as OrderState;
    const read = unpackState(packState(s, TERMS)!, true);
    expect(() => read.timeline.push('order', 'x', null, 6)).toThrow(TypeError);
    expect(() => read.timeline.setDetails(0, { delivery_id: 'dlv_2', extra: 2 })).toThrow(TypeError);
    expect(() => (read.payout!.state = 'reverted')).toThrow(TypeError);
    expect(() => read.payinRefs.push('r2')).toThrow(TypeError);
    expect(() => ((read.context as { paid: number }).paid = 2)).toThrow(TypeError);
    expect(read.timeline.toArray()).toStrictEqual(timeline.toArray());
    const live = unpackState(packState(s, TERMS)!, false);
    live.timeline.setDetails(0, { delivery_id: 'dlv_2' });
    live.payout!.state = 'reverted';
    expect(live.timeline.details(0)).toStrictEqual({ delivery_id: 'dlv_2' });
  });

  it('exact: JSON data, and nothing else', () => {
    expect(exact({ a: [1, 'x', null, true, { b: 0.5 }] }, 0)).toBe(true);
    expect(exact([-0], 0)).toBe(false);
    expect(exact({ a: () => 1 }, 0)).toBe(false);
    expect(exact({ [Symbol('s')]: 1 }, 0)).toBe(false);
    expect(exact(Object.defineProperty({}, 'hidden', { value: 1, enumerable: false }), 0)).toBe(false);
    expect(exact(Object.defineProperty({}, 'got', { get: () => 1, enumerable: true }), 0)).toBe(false);
    expect(exact(Object.assign([1], { extra: 2 }), 0)).toBe(false);
    expect(exact(1n as unknown, 0)).toBe(false);
    let deep: unknown = 1;
    for (let i = 0; i < 100; i++) deep = [deep];
    expect(exact(deep, 0)).toBe(false);
  });
});

/** A completed order's record as the store holds one (an offramp, paid out, its webhooks delivered). */
function completedOrder(): OrderRecord {
  const timeline = new PackedTimeline();
  timeline.push('status', 'initiated', null, 1_767_225_600_000);
  timeline.push('webhook', 'order.created', { delivery_id: 'dlv_a' }, 1_767_225_600_000);
  timeline.push('payout', 'sent', { amount: 160_512.25, tx_reference: 'BNK1' }, 1_767_225_900_000);
  timeline.push('status', 'completed', null, 1_767_225_900_000);
  return {
    type: 'offramp',
    from: { currency: 'USDT', network: 'base-sepolia', amount: 100 },
    to: { currency: 'NGN', amount: 160_512.25 },
    pricing: { exchange_rate: 1605.1225 },
    fee: { fee_in_rate: false, network_fee: 0.1, protocol_fee: 0, partner_fee: 0, vat: 0.0075, total: 0.1075, currency: 'USDT' },
    env: 'test',
    clientId: 'cid_demo',
    reference: 'ORD0000000000001',
    merchant_reference: null,
    customer_reference: 'cus-1',
    metadata: { invoice: 'inv-1' },
    recipient: { kind: 'fiat', institution_code: '058', account_number: '0123456789', account_name: 'ADA OBI' },
    payin: { kind: 'crypto', asset: 'USDT', network: 'base-sepolia', address: `0x${'a'.repeat(40)}` },
    payinRefs: ['0xhash'],
    payinExpiresAt: 1_767_227_400_000,
    payinPaidAt: 1_767_225_700_000,
    payout: { refs: ['BNK1'], paidAt: 1_767_225_900_000, amount: 160_512.25, percentage: 100, state: 'sent' },
    refundTarget: { kind: 'crypto', network: 'base-sepolia', address: `0x${'b'.repeat(40)}` },
    refund: null,
    timeline,
    status: 'completed',
    context: { due: 100, precision: 6, hold: false, paid: 100, unconfirmed: 0, ratio: 1, refundDue: 0, refunded: 0, outcome: 'success', percentage: 100, autoPayin: null, payinClosesAfter: 1_800_000 },
    created_at: 1_767_225_600_000,
    updated_at: 1_767_225_900_000,
    version: 9,
    timers: NO_TIMERS,
  } as unknown as OrderRecord;
}

describe('StoredOrder, settled', () => {
  it('settles in a final status with no timer pending, and reads and snapshots as it did', () => {
    const order = new StoredOrder(completedOrder());
    const json = orderSnapshotJson(order);
    const snapshot = orderSnapshot(order);
    const terms = order.packedTerms;
    order.settle();
    expect(typeof order.packedState).toBe('string');
    expect(order.packedTerms).toBe(terms); // the terms are part of the one string now
    const other = new StoredOrder(completedOrder());
    other.settle();
    for (const key of Object.keys(completedOrder()) as Array<keyof OrderRecord>) {
      void other.context; // another settled order read in between changes nothing
      if (key === 'timeline') expect(order.timeline.toArray()).toStrictEqual(completedOrder().timeline.toArray());
      else expect(order[key]).toStrictEqual(completedOrder()[key]);
    }
    expect(orderSnapshotJson(order)).toBe(json);
    expect(orderSnapshot(order)).toStrictEqual(snapshot);
  });

  it('does not settle an order still running or with a timer pending', () => {
    const running = new StoredOrder({ ...completedOrder(), status: 'processing' } as OrderRecord);
    running.settle();
    expect(running.packedState).toBeNull();
    const timed = new StoredOrder({ ...completedOrder(), timers: [['t', 1]] } as OrderRecord);
    timed.settle();
    expect(timed.packedState).toBeNull();
  });

  it('keeps every write to a settled order: a field set, a timeline entry pushed or changed, a payout changed in place', () => {
    const order = new StoredOrder(completedOrder());
    order.settle();
    // A read of the packed state is frozen: a write in place throws rather than being lost.
    expect(() => order.timeline.push('order', 'x', null, 1)).toThrow(TypeError);
    expect(() => (order.payout!.state = 'reverted')).toThrow(TypeError);
    order.updated_at = 1_767_226_000_000;
    expect(order.packedState).toBeNull();
    order.settle();
    unsettled(order).timeline.setDetails(3, { reason: 'why' });
    unsettled(order).payout!.state = 'reverted';
    settleOrder(order);
    expect(typeof order.packedState).toBe('string');
    order.context = { ...order.context, refunded: 5 };
    settleOrder(order);
    expect(order.updated_at).toBe(1_767_226_000_000);
    expect(order.timeline.details(3)).toStrictEqual({ reason: 'why' });
    expect(order.payout!.state).toBe('reverted');
    expect(order.context.refunded).toBe(5);
    expect(order.timeline.length).toBe(4);
    expect(typeof order.packedState).toBe('string');
  });
});

describe('StoredOrder, moved into a slab (decision 020)', () => {
  /** Settles enough other orders that `order`, settled before them, has moved into a slab. */
  function settleOthers(count = SETTLED_BEFORE_SLAB) {
    for (let i = 0; i < count; i++) new StoredOrder({ ...completedOrder(), reference: `ORD${i}` } as OrderRecord).settle();
  }

  it('moves a settled order\'s packed string into a slab once it has stayed settled, and reads and snapshots as it did', () => {
    const wide = { ...completedOrder(), metadata: { note: 'Ádá 🚀 \ud800' }, recipient: { ...completedOrder().recipient, account_name: 'ÁDÁ ØBI 日本' } } as OrderRecord;
    const order = new StoredOrder(wide);
    const ascii = new StoredOrder(completedOrder());
    const json = orderSnapshotJson(order);
    const asciiJson = orderSnapshotJson(ascii);
    order.settle();
    ascii.settle();
    const packed = order.packedState as string;
    settleOthers(SETTLED_BEFORE_SLAB - 2);
    expect(typeof order.packedState).toBe('string'); // not yet: fewer settles since than the delay
    settleOthers(2);
    expect(Buffer.isBuffer(order.packedState)).toBe(true);
    expect(Buffer.isBuffer(ascii.packedState)).toBe(true);
    expect((order.packedState as Buffer).buffer).toBe((ascii.packedState as Buffer).buffer); // one slab for both
    expect(order.packedTerms).toBe(packed.slice(0, packed.indexOf('\n')));
    for (const key of Object.keys(wide) as Array<keyof OrderRecord>) {
      void ascii.context; // another order read in between changes nothing
      if (key === 'timeline') expect(order.timeline.toArray()).toStrictEqual(wide.timeline.toArray());
      else expect(order[key]).toStrictEqual(wide[key]);
    }
    expect(orderSnapshotJson(order)).toBe(json);
    expect(orderSnapshotJson(ascii)).toBe(asciiJson);
  });

  it('keeps every write to an order in a slab, and packs it again as a string that moves later', () => {
    const order = new StoredOrder(completedOrder());
    order.settle();
    settleOthers();
    expect(Buffer.isBuffer(order.packedState)).toBe(true);
    expect(() => order.timeline.push('order', 'x', null, 1)).toThrow(TypeError); // reads stay frozen
    unsettled(order).timeline.setDetails(3, { reason: 'late' });
    order.updated_at = 1_767_226_000_000;
    expect(order.packedState).toBeNull();
    settleOrder(order);
    expect(typeof order.packedState).toBe('string');
    settleOthers();
    expect(Buffer.isBuffer(order.packedState)).toBe(true);
    expect(order.timeline.details(3)).toStrictEqual({ reason: 'late' });
    expect(order.updated_at).toBe(1_767_226_000_000);
    expect(order.payout).toStrictEqual(completedOrder().payout);
  });
});
