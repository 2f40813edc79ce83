import type { OrderRecord } from './order.records';
import { deepFreeze } from '../shared/freeze';

/**
 * An order's terms kept packed (docs/decisions/014-order-terms-packed.md): what an order fixes
 * at its creation and never changes (its legs, pricing, fee, references, recipient, pay-in and
 * refund targets, memo) as one flat string per stored order, read back through accessors.
 *
 * As objects, the terms were about twenty heap objects per order (seven objects, their boxed
 * amounts and their strings), half of what the old generation's marking walks for every stored
 * order while the store grows (decision 012). Packed, they are one string, which marking does
 * not look inside. A read decodes them once and keeps the last order's decoded terms, so a
 * render reading every field decodes once; decoded objects are frozen (nothing may write them:
 * a write would be lost at the next decode, and in strict mode it throws instead).
 */

/** The terms' fields: fixed when an order is created (no code writes them after). */
export interface OrderTerms {
  from: OrderRecord['from'];
  to: OrderRecord['to'];
  pricing: OrderRecord['pricing'];
  fee: OrderRecord['fee'];
  merchant_reference: OrderRecord['merchant_reference'];
  customer_reference: OrderRecord['customer_reference'];
  recipient: OrderRecord['recipient'];
  payin: OrderRecord['payin'];
  refundTarget: OrderRecord['refundTarget'];
  memo?: string | undefined;
}

/**
 * A stored order: the fields that change (status, context, timeline, pay-ins, payout, refund,
 * times, version, timers) and the identifying ones as fields of its own; the terms packed.
 * It is an `OrderRecord` to every reader; `order.state.ts` writes its snapshot field by field.
 */
export class StoredOrder implements OrderRecord {
  type: OrderRecord['type'];
  env: OrderRecord['env'];
  clientId: string;
  reference: string;
  metadata: OrderRecord['metadata'];
  payinRefs: OrderRecord['payinRefs'];
  payinExpiresAt: OrderRecord['payinExpiresAt'];
  payinPaidAt: OrderRecord['payinPaidAt'];
  payout: OrderRecord['payout'];
  refund: OrderRecord['refund'];
  timeline: OrderRecord['timeline'];
  status: OrderRecord['status'];
  context: OrderRecord['context'];
  created_at: number;
  updated_at: number;
  version: number;
  timers: OrderRecord['timers'];
  /** The terms, packed (`packTerms`): read them through the accessors. */
  readonly packedTerms: string;

  /** From a record as intake builds it or a restored snapshot holds it. */
  constructor(init: OrderRecord) {
    this.type = init.type;
    this.env = init.env;
    this.clientId = init.clientId;
    this.reference = init.reference;
    this.metadata = init.metadata;
    this.payinRefs = init.payinRefs;
    this.payinExpiresAt = init.payinExpiresAt;
    this.payinPaidAt = init.payinPaidAt;
    this.payout = init.payout;
    this.refund = init.refund;
    this.timeline = init.timeline;
    this.status = init.status;
    this.context = init.context;
    this.created_at = init.created_at;
    this.updated_at = init.updated_at;
    this.version = init.version;
    this.timers = init.timers;
    this.packedTerms = packTerms(init);
    // The terms as given are what the next read answers (a create renders its order at once):
    // frozen, as decoded ones are.
    lastTerms = deepFreeze({
      from: init.from,
      to: init.to,
      pricing: init.pricing,
      fee: init.fee,
      merchant_reference: init.merchant_reference,
      customer_reference: init.customer_reference,
      memo: init.memo,
      recipient: init.recipient,
      payin: init.payin,
      refundTarget: init.refundTarget,
    });
    lastOrder = this;
  }
}

/** The terms, read through accessors on the prototype (`TERM_FIELDS` below): fixed at creation, so read-only. */
export interface StoredOrder extends Readonly<Required<Omit<OrderTerms, 'memo'>>> {
  readonly memo: string | undefined;
}

/** The terms' fields, each an accessor of `StoredOrder` that reads the decoded terms. */
const TERM_FIELDS = ['from', 'to', 'pricing', 'fee', 'merchant_reference', 'customer_reference', 'memo', 'recipient', 'payin', 'refundTarget'] as const satisfies ReadonlyArray<keyof OrderTerms>;
for (const field of TERM_FIELDS) {
  Object.defineProperty(StoredOrder.prototype, field, {
    get(this: StoredOrder) {
      return termsOf(this)[field];
    },
    configurable: true,
  });
}

/** The order whose terms were decoded last, and those terms: a render reads a dozen fields of one order. */
let lastOrder: StoredOrder | undefined;
let lastTerms: OrderTerms | undefined;

function termsOf(order: StoredOrder): OrderTerms {
  if (lastOrder !== order) {
    lastTerms = unpackTerms(order.packedTerms);
    lastOrder = order;
  }
  return lastTerms!;
}

/** Forgets the last decoded terms (a reset drops every order: none is kept alive by this module). */
export function forgetDecodedTerms(): void {
  lastOrder = undefined;
  lastTerms = undefined;
}

/**
 * The terms, in a fixed order, as one JSON string: `[from, to, pricing, fee, merchant_reference,
 * customer_reference, recipient, payin, refundTarget, memo?]` (a memo there or not by the length).
 * JSON, as a state snapshot writes them: terms are validated data (strings, finite numbers,
 * booleans, null, plain objects), so they come back as they were.
 */
export function packTerms(t: OrderTerms): string {
  const json =
    t.memo === undefined
    ? JSON.stringify([t.from, t.to, t.pricing, t.fee, t.merchant_reference, t.customer_reference, t.recipient, t.payin, t.refundTarget])
      : JSON.stringify([t.from, t.to, t.pricing, t.fee, t.merchant_reference, t.customer_reference, t.recipient, t.payin, t.refundTarget, t.memo]);
  // V8 builds a long JSON text as a rope of its parts; reading a character flattens it in place,
  // and the GC then drops the rope's node: one flat string kept per order, not two objects.
  json.charCodeAt(0);
  return json;
}

/** The terms `packTerms` packed, as fresh frozen objects. */
export function unpackTerms(packed: string): OrderTerms {
  const a = deepFreeze(JSON.parse(packed) as unknown[]);
  const terms: OrderTerms = {
    from: a[0] as OrderTerms['from'],
    to: a[1] as OrderTerms['to'],
    pricing: a[2] as OrderTerms['pricing'],
    fee: a[3] as OrderTerms['fee'],
    merchant_reference: a[4] as OrderTerms['merchant_reference'],
    customer_reference: a[5] as OrderTerms['customer_reference'],
    recipient: a[6] as OrderTerms['recipient'],
    payin: a[7] as OrderTerms['payin'],
    refundTarget: a[8] as OrderTerms['refundTarget'],
  };
  if (a.length > 9) terms.memo = a[9] as string;
  return terms;
}
