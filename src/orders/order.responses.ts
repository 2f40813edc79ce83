// What the order routes answer (spec §2.2–§2.5): quotes, order summaries and details, and the
// order-created webhook summary; the views' types are inferred from these. Requests are parsed
// with model/order.schemas.ts.
import * as z from 'zod';
import { FeeSchema, OrderTypeSchema, PricedLegSchema, PricingSchema } from './model';
import { DateTime } from '../shared/schemas';
import { documentedAs } from '../shared/documented';
import { FiatRecipientSchema } from './model';
import { ORDER_STATUSES, TIMELINE_GROUPS } from './model';

const TxRefs = z.array(z.string()).meta({ description: 'CONTRACT §7: [] before a payment' });
const NullableDateTime = DateTime.nullable();

/** Spec §2.5 quote. */
export const QuoteSchema = z
  .object({
    quote_id: z.string(),
    type: OrderTypeSchema,
    from: PricedLegSchema,
    to: PricedLegSchema,
    pricing: PricingSchema,
    fee: FeeSchema,
    timestamp: DateTime,
    ttl_in_seconds: z.number().int().positive(),
    provider_id: z.number().int(),
  })
  .meta({ id: 'Quote' });
export type Quote = z.output<typeof QuoteSchema>;

/** Spec §2.2 order summary: also the webhook `data`. */
export const OrderSummarySchema = z
  .object({
    reference: z.string(),
    merchant_reference: z.string().nullable(),
    customer_reference: z.string().nullable(),
    type: OrderTypeSchema,
    from: PricedLegSchema,
    to: PricedLegSchema,
    pricing: PricingSchema,
    // spec §2.2: omitted when the fee is embedded in pricing.exchange_rate (swaps). No description
    // here: one on the property would make the document copy OrderFee instead of referring to it.
    fee: FeeSchema.optional(),
    metadata: z.record(z.string(), z.unknown()).nullable(),
    amount_paid: z.number(),
    amount_settled: z.number(),
    amount_refunded: z.number(),
    percentage_settled: z.number(),
    status: z.enum(ORDER_STATUSES),
    created_at: DateTime,
    updated_at: DateTime,
  })
  .meta({ id: 'OrderSummary' });
export type OrderSummary = z.output<typeof OrderSummarySchema>;

const FiatRecipientResultSchema = FiatRecipientSchema.meta({ id: 'FiatRecipient' });
const CryptoRecipientResultSchema = z
  .object({ network: z.string(), address: z.string(), memo: z.string().optional() })
  .meta({ id: 'CryptoRecipientResult' });

/** Where fiat or crypto moves (pay-in, payout, refund): the account or address and the amount. */
const FiatMoveBase = z.object({
  currency: z.string(),
  account_name: z.string(),
  account_number: z.string(),
  institution_code: z.string(),
  amount: z.number(),
});
const CryptoMoveBase = z.object({ asset: z.string(), address: z.string(), network: z.string(), amount: z.number() });

const FiatPayinSchema = FiatMoveBase.extend({
  tx_reference: TxRefs,
  expires_at: NullableDateTime,
  paid_at: NullableDateTime,
}).meta({ id: 'FiatPayin' });
const CryptoPayinSchema = CryptoMoveBase.extend({
  tx_hash: TxRefs,
  expires_at: NullableDateTime,
  paid_at: NullableDateTime,
}).meta({ id: 'CryptoPayin' });

const FiatPayoutSchema = FiatMoveBase.extend({
  percentage: z.number().nullable(),
  tx_reference: TxRefs,
  paid_at: NullableDateTime,
}).meta({ id: 'FiatPayout' });
const CryptoPayoutSchema = CryptoMoveBase.extend({
  percentage: z.number().nullable(),
  tx_hash: TxRefs,
  paid_at: NullableDateTime,
}).meta({ id: 'CryptoPayout' });

