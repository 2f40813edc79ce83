import type { OrderRecord } from './order.records';
import { deepFreeze } from '../shared/freeze';
import { isFinal } from './order.vocabulary';
import { packState, packedTermsOf, unpackState, type OrderState } from './settled-state';
import { fromSlab, newSlab, SlabMove, toSlab } from './settled-slabs';

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
 * A settled order's changing fields join its terms in that one string (decision 018, below),
 * which moves off the heap into a shared slab once the order has stayed settled a while (020).
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
 * A stored order. Status, version, timers and the identifying fields are fields of its own;
 * the terms are packed (014). The fields that change (context, timeline, pay-ins, payout,
 * refund, times) are its own while it is live, and packed with the terms into one string once
 * it has settled (decision 018, `settle`), behind the same accessors. It is an `OrderRecord`
 * to every reader; `order.state.ts` writes its snapshot field by field.
 */
export class StoredOrder implements OrderRecord {
  type: OrderRecord['type'];
  env: OrderRecord['env'];
  clientId: string;
  reference: string;
  metadata: OrderRecord['metadata'];
  status: OrderRecord['status'];
  version: number;
  timers: OrderRecord['timers'];
  /**
   * While the order is settled (`settle`): its terms and changing fields, packed in one string
   * (`packState`), read through the accessors below; null while they are the fields of its own
   * that follow. Once it has stayed settled for `SETTLED_BEFORE_SLAB` more settles, that string
   * is a view of its bytes in a shared slab instead (decision 020, `toSlab`).
   */
  packedState: string | Buffer | null = null;
  /** The terms, packed (`packTerms`), while the order is live: read them through the accessors. */
  #terms: string | null;
  #created_at: number;
  #payinRefs: OrderRecord['payinRefs'] | null;
  #payinExpiresAt: OrderRecord['payinExpiresAt'];
  #payinPaidAt: OrderRecord['payinPaidAt'];
  #payout: OrderRecord['payout'];
  #refund: OrderRecord['refund'];
  #timeline: OrderRecord['timeline'] | null;
  #context: OrderRecord['context'] | null;
  #updated_at: number;

