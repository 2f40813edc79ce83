import { z } from 'zod';
import { FeeSchema, OrderTypeSchema, PricedLegSchema, PricingSchema } from './pricing.schemas';
import { DateTime } from '../shared/schemas';
import { ORDER_STATUSES, PAYOUT_OUTCOMES, TIMELINE_GROUPS } from './order.vocabulary';

const MAX_AMOUNT = 1e12;

/** Spec §2.6 quote request leg (shape only; currency/network meaning is checked after). */
export const LegSchema = z.object({
  currency: z.string().trim().min(1).max(16).transform((s) => s.toUpperCase()),
  network: z.string().trim().min(1).max(64).transform((s) => s.toLowerCase()).optional(),
  amount: z
    .number()
    .gt(0, 'must be greater than 0')
    .max(MAX_AMOUNT, `must be at most ${MAX_AMOUNT}`)
    .optional(),
});
export type LegInput = z.output<typeof LegSchema>;

export const QuoteBodySchema = z.object({
  from: LegSchema,
  to: LegSchema,
  /** Sandbox extension: partner fee percent to price in (README "Pricing"). */
  partner_fee: z.number().min(0).max(10).optional(),
});
export type QuoteBody = z.output<typeof QuoteBodySchema>;

/** spec §2.4: DD-MM-YYYY, and a real calendar date. */
const Dob = z
  .string()
  .regex(/^\d{2}-\d{2}-\d{4}$/, 'must be DD-MM-YYYY')
  .refine((s) => {
    const [d, m, y] = s.split('-').map(Number) as [number, number, number];
    const date = new Date(Date.UTC(y, m - 1, d));
    return date.getUTCFullYear() === y && date.getUTCMonth() === m - 1 && date.getUTCDate() === d && y >= 1900;
  }, 'must be a real date in DD-MM-YYYY');

export const CustomerSchema = z.object({
  reference: z.string().trim().min(1).max(100),
  name: z.string().trim().min(1).max(200),
  email: z.email('must be an email address'),
  phone: z
    .string()
    .regex(/^\+?[0-9][0-9 ()-]{5,19}$/, 'must be a phone number of 6-20 digits, optionally starting with +')
    .optional(),
  dob: Dob.optional(),
  address: z.string().trim().min(1, 'must not be empty').max(500).optional(),
});
export type Customer = z.output<typeof CustomerSchema>;

export const FiatRecipientSchema = z.object({
  institution_code: z.string().trim().min(1).max(32),
  account_number: z.string().regex(/^\d{10}$/, 'must be exactly 10 digits'),
  account_name: z.string().trim().min(1).max(200),
  memo: z.string().max(200).optional(),
});
export type FiatRecipient = z.output<typeof FiatRecipientSchema>;

export const CryptoRecipientSchema = z.object({
  address: z.string().trim().min(1).max(200),
  memo: z.string().max(200).optional(),
});
export type CryptoRecipient = z.output<typeof CryptoRecipientSchema>;

export const CreateOrderBodySchema = z.object({
  quote_id: z.string().min(1).max(64).optional(),
  merchant_reference: z.string().trim().min(1).max(100).optional(),
  from: LegSchema.optional(),
  to: LegSchema.optional(),
  recipient: z.record(z.string(), z.unknown(), 'Invalid input: expected object'),
  refund: z.record(z.string(), z.unknown(), 'Invalid input: expected object').optional(),
  customer: CustomerSchema,
  partner_fee: z.number().min(0).max(10).optional(),
  provider_id: z.number().int().positive().optional(),
  metadata: z.record(z.string(), z.unknown(), 'Invalid input: expected object').nullable().optional(),
  memo: z.string().max(500).optional(),
});
export type CreateOrderBody = z.output<typeof CreateOrderBodySchema>;

export const CancelBodySchema = z.object({ reason: z.string().max(500).optional() });

export const FiatFulfilSchema = z.object({
  reference: z.string().trim().min(1).max(100),
  institution: z.string().trim().min(1).max(100),
});
export const CryptoFulfilSchema = z.object({ tx_hash: z.string().trim().min(1).max(200) });

export const INCLUDES = ['payout', 'timeline'] as const;
export type Include = (typeof INCLUDES)[number];

/** Every include, and none (shared sets: the parse below answers the common no-include case with NO_INCLUDES). */
export const ALL_INCLUDES: ReadonlySet<Include> = new Set(INCLUDES);
export const NO_INCLUDES: ReadonlySet<Include> = new Set();

export const IncludeQuerySchema = z.object({
  include: z
    .string()
    .optional()
    .transform((s, ctx): ReadonlySet<Include> => {
      // the common case (every poll of an order): no include, one shared empty set
      if (s === undefined || s === '') return NO_INCLUDES;
      const parts = s.split(',').map((p) => p.trim()).filter(Boolean);
      for (const p of parts) {
        if (!(INCLUDES as readonly string[]).includes(p)) {
          ctx.addIssue({ code: 'custom', message: `unknown value ${p}; supported: ${INCLUDES.join(', ')}` });
          return z.NEVER;
        }
      }
      return new Set(parts as Include[]);
    }),
});

