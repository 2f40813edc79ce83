import * as fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { seeded } from '../../../test/support/property';
import { OrderSnapshotSchema, type OrderRecord, type OrderSnapshot } from '../model';
import { ORDER_STATUSES, type OrderStatus } from '../model';
import { createPlainStore, type Order, type OrderStore, type OrderStoreOptions, type Owner } from '.';

/**
 * The order store's contract (docs/decisions/028-plain-order-store.md), run against every
 * implementation, as hono runs one suite against every router: what a store answers is what a
 * model of plain records in a list answers, through any sequence of creates, updates, removes,
 * evictions, snapshots and restores (seeded: FC_SEED overrides, fast-check prints it on failure).
 */
const IMPLEMENTATIONS: Array<[name: string, make: (options: OrderStoreOptions) => OrderStore]> = [['plain', createPlainStore]];

const OWNERS: Owner[] = [
  { clientId: 'ptr_a', env: 'test' },
  { clientId: 'ptr_a', env: 'live' },
  { clientId: 'ptr_b', env: 'test' },
];

/** A valid order as intake drafts it (parsed by the snapshot schema: its fields, in its order). */
function draft(n: number, owner: Owner, status: OrderStatus, merchantReference: string | null, memo: boolean): OrderRecord {
  return OrderSnapshotSchema.parse({
    type: 'onramp',
    from: { currency: 'NGN', amount: 50_000 + n },
    to: { currency: 'USDT', network: 'base-sepolia', amount: 31.5 },
    pricing: { base_currency: 'USDT', quote_currency: 'NGN', exchange_rate: 1580.5 },
    fee: { currency: 'NGN', network_fee: 150, protocol_fee: 250, partner_fee: 0, vat: 30, total: 430, fee_in_rate: false },
    env: owner.env,
    clientId: owner.clientId,
    reference: `ORD${String(n).padStart(13, '0')}`,
    merchant_reference: merchantReference,
    customer_reference: 'cus_1',
    metadata: n % 3 === 0 ? { n, nested: { list: [1, 'two', null] } } : null,
    ...(memo ? { memo: `memo ${n}` } : {}),
    recipient: { kind: 'crypto', address: '0x52908400098527886E0F7030069857D2E4169EE7', network: 'base-sepolia' },
    payin: { kind: 'fiat', currency: 'NGN', institution_code: '058', account_number: '0123456789', account_name: 'ADA OBI' },
    payinRefs: [],
    payinExpiresAt: null,
    payinPaidAt: null,
    payout: null,
    refundTarget: { kind: 'fiat', institution_code: '058', account_number: '0123456789', account_name: 'ADA OBI' },
    refund: null,
    timeline: [{ group: 'status', event: 'initiated', details: null, at: 1_000 + n }],
    status,
    context: {
      due: 50_000 + n,
      precision: 2,
      hold: false,
      paid: 0,
      unconfirmed: 0,
      ratio: 0,
      refundDue: 0,
      refunded: 0,
      outcome: 'success',
      percentage: 100,
      autoPayin: null,
      payinClosesAfter: null,
    },
    created_at: 1_000 + n,
    updated_at: 1_000 + n,
    version: 0,
  });
}

/** The writes a sequence makes through `update`: each changes what a reader sees. */
const CHANGES: Array<(o: OrderRecord, n: number) => void> = [
  (o, n) =>
    void o.timeline.push({ group: 'webhook', event: 'order.created', details: n % 2 ? { delivery_id: `dlv_${n}` } : null, at: 2_000 + n }),
  (o, n) => void (o.status = ORDER_STATUSES[n % ORDER_STATUSES.length]!),
  (o, n) => void o.payinRefs.push(`BNK${n}`),
  (o, n) => void (o.payout = { refs: [`0x${n}`], paidAt: n, amount: n / 10, percentage: 100, state: 'sent' }),
  (o, n) => void (o.context = { ...o.context, paid: o.context.paid + n, outcome: 'fail' }),
  (o, n) => void (o.timeline.length > 0 && (o.timeline[0] = { ...o.timeline[0]!, details: { reason: `r${n}` } })),
  (o, n) => {
    o.updated_at = 5_000 + n;
    o.refund = { ref: null, refundedAt: null };
  },
  // A key the record did not have, added last: its document keeps the schema's order.
  (o, n) => void (o.memo = `memo ${n}`),
];

type Op =
  | { kind: 'create'; owner: number; status: number; merchant: number | null; memo: boolean; reversed: boolean }
  | { kind: 'update'; pick: number; change: number }
  | { kind: 'remove'; pick: number }
  | { kind: 'evict'; picks: number[] }
  | { kind: 'snapshotRestore' };

const op: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('create' as const),
      owner: fc.nat(OWNERS.length - 1),
      status: fc.nat(ORDER_STATUSES.length - 1),
      merchant: fc.option(fc.nat(5)),
      memo: fc.boolean(),
      reversed: fc.boolean(),
    }),
  },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('update' as const), pick: fc.nat(), change: fc.nat(CHANGES.length - 1) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('remove' as const), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('evict' as const), picks: fc.array(fc.nat(), { maxLength: 4 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('snapshotRestore' as const) }) },
);

/** The model: plain records in creation order, written in place. */
interface Model {
  orders: OrderRecord[];
  changes: string[];
}

const ownerOf = (o: Order): number => OWNERS.findIndex((w) => w.clientId === o.clientId && w.env === o.env);