const FiatRefundSchema = FiatMoveBase.extend({
  tx_reference: z.string().nullable(),
  refunded_at: NullableDateTime,
}).meta({ id: 'FiatRefund' });
const CryptoRefundSchema = CryptoMoveBase.extend({
  tx_hash: z.string().nullable(),
  refunded_at: NullableDateTime,
}).meta({ id: 'CryptoRefund' });

export const TimelineEntrySchema = z
  .object({
    group: z.enum(TIMELINE_GROUPS),
    event: z.string(),
    details: z.record(z.string(), z.unknown()).nullable(),
    created_at: DateTime,
  })
  .meta({ id: 'TimelineEntry' });
export type TimelineEntry = z.output<typeof TimelineEntrySchema>;

/** Spec §2.3 order detail: the summary plus recipient, payin, and payout/refund/timeline. */
export const OrderDetailSchema = OrderSummarySchema.extend({
  recipient: z.union([FiatRecipientResultSchema, CryptoRecipientResultSchema]),
  payin: z.union([FiatPayinSchema, CryptoPayinSchema]),
  payout: z
    .array(z.union([FiatPayoutSchema, CryptoPayoutSchema]))
    .optional()
    .meta({ description: 'with include=payout' }),
  refund: z.union([FiatRefundSchema, CryptoRefundSchema]).optional(),
  timeline: z.array(TimelineEntrySchema).optional().meta({ description: 'with include=timeline' }),
});
export type OrderDetail = z.output<typeof OrderDetailSchema>;

/** The detail of one order type: its `type` says which kind of recipient, pay-in, payout and refund it has. */
const detailOf = (
  type: (typeof OrderTypeSchema.options)[number],
  id: string,
  description: string,
  kinds: { recipient: z.ZodType; payin: z.ZodType; payout: z.ZodType; refund: z.ZodType },
) =>
  OrderSummarySchema.extend({
    type: z.literal(type),
    recipient: kinds.recipient,
    payin: kinds.payin,
    payout: z.array(kinds.payout).optional().meta({ description: 'with include=payout' }),
    refund: kinds.refund.optional(),
    timeline: z.array(TimelineEntrySchema).optional().meta({ description: 'with include=timeline' }),
  }).meta({ id, description });

/** The order detail as the document states it: one kind per order type, told apart by `type`. */
const OrderDetailDoc = z
  .discriminatedUnion('type', [
    detailOf('onramp', 'OnrampOrderDetail', "Onramp: a fiat pay-in, a crypto payout to the recipient's address, a fiat refund", {
      recipient: CryptoRecipientResultSchema,
      payin: FiatPayinSchema,
      payout: CryptoPayoutSchema,
      refund: FiatRefundSchema,
    }),
    detailOf('offramp', 'OfframpOrderDetail', "Offramp: a crypto pay-in, a fiat payout to the recipient's bank account, a crypto refund", {
      recipient: FiatRecipientResultSchema,
      payin: CryptoPayinSchema,
      payout: FiatPayoutSchema,
      refund: CryptoRefundSchema,
    }),
    detailOf('swap', 'SwapOrderDetail', 'Swap: crypto in and out on one network; the fee is in the rate', {
      recipient: CryptoRecipientResultSchema,
      payin: CryptoPayinSchema,
      payout: CryptoPayoutSchema,
      refund: CryptoRefundSchema,
    }),
  ])
  .meta({ id: 'OrderDetail', description: 'Spec §2.3: the summary with recipient, pay-in and refund; payout and timeline when included' });
documentedAs(OrderDetailSchema, OrderDetailDoc);

/** Spec §6.2: the order-created payload carries status `awaiting_user_payment`. */
export const OrderCreatedSummarySchema = OrderSummarySchema.extend({ status: z.literal('awaiting_user_payment') }).meta({
  id: 'OrderCreatedSummary',
  description: 'The order summary of an order.created payload: status awaiting_user_payment (spec §6.2)',
});
