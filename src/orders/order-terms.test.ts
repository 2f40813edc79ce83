import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { seeded } from '../../test/support/property';
import { packTerms, StoredOrder, unpackTerms, type OrderTerms } from './order-terms';
import { orderSnapshot, orderSnapshotJson } from './order.state';
import type { OrderRecord } from './order.records';
import { NO_TIMERS, PackedTimeline } from './packed-order';

/** JSON data as a request body parses to (fast-check's JSON objects have no prototype; terms' do). */
const plain = (v: unknown): unknown => JSON.parse(JSON.stringify(v));

/**
 * Any data a term could hold once validated (JSON data: strings, finite numbers, booleans, null,
 * plain objects and arrays), with odd keys (`__proto__`, `toJSON`, the empty key; not
 * `constructor`: toStrictEqual compares two objects' `constructor`s to tell their types).
 */
const value: fc.Arbitrary<unknown> = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }).map(plain),
  fc.constantFrom(0, 1e21, 5e-324, -1.5, Number.MAX_SAFE_INTEGER, '', '\u0000', 'ü'),
  fc.dictionary(fc.constantFrom('__proto__', 'hasOwnProperty', 'toJSON', '', 'amount'), fc.jsonValue({ maxDepth: 1 }).map(plain), { maxKeys: 3, noNullPrototype: true }),
);
const terms: fc.Arbitrary<OrderTerms> = fc
  .record({
    from: value,
    to: value,
    pricing: value,
    fee: value,
    merchant_reference: value,
    customer_reference: value,
    recipient: value,
    payin: value,
    refundTarget: value,
    memo: fc.option(fc.string(), { nil: undefined }),
  })
  .map((t) => t as unknown as OrderTerms);

/** A stored order's fields as intake writes them: the schema's order. */
function plainOrder(memo: string | undefined): OrderRecord {
  const order: Record<string, unknown> = {
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
    metadata: { invoice: 'inv-1', nested: { a: [1, 2] } },
  };
  if (memo !== undefined) order.memo = memo;
  Object.assign(order, {
    recipient: { kind: 'fiat', institution_code: '058', account_number: '0123456789', account_name: 'ADA OBI' },
    payin: { kind: 'crypto', asset: 'USDT', network: 'base-sepolia', address: `0x${'a'.repeat(40)}` },
    payinRefs: [],
    payinExpiresAt: 1_767_227_400_000,
    payinPaidAt: null,
    payout: null,
    refundTarget: { kind: 'crypto', network: 'base-sepolia', address: `0x${'b'.repeat(40)}` },
    refund: null,
    timeline: PackedTimeline.from([{ group: 'status', event: 'initiated', details: null, at: 1_767_225_600_000 }]),
    status: 'awaiting_user_payment',
    context: { due: 100, precision: 6, hold: false, paid: 0, unconfirmed: 0, ratio: 0, refundDue: 0, refunded: 0, outcome: 'success', percentage: 100, autoPayin: null, payinClosesAfter: 1_800_000 },
    created_at: 1_767_225_600_000,
    updated_at: 1_767_225_600_001,
    version: 3,
    timers: NO_TIMERS,
  });
  return order as unknown as OrderRecord;
}

describe('order terms, packed', () => {
  it('unpack(pack(terms)) answers the same terms, whatever plain data they hold (seeded)', () => {
    fc.assert(
      fc.property(terms, (t) => {
        const back = unpackTerms(packTerms(t));
        const expected: Record<string, unknown> = { ...t };
        if (t.memo === undefined) delete expected.memo;
        expect(back).toStrictEqual(expected);
      }),
      seeded({ numRuns: 1_000 }),
    );
  });

  it('reads back frozen: a write to a term throws instead of being lost at the next decode', () => {
    const order = new StoredOrder(plainOrder(undefined));
    expect(Object.isFrozen(order.from)).toBe(true);
    expect(() => {
      (order.from as { amount: number }).amount = 1;
    }).toThrow(TypeError);
    expect(order.from.amount).toBe(100);
  });
});

describe('StoredOrder', () => {
  it('reads every field as the record it was made from, and snapshots to the same document, memo or none', () => {
    for (const memo of [undefined, 'a memo']) {
      const plain = plainOrder(memo);
      const stored = new StoredOrder(plain);
      const other = new StoredOrder(plainOrder('another'));
      for (const key of Object.keys(plain) as Array<keyof OrderRecord>) {
        // Reading another order's terms between two reads (the one decoded order kept) changes nothing.
        void other.from;
        expect(stored[key]).toStrictEqual(plain[key]);
      }
      expect(stored.memo).toBe(memo);
      // What a snapshot held before terms were packed: the record without its timers, in its key order.
      const { timers: _timers, ...rest } = plain;
      expect(orderSnapshotJson(stored)).toBe(JSON.stringify(rest));
      expect(orderSnapshot(stored)).toStrictEqual(JSON.parse(JSON.stringify(rest)));
      expect(Object.keys(orderSnapshot(stored))).toStrictEqual(Object.keys(rest));
    }
  });

  it('keeps the fields that change as fields of its own: a step writes them as before', () => {
    const stored = new StoredOrder(plainOrder(undefined));
    stored.status = 'completed';
    stored.version++;
    stored.payout = { refs: ['tx'], paidAt: 1, amount: 2, percentage: 100, state: 'sent' };
    stored.payout.state = 'reverted';
    expect(stored).toMatchObject({ status: 'completed', version: 4, payout: { state: 'reverted' } });
    expect(stored.from).toStrictEqual(plainOrder(undefined).from);
  });
});
