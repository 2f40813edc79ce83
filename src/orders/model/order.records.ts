import * as z from 'zod';
import { ENVIRONMENTS } from '../../reference/fixtures.schema';
import { FeeSchema, type OrderType, OrderTypeSchema, PricedLegSchema, PricingSchema } from './pricing.schemas';
import { ORDER_STATUSES, PAYOUT_OUTCOMES, TIMELINE_GROUPS } from './order.vocabulary';
import { CreateOrderBodySchema, CryptoRecipientSchema, FiatRecipientSchema } from './order.schemas';
import { DueInstant, Instant, MAX_INSTANT } from '../../shared/schemas';

/**
 * Orders and quotes as the store holds them: one schema each, the source of their types and
 * of the checks a state snapshot's orders and quotes go through (CONTRACT §13).
 */
/**
 * Amounts as stored: finite and within a bound far above any the routes let in (legs ≤ 1e12),
 * so sums, ratios and renders stay finite whatever a restored document says (issue 22).
 */
export const MAX_STORED_AMOUNT = 1e18;
const finite = z.number().finite().min(-MAX_STORED_AMOUNT).max(MAX_STORED_AMOUNT);
/**
 * A magic amount's automatic pay-in, as a fraction of what is due: the magic amounts' own are
 * 0.5, 1 and 1.1 (`src/reference/magic.ts`); a document may say up to this.
 */
export const MAX_AUTO_PAYIN_FRACTION = 2;
/**
 * Pay-ins an order adds up (and what it refunds of them): simulated ones up to the stored bound
 * (a larger one is a 422), and automatic ones of at most MAX_AUTO_PAYIN_FRACTION × what is due
 * while the order waits for its pay-in (which they end once they cover it): so at most 4× the bound.
 */
const paidAmount = z
  .number()
  .min(0)
  .max(4 * MAX_STORED_AMOUNT);
/** Decimal places: a currency's precision (toFixed takes 0..100; fixtures use at most 18). */
const Precision = z.number().int().nonnegative().max(18);

/** The machine's context: money state the guards need, amounts in the pay-in currency. */
const OrderContextSchema = z.object({
  /** Amount due (`from.amount`, above 0: ratios divide by it). */
  due: z.number().gt(0).max(MAX_STORED_AMOUNT),
  precision: Precision,
  /** Stay `initiated` for the provisioning delay (magic amount). */
  hold: z.boolean(),
  /** Confirmed pay-ins. */
  paid: paidAmount,
  /** Pay-ins seen but not confirmed. */
  unconfirmed: paidAmount,
  /** Fraction of the order settled (0..1). */
  ratio: z.number().min(0).max(1),
  refundDue: paidAmount,
  refunded: paidAmount,
  outcome: z.enum(PAYOUT_OUTCOMES),
  /** The share a payout pays out: 100, or a partial payout's (0..100, as its route takes it). */
  percentage: z.number().gt(0).max(100),
  /** A pay-in that arrives by itself a minute into the pay-in window (magic amounts), or null. */
  // (not finite.positive(): a minimum beside exclusiveMinimum is a mixed range in the document)
  autoPayin: z
    .object({ fraction: z.number().gt(0).max(MAX_AUTO_PAYIN_FRACTION), confirmed: z.boolean() })
    .nullable()
    .default(null),
  /** When the pay-in window closes by itself, in ms from the order's creation; set as it opens (null before). */
  payinClosesAfter: z.number().nonnegative().max(MAX_INSTANT).nullable().default(null),
});

export const TimelineRecordSchema = z
  .object({
    group: z.enum(TIMELINE_GROUPS),
    event: z.string(),
    details: z.record(z.string(), z.unknown()).nullable(),
    at: Instant,
  })
  // A status entry names the status entered: the order's path and lifecycle are read from them.
  .refine((t) => t.group !== 'status' || (ORDER_STATUSES as readonly string[]).includes(t.event), {
    path: ['event'],
    message: `a status entry's event must be a status (${ORDER_STATUSES.join(', ')})`,
  });