  /** From a record as intake builds it or a restored snapshot holds it. */
  constructor(init: OrderRecord) {
    this.type = init.type;
    this.env = init.env;
    this.clientId = init.clientId;
    this.reference = init.reference;
    this.metadata = init.metadata;
    this.status = init.status;
    this.version = init.version;
    this.timers = init.timers;
    this.#terms = packTerms(init);
    this.#created_at = init.created_at;
    this.#payinRefs = init.payinRefs;
    this.#payinExpiresAt = init.payinExpiresAt;
    this.#payinPaidAt = init.payinPaidAt;
    this.#payout = init.payout;
    this.#refund = init.refund;
    this.#timeline = init.timeline;
    this.#context = init.context;
    this.#updated_at = init.updated_at;
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

  // The changing fields: the order's own while it is live; while it is settled, read from its
  // packed state (decoded once for consecutive reads, frozen), and a write takes it out of its
  // packing first (`unsettle`), so nothing written is lost.
  get payinRefs(): OrderRecord['payinRefs'] {
    return this.packedState === null ? this.#payinRefs! : settledState(this).payinRefs;
  }
  set payinRefs(value: OrderRecord['payinRefs']) {
    this.unsettle();
    this.#payinRefs = value;
  }
  get payinExpiresAt(): OrderRecord['payinExpiresAt'] {
    return this.packedState === null ? this.#payinExpiresAt : settledState(this).payinExpiresAt;
  }
  set payinExpiresAt(value: OrderRecord['payinExpiresAt']) {
    this.unsettle();
    this.#payinExpiresAt = value;
  }
  get payinPaidAt(): OrderRecord['payinPaidAt'] {
    return this.packedState === null ? this.#payinPaidAt : settledState(this).payinPaidAt;
  }
  set payinPaidAt(value: OrderRecord['payinPaidAt']) {
    this.unsettle();
    this.#payinPaidAt = value;
  }
  get payout(): OrderRecord['payout'] {
    return this.packedState === null ? this.#payout : settledState(this).payout;
  }
  set payout(value: OrderRecord['payout']) {
    this.unsettle();
    this.#payout = value;
  }
  get refund(): OrderRecord['refund'] {
    return this.packedState === null ? this.#refund : settledState(this).refund;
  }
  set refund(value: OrderRecord['refund']) {
    this.unsettle();
    this.#refund = value;
  }
  get timeline(): OrderRecord['timeline'] {
    return this.packedState === null ? this.#timeline! : settledState(this).timeline;
  }
  set timeline(value: OrderRecord['timeline']) {
    this.unsettle();
    this.#timeline = value;
  }
  get context(): OrderRecord['context'] {
    return this.packedState === null ? this.#context! : settledState(this).context;
  }
  set context(value: OrderRecord['context']) {
    this.unsettle();
    this.#context = value;
  }
  /** The terms as `packTerms` packed them (the order's own, or part of its packed state). */
  get packedTerms(): string {
    return this.#terms ?? packedTermsOf(packedText(this.packedState!));
  }
  get created_at(): number {
    return this.packedState === null ? this.#created_at : settledState(this).created_at;
  }
  set created_at(value: number) {
    this.unsettle();
    this.#created_at = value;
  }
  get updated_at(): number {
    return this.packedState === null ? this.#updated_at : settledState(this).updated_at;
  }
  set updated_at(value: number) {
    this.unsettle();
    this.#updated_at = value;
  }

  /**
   * Packs the changing fields when the order is settled: in a final status, no timer pending
   * (decision 018). Nothing changes when it is not, when it is packed already, or when JSON
   * would not give its state back exactly.
   */
  settle(): void {
    if (this.packedState !== null || this.timers.length !== 0 || !isFinal(this.status)) return;
    const packed = packState({
      payinRefs: this.#payinRefs!,
      payinExpiresAt: this.#payinExpiresAt,
      payinPaidAt: this.#payinPaidAt,
      payout: this.#payout,
      refund: this.#refund,
      timeline: this.#timeline!,
      context: this.#context!,
      created_at: this.#created_at,
      updated_at: this.#updated_at,
    }, this.#terms!);
    if (packed === null) return;
    if (lastSettled === this) forgetSettledState();
    this.packedState = packed;
    slabMove.settled(this);
    this.#payinRefs = null;
    this.#payinExpiresAt = null;
    this.#payinPaidAt = null;
    this.#payout = null;
    this.#refund = null;
    this.#timeline = null;
    this.#context = null;
    this.#terms = null;
    this.#created_at = 0;
    this.#updated_at = 0;
  }

  /** Its changing fields as its own again (fresh, writable objects), before a write; live orders are left as they are. */
  unsettle(): void {
    if (this.packedState === null) return;
    const packed = packedText(this.packedState);
    const s = unpackState(packed, false);
    if (lastSettled === this) forgetSettledState();
    this.packedState = null;
    this.#terms = packedTermsOf(packed);
    this.#created_at = s.created_at;
    this.#payinRefs = s.payinRefs;
    this.#payinExpiresAt = s.payinExpiresAt;
    this.#payinPaidAt = s.payinPaidAt;
    this.#payout = s.payout;
    this.#refund = s.refund;
    this.#timeline = s.timeline;
    this.#context = s.context;
    this.#updated_at = s.updated_at;
  }

  /** Its packed state moved into a slab (decision 020), when it is still settled and not there already. */
  toSlab(): void {
    if (typeof this.packedState === 'string') this.packedState = toSlab(this.packedState);
  }
}

/**
 * Settles after which a settled order's packed string moves into a slab (decision 020): an
 * order written again within them (a webhook's outcome noted, a late pay-in) leaves no dead
 * bytes in a slab that other orders keep alive.
 */
export const SETTLED_BEFORE_SLAB = 4096;

const slabMove = new SlabMove<StoredOrder>(SETTLED_BEFORE_SLAB, (order) => order.toSlab());

/** A packed state as its text (a slab's view decoded). */
function packedText(packed: string | Buffer): string {
  return typeof packed === 'string' ? packed : fromSlab(packed);
}

/** The settled order whose state was decoded last, and that state (frozen): a render reads several fields of one order. */
let lastSettled: StoredOrder | undefined;
let lastSettledState: OrderState | undefined;

function settledState(order: StoredOrder): OrderState {
  if (lastSettled !== order) {
    lastSettledState = unpackState(packedText(order.packedState!), true);
    lastSettled = order;
  }
  return lastSettledState!;
}

function forgetSettledState(): void {
  lastSettled = undefined;
  lastSettledState = undefined;
}

/** Settles an order the store keeps (a `StoredOrder`; any other record is left as it is). */
export function settleOrder(order: OrderRecord): void {
  if (order instanceof StoredOrder) order.settle();
}

/**
 * The order with its changing fields its own, ready to be written in place (a timeline entry
 * pushed or changed, a payout's state): a settled order's read fields are frozen copies.
 */
export function unsettled<T extends OrderRecord>(order: T): T {
  if (order instanceof StoredOrder) order.unsettle();
  return order;
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
  forgetSettledState();
  slabMove.clear();
  newSlab();
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