const intParam = (name: string, min: number, max: number, fallback: number) =>
  z
    .string()
    .optional()
    .transform((s, ctx) => {
      if (s === undefined || s === '') return fallback;
      const n = Number(s);
      if (!/^\d+$/.test(s) || n < min || n > max) {
        ctx.addIssue({ code: 'custom', message: `${name} must be an integer from ${min} to ${max}` });
        return z.NEVER;
      }
      return n;
    });

/** CONTRACT §7 list orders. */
export const ListQuerySchema = z.object({
  status: z.enum(ORDER_STATUSES).optional(),
  page: intParam('page', 1, 1_000_000, 1),
  per_page: intParam('per_page', 1, 100, 20),
});
export type ListQuery = z.output<typeof ListQuerySchema>;

/** CONTRACT §4 control bodies. */
export const ControlPayinSchema = z.object({
  amount: z.number().gt(0, 'must be greater than 0').max(MAX_AMOUNT).optional(),
  tx_hash: z.string().trim().min(1).max(200).optional(),
  tx_reference: z.string().trim().min(1).max(100).optional(),
  confirmed: z.boolean().optional(),
});
export type ControlPayin = z.output<typeof ControlPayinSchema>;

export const ControlPayoutSchema = z
  .object({
    outcome: z.enum(PAYOUT_OUTCOMES),
    percentage: z.number().gt(0).lt(100).optional(),
  })
  .refine((b) => b.outcome !== 'partial' || b.percentage !== undefined, {
    message: 'required when outcome is partial (a number between 0 and 100, exclusive)',
    path: ['percentage'],
  })
  .refine((b) => b.outcome === 'partial' || b.percentage === undefined, {
    message: 'only allowed when outcome is partial',
    path: ['percentage'],
  });

// ---- responses (spec §2.2–§2.5); the views' types are inferred from these -------------------

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
    fee: FeeSchema.optional().meta({ description: 'omitted when the fee is embedded in pricing.exchange_rate (swaps)' }),
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

export const FiatRecipientResultSchema = FiatRecipientSchema.meta({ id: 'FiatRecipient' });
export const CryptoRecipientResultSchema = z
  .object({ network: z.string(), address: z.string(), memo: z.string().optional() })
  .meta({ id: 'CryptoRecipientResult' });

/** Where fiat or crypto moves (pay-in, payout, refund): the account or address and the amount. */
const FiatMoveBase = z.object({ currency: z.string(), account_name: z.string(), account_number: z.string(), institution_code: z.string(), amount: z.number() });
const CryptoMoveBase = z.object({ asset: z.string(), address: z.string(), network: z.string(), amount: z.number() });

export const FiatPayinSchema = FiatMoveBase
  .extend({
    tx_reference: TxRefs,
    expires_at: NullableDateTime,
    paid_at: NullableDateTime,
  })
  .meta({ id: 'FiatPayin' });
export const CryptoPayinSchema = CryptoMoveBase
  .extend({
    tx_hash: TxRefs,
    expires_at: NullableDateTime,
    paid_at: NullableDateTime,
  })
  .meta({ id: 'CryptoPayin' });

export const FiatPayoutSchema = FiatMoveBase
  .extend({
    percentage: z.number().nullable(),
    tx_reference: TxRefs,
    paid_at: NullableDateTime,
  })
  .meta({ id: 'FiatPayout' });
export const CryptoPayoutSchema = CryptoMoveBase
  .extend({
    percentage: z.number().nullable(),
    tx_hash: TxRefs,
    paid_at: NullableDateTime,
  })
  .meta({ id: 'CryptoPayout' });

export const FiatRefundSchema = FiatMoveBase
  .extend({
    tx_reference: z.string().nullable(),
    refunded_at: NullableDateTime,
  })
  .meta({ id: 'FiatRefund' });
export const CryptoRefundSchema = CryptoMoveBase
  .extend({
    tx_hash: z.string().nullable(),
    refunded_at: NullableDateTime,
  })
  .meta({ id: 'CryptoRefund' });

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
  payout: z.array(z.union([FiatPayoutSchema, CryptoPayoutSchema])).optional().meta({ description: 'with include=payout' }),
  refund: z.union([FiatRefundSchema, CryptoRefundSchema]).optional(),
  timeline: z.array(TimelineEntrySchema).optional().meta({ description: 'with include=timeline' }),
}).meta({ id: 'OrderDetail' });
export type OrderDetail = z.output<typeof OrderDetailSchema>;

export const ReferenceParamsSchema = z.object({ reference: z.string().meta({ description: 'the order reference' }) });
export type ControlPayout = z.output<typeof ControlPayoutSchema>;