// Recipients as the routes take them (CONTRACT §13: a restored document obeys the same rules).
// The variants are named, so the document's discriminator on `kind` can refer to them. Their keys
// are in the order intake drafts them (`kind` first), so a restored document is saved back the same.
const FiatTarget = z.object({ kind: z.literal('fiat'), ...FiatRecipientSchema.shape }).meta({ id: 'StateFiatTarget' });
const CryptoTarget = z
  .object({ kind: z.literal('crypto'), network: z.string().min(1).max(64), ...CryptoRecipientSchema.shape })
  .meta({ id: 'StateCryptoTarget' });
export const RecipientSchema = z.discriminatedUnion('kind', [FiatTarget, CryptoTarget]);
const PayinSchema = z.discriminatedUnion('kind', [
  z
    .object({
      kind: z.literal('fiat'),
      currency: z.string(),
      institution_code: z.string(),
      account_number: z.string(),
      account_name: z.string(),
    })
    .meta({ id: 'StateFiatPayin' }),
  z.object({ kind: z.literal('crypto'), asset: z.string(), network: z.string(), address: z.string() }).meta({ id: 'StateCryptoPayin' }),
]);

// A leg's amount is above 0, as pricing makes it (`amount is too small` otherwise).
const StoredLeg = PricedLegSchema.extend({ amount: z.number().gt(0).max(MAX_STORED_AMOUNT) });
const StoredPricing = PricingSchema.extend({ exchange_rate: finite });
const StoredFee = FeeSchema.extend({ network_fee: finite, protocol_fee: finite, partner_fee: finite, vat: finite, total: finite });
const PricedSchema = z.object({ type: OrderTypeSchema, from: StoredLeg, to: StoredLeg, pricing: StoredPricing, fee: StoredFee });

export const OrderSnapshotSchema = PricedSchema.extend({
  env: z.enum(ENVIRONMENTS),
  clientId: z.string().min(1),
  reference: z.string().min(1),
  merchant_reference: z.string().min(1).max(100).nullable(),
  customer_reference: z.string().min(1).max(100).nullable(),
  metadata: z.record(z.string(), z.unknown()).nullable(),
  memo: CreateOrderBodySchema.shape.memo,
  recipient: RecipientSchema,
  payin: PayinSchema,
  payinRefs: z.array(z.string()),
  // Set ahead of the clock: near its ceiling, past it (CONTRACT §13: what is saved loads again).
  payinExpiresAt: DueInstant.nullable(),
  payinPaidAt: Instant.nullable(),
  payout: z
    .object({
      refs: z.array(z.string()),
      paidAt: Instant.nullable(),
      amount: finite,
      /** The share settled, in percent (the order's `ratio` × 100). */
      percentage: z.number().min(0).max(100),
      state: z.enum(['sent', 'failed', 'reverted']),
    })
    .nullable(),
  refundTarget: RecipientSchema,
  refund: z.object({ ref: z.string().nullable(), refundedAt: Instant.nullable() }).nullable(),
  timeline: z.array(TimelineRecordSchema),
  status: z.enum(ORDER_STATUSES),
  context: OrderContextSchema,
  created_at: Instant,
  updated_at: Instant,
  version: z.number().int().nonnegative(),
});

/**
 * The status an order's timeline last entered (undefined for a timeline without one). A saved
 * order's `status` is this one: the machine is restored from `status`, so a status edited by hand
 * alone would show one the order never reached, whose webhook was never sent.
 */
export function lastStatusEntered(timeline: ReadonlyArray<{ group: string; event: string }>): string | undefined {
  for (let i = timeline.length - 1; i >= 0; i--) if (timeline[i]!.group === 'status') return timeline[i]!.event;
  return undefined;
}