/** Everything a reader can see of a store, against the model. */
function expectSame(store: OrderStore, model: Model): void {
  expect(store.size).toBe(model.orders.length);
  expect(store.orders.size).toBe(model.orders.length);
  expect([...store.scan()].map((o) => o.reference)).toEqual(model.orders.map((o) => o.reference));
  expect([...store.orders.keys()]).toEqual(model.orders.map((o) => o.reference));
  for (const o of model.orders) {
    expect(store.get(o.reference)).toStrictEqual(o);
    expect(store.has(o.reference)).toBe(true);
    if (o.merchant_reference !== null)
      expect(store.byMerchantReference(OWNERS[ownerOf(o)]!, o.merchant_reference)?.reference).toBe(o.reference);
  }
  expect(store.get('ORD_none')).toBeUndefined();
  const newest = [...model.orders].reverse();
  const refs = (list: readonly Order[]) => list.map((o) => o.reference);
  expect(refs(store.list({}))).toEqual(refs(newest));
  for (const owner of OWNERS) {
    const mine = newest.filter((o) => o.clientId === owner.clientId && o.env === owner.env);
    expect(refs(store.list(owner))).toEqual(refs(mine));
    expect(refs(store.list({ clientId: owner.clientId }))).toEqual(refs(newest.filter((o) => o.clientId === owner.clientId)));
    expect(refs(store.list({ env: owner.env }))).toEqual(refs(newest.filter((o) => o.env === owner.env)));
    for (const status of ['initiated', 'completed'] as const) {
      expect(refs(store.list({ ...owner, status }))).toEqual(refs(mine.filter((o) => o.status === status)));
      expect(refs(store.list({ status, type: 'onramp' }))).toEqual(refs(newest.filter((o) => o.status === status && o.type === 'onramp')));
    }
  }
  expect(store.list({ type: 'swap' })).toEqual([]);
  // The document: every order's fields in the schema's order, a memo only when there is one.
  const documents = model.orders.map((o) => JSON.stringify(OrderSnapshotSchema.parse(o)));
  expect([...store.snapshotJson()]).toEqual(documents);
  expect([...store.snapshot()]).toStrictEqual(documents.map((d) => JSON.parse(d) as OrderSnapshot));
}

describe.each(IMPLEMENTATIONS)('the order store contract: %s', (_name, make) => {
  it('answers what a list of plain records answers, through any creates, updates, removes, evictions, snapshots and restores (seeded)', () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 40 }), (ops) => {
        const changes: string[] = [];
        const store = make({ onChange: (reference) => changes.push(reference) });
        const model: Model = { orders: [], changes: [] };
        let n = 0;
        const pick = (i: number) => model.orders[i % model.orders.length]!;
        for (const step of ops) {
          switch (step.kind) {
            case 'create': {
              const owner = OWNERS[step.owner]!;
              const mref = step.merchant === null ? null : `inv-${step.merchant}`;
              // A merchant reference is an owner's once (intake refuses a second: CONTRACT §9).
              const taken = mref !== null && model.orders.some((o) => o.merchant_reference === mref && ownerOf(o) === step.owner);
              const drafted = draft(n++, owner, ORDER_STATUSES[step.status]!, taken ? null : mref, step.memo);
              // Some drafts with their keys in another order: the document keeps the schema's.
              const made = step.reversed ? (Object.fromEntries(Object.entries(drafted).reverse()) as OrderRecord) : drafted;
              model.orders.push(structuredClone(made));
              expect(store.create(made)).toStrictEqual(made);
              break;
            }
            case 'update': {
              if (model.orders.length === 0) break;
              const kept = pick(step.pick);
              const order = store.get(kept.reference)!;
              const result = store.update(order, (o) => {
                CHANGES[step.change]!(o, n);
                return o.reference;
              });
              CHANGES[step.change]!(kept, n++);
              kept.version++;
              model.changes.push(kept.reference);
              expect(result).toBe(kept.reference);
              // The order read before the write reads the write (a reader holds no stale copy).
              expect(store.get(kept.reference)).toStrictEqual(kept);
              break;
            }
            case 'remove': {
              if (model.orders.length === 0) break;
              const gone = pick(step.pick);
              store.remove(store.get(gone.reference)!);
              model.orders.splice(model.orders.indexOf(gone), 1);
              break;
            }
            case 'evict': {
              if (model.orders.length === 0) break;
              const gone = new Set(step.picks.map(pick));
              store.evict(new Set([...gone].map((o) => store.get(o.reference)!)));
              model.orders = model.orders.filter((o) => !gone.has(o));
              break;
            }
            case 'snapshotRestore': {
              const doc = JSON.parse(`[${[...store.snapshotJson()].join(',')}]`) as unknown[];
              store.clear();
              expect(store.size).toBe(0);
              store.restore(doc.map((d) => OrderSnapshotSchema.parse(d)));
              break;
            }
          }
          expectSame(store, model);
          expect(changes).toEqual(model.changes);
        }
      }),
      seeded({ numRuns: 60 }),
    );
  });

  it('refuses to keep a second order under a reference it keeps', () => {
    const store = make({});
    store.create(draft(1, OWNERS[0]!, 'initiated', null, false));
    expect(() => store.create(draft(1, OWNERS[0]!, 'initiated', null, false))).toThrow(/kept already/);
    expect(store.size).toBe(1);
  });

  it('keeps two stores apart: nothing written to one is seen by the other', () => {
    const [a, b] = [make({}), make({})];
    const order = a.create(draft(1, OWNERS[0]!, 'initiated', 'inv-1', false));
    a.update(order, (o) => void (o.status = 'completed'));
    expect(b.size).toBe(0);
    expect(b.byMerchantReference(OWNERS[0]!, 'inv-1')).toBeUndefined();
    b.create(draft(1, OWNERS[0]!, 'initiated', null, false));
    expect(a.get(order.reference)!.status).toBe('completed');
    expect(b.get(order.reference)!.status).toBe('initiated');
  });
});