/**
 * Where an order's or a quote's parts do not have the shape its type gives them, as the routes
 * make them (spec §4.1): onramp fiat → crypto, offramp crypto → fiat, swap crypto → crypto; a
 * crypto leg names its network, a fiat leg none; the pay-in and the refund are on the `from`
 * side, the recipient on the `to` side. Undefined when every part fits (nothing is made then:
 * a restore asks it of every order).
 */
export function shapeMisfit(o: {
  type: OrderType;
  from: { network?: string | undefined };
  to: { network?: string | undefined };
  payin?: { kind: Side };
  recipient?: { kind: Side };
  refundTarget?: { kind: Side };
}): { path: string; message: string } | undefined {
  const fromSide: Side = o.type === 'onramp' ? 'fiat' : 'crypto';
  const toSide: Side = o.type === 'offramp' ? 'fiat' : 'crypto';
  const misfit = (path: string, want: Side) => {
    const what = path.endsWith('network') ? `a ${want} leg (${want === 'fiat' ? 'no network' : 'with its network'})` : want;
    return { path, message: `must be ${what} for ${o.type === 'onramp' ? 'an' : 'a'} ${o.type} (${o.type} is ${fromSide} → ${toSide})` };
  };
  if ((o.from.network === undefined ? 'fiat' : 'crypto') !== fromSide) return misfit('from.network', fromSide);
  if ((o.to.network === undefined ? 'fiat' : 'crypto') !== toSide) return misfit('to.network', toSide);
  if (o.payin !== undefined && o.payin.kind !== fromSide) return misfit('payin.kind', fromSide);
  if (o.recipient !== undefined && o.recipient.kind !== toSide) return misfit('recipient.kind', toSide);
  if (o.refundTarget !== undefined && o.refundTarget.kind !== fromSide) return misfit('refundTarget.kind', fromSide);
  return undefined;
}
type Side = 'fiat' | 'crypto';

const MagicSchema = z.discriminatedUnion('kind', [
  z
    .object({ kind: z.literal('auto_payin'), fraction: z.number().gt(0).max(MAX_AUTO_PAYIN_FRACTION), confirmed: z.boolean() })
    .meta({ id: 'StateAutoPayin' }),
  z.object({ kind: z.literal('hold_initiated') }).meta({ id: 'StateHoldInitiated' }),
]);

export const QuoteSnapshotSchema = PricedSchema.extend({
  quote_id: z.string().min(1),
  env: z.enum(ENVIRONMENTS),
  clientId: z.string().min(1),
  partnerFeePercent: finite,
  magic: MagicSchema.optional(),
  created_at: Instant,
  expires_at: DueInstant,
  used: z.boolean(),
});

export type OrderContextRecord = z.output<typeof OrderContextSchema>;
/** The machine's context as the store holds it. */
export type OrderContext = OrderContextRecord;
export type TimelineRecord = z.output<typeof TimelineRecordSchema>;
export type Recipient = z.output<typeof RecipientSchema>;
export type PayinTarget = z.output<typeof PayinSchema>;

/** An order as a state snapshot holds it. */
export type OrderSnapshot = z.output<typeof OrderSnapshotSchema>;
/**
 * One order as the store keeps it and as a state snapshot holds it: plain data, its machine
 * status and context (no live actor). Its pending timers are the lifecycle's (they are handles
 * on the clock, not the order's data). Written only through the store's `update`.
 */
export type OrderRecord = OrderSnapshot;
/**
 * An order as the store hands it to readers, read-only all the way down: a write compiles only
 * inside the store's `update(order, (o) => …)`, where `o` is the `OrderRecord` to write.
 */
export type Order = DeepReadonly<OrderRecord>;

/** `T` with every field and list read-only, however deep. */
export type DeepReadonly<T> = T extends readonly (infer U)[]
  ? ReadonlyArray<DeepReadonly<U>>
  : T extends object
    ? { readonly [K in keyof T]: DeepReadonly<T[K]> }
    : T;
export type QuoteRecord = z.output<typeof QuoteSnapshotSchema>;
