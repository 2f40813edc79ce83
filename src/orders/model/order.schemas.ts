// What the order routes parse: request bodies, queries and path parameters (spec §4, CONTRACT
// §4 and §7). What they answer is described in order.responses.ts.
import * as z from 'zod';
import { documentedAs, EMAIL_PATTERN, ruledOut, TEXT_PATTERN, TRIMMED_PATTERN } from '../../shared/documented';
import { ORDER_STATUSES, PAYOUT_OUTCOMES } from './order.vocabulary';

const MAX_AMOUNT = 1e12;

/** A string trimmed before its length is checked; documented as one that needs no trimming. */
const trimmed = (max: number) => z.string().trim().min(1).max(max).meta({ pattern: TRIMMED_PATTERN });
/** Free text up to `max` characters (documented: of the Basic Multilingual Plane, see TEXT_PATTERN). */
const text = (max: number) => z.string().max(max).meta({ pattern: TEXT_PATTERN });

const Currency = trimmed(16)
  .transform((s) => s.toUpperCase())
  .meta({ description: 'a fiat code (GET /v1/fiat-currencies) or a crypto symbol (GET /v1/crypto-currencies)', example: 'USDT' });
const Network = trimmed(64)
  .transform((s) => s.toLowerCase())
  .meta({ description: 'a network identifier (GET /v1/networks): on crypto legs only', example: 'base-sepolia' });
const LegAmount = z
  .number()
  .gt(0, 'must be greater than 0')
  .max(MAX_AMOUNT, `must be at most ${MAX_AMOUNT}`)
  .meta({ description: "on exactly one leg (400 otherwise); at most the currency's precision in decimal places", example: 100 });

/** Spec §2.6 quote request leg (shape only; currency/network meaning is checked after). */
export const LegSchema = z.object({ currency: Currency, network: Network.optional(), amount: LegAmount.optional() }).meta({
  id: 'QuoteRequestLeg',
  description: 'Spec §2.6: `network` is required for a crypto currency and must be omitted for a fiat one',
  example: { currency: 'USDT', network: 'base-sepolia', amount: 100 },
});
export type LegInput = z.output<typeof LegSchema>;

/** A fiat leg as the document states it (create order): no `network`. */
export const FiatLegSchema = z.object({ currency: Currency.meta({ example: 'NGN' }), amount: LegAmount.optional() }).meta({
  id: 'FiatLeg',
  description: 'A fiat leg: a fiat code, no network',
  ...ruledOut('network'),
  example: { currency: 'NGN', amount: 50000 },
});
/** A crypto leg as the document states it (create order): `network` required. */
export const CryptoLegSchema = z.object({ currency: Currency, network: Network, amount: LegAmount.optional() }).meta({
  id: 'CryptoLeg',
  description: 'A crypto leg: a crypto symbol and the network it travels on',
  example: { currency: 'USDT', network: 'base-sepolia' },
});

export const QuoteBodySchema = z
  .object({
    from: LegSchema,
    to: LegSchema,
    /** Sandbox extension: partner fee percent to price in (README "Pricing"). */
    partner_fee: z.number().min(0).max(10).optional().meta({ description: 'sandbox extension: a partner fee in percent, priced in' }),
  })
  .meta({
    id: 'QuoteBody',
    description:
      'Spec §4.1: the legs give the order type (onramp: fiat to crypto, offramp: crypto to fiat, swap: crypto to crypto on one network); `amount` on exactly one leg',
    example: { from: { currency: 'NGN', amount: 50000 }, to: { currency: 'USDT', network: 'base-sepolia' } },
  });
export type QuoteBody = z.output<typeof QuoteBodySchema>;

/** spec §2.4: DD-MM-YYYY, and a real calendar date. */
const DD_MM = '(?:(?:0[1-9]|1[0-9]|2[0-8])-(?:0[1-9]|1[0-2])|(?:29|30)-(?:0[13-9]|1[0-2])|31-(?:0[13578]|1[02]))';
const LEAP_YEAR = '(?:(?:19|[2-9][0-9])(?:0[48]|[2468][048]|[13579][26])|(?:[2468][048]|[3579][26])00)';
/** Exactly the dates `Dob` accepts: a real calendar date in DD-MM-YYYY, year 1900 or later. */
export const DOB_PATTERN = `^(?:${DD_MM}-(?:19[0-9]{2}|[2-9][0-9]{3})|29-02-${LEAP_YEAR})$`;
const Dob = z
  .string()
  .regex(/^[0-9]{2}-[0-9]{2}-[0-9]{4}$/, 'must be DD-MM-YYYY')
  .refine((s) => {
    const [d, m, y] = s.split('-').map(Number) as [number, number, number];
    const date = new Date(Date.UTC(y, m - 1, d));
    return date.getUTCFullYear() === y && date.getUTCMonth() === m - 1 && date.getUTCDate() === d && y >= 1900;
  }, 'must be a real date in DD-MM-YYYY')
  .meta({ pattern: DOB_PATTERN, description: 'a real date, DD-MM-YYYY, from 1900', example: '14-02-1990' });

export const CustomerSchema = z
  .object({
    reference: trimmed(100).meta({ example: 'cus_1001' }),
    name: trimmed(200).meta({ example: 'Ada Obi' }),
    email: z.email('must be an email address').meta({ pattern: EMAIL_PATTERN, example: 'ada@example.com' }),
    phone: z
      .string()
      .regex(/^\+?[0-9][0-9 ()-]{5,19}$/, 'must be a phone number of 6-20 digits, optionally starting with +')
      .optional()
      .meta({ example: '+2348012345678' }),
    dob: Dob.optional(),
    address: z
      .string()
      .trim()
      .min(1, 'must not be empty')
      .max(500)
      .optional()
      .meta({ pattern: TRIMMED_PATTERN, example: '12 Marina Road, Lagos' }),
  })
  .meta({ id: 'Customer', example: { reference: 'cus_1001', name: 'Ada Obi', email: 'ada@example.com', dob: '14-02-1990' } });
export type Customer = z.output<typeof CustomerSchema>;

const Memo = text(200).meta({ description: 'on-chain memo or payment narration' });

export const FiatRecipientSchema = z
  .object({
    institution_code: trimmed(32).meta({ description: 'an institution `code` (GET /v1/institutions)', example: '058' }),
    account_number: z
      .string()
      .regex(/^[0-9]{10}$/, 'must be exactly 10 digits')
      .meta({ example: '0123456789' }),
    account_name: trimmed(200).meta({
      description: 'as GET /v1/account-lookup gives it (case and repeated spaces ignored)',
      example: 'ADA OBI',
    }),
    memo: Memo.optional(),
  })
  .meta({ id: 'FiatRecipient', example: { institution_code: '058', account_number: '0123456789', account_name: 'ADA OBI' } });
export type FiatRecipient = z.output<typeof FiatRecipientSchema>;

export const CryptoRecipientSchema = z
  .object({
    address: trimmed(200).meta({
      description: "an address of the leg's network format",
      example: '0x52908400098527886E0F7030069857D2E4169EE7',
    }),
    memo: Memo.optional(),
  })
  .meta({ id: 'CryptoRecipient', example: { address: '0x52908400098527886E0F7030069857D2E4169EE7' } });
export type CryptoRecipient = z.output<typeof CryptoRecipientSchema>;

const QuoteId = z
  .string()
  .min(1)
  .max(64)
  .meta({ pattern: TEXT_PATTERN, description: 'from POST /v1/orders/quote, before it expires', example: 'qt_8fK2mQ9xL4bN7cR1vT3w' });
const MerchantReference = trimmed(100).meta({
  description: 'unique per partner and environment (409 when used)',
  example: 'inv-2026-0001',
});
const PartnerFee = z
  .number()
  .min(0)
  .max(10)
  .meta({ description: 'sandbox extension: a partner fee in percent, priced in (not with quote_id)', example: 1 });
const Metadata = z
  .record(z.string(), z.unknown(), 'Invalid input: expected object')
  .nullable()
  .meta({ description: 'free-form, nested at most 64 levels', example: { invoice: 'inv-2026-0001' } });

/** Spec §4.1 create order, as the server parses it; the rules between fields are checked by the intake. */
export const CreateOrderBodySchema = z.object({
  quote_id: QuoteId.optional(),
  merchant_reference: MerchantReference.optional(),
  from: LegSchema.optional(),
  to: LegSchema.optional(),
  recipient: z.record(z.string(), z.unknown(), 'Invalid input: expected object'),
  refund: z.record(z.string(), z.unknown(), 'Invalid input: expected object').optional(),
  customer: CustomerSchema,
  partner_fee: PartnerFee.optional(),
  provider_id: z.number().int().positive().optional().meta({ example: 1 }),
  metadata: Metadata.optional(),
  memo: text(500).optional(),
});
export type CreateOrderBody = z.output<typeof CreateOrderBodySchema>;

/** The fields every create-order body may carry. */
const orderFields = {
  merchant_reference: MerchantReference.optional(),
  customer: CustomerSchema,
  provider_id: z.number().int().positive().optional().meta({ example: 1 }),
  metadata: Metadata.optional(),
  memo: text(500).optional(),
};
const FiatOrCryptoRecipient = z.union([FiatRecipientSchema, CryptoRecipientSchema]);
const EXAMPLE_CUSTOMER = { reference: 'cus_1001', name: 'Ada Obi', email: 'ada@example.com' };

/**
 * Create order as the document states it (spec §4.1 rules 1-3): a quote, or legs whose networks
 * give the order type and so the recipient's kind (onramp and swap: an address; offramp: a
 * bank account) and the refund's (where the money came from).
 */
export const CreateOrderBodyDoc = z
  .union([
    z
      .object({
        quote_id: QuoteId,
        ...orderFields,
        recipient: FiatOrCryptoRecipient,
        refund: FiatOrCryptoRecipient.optional(),
      })
      .meta({
        id: 'CreateOrderFromQuote',
        description:
          "An order at a quote's pricing: the quote fixes the legs and the type (its recipient: a bank account for an offramp, else an address); no from, to or partner_fee (pass it when quoting)",
        ...ruledOut('from', 'to', 'partner_fee'),
        example: {
          quote_id: 'qt_8fK2mQ9xL4bN7cR1vT3w',
          recipient: { address: '0x52908400098527886E0F7030069857D2E4169EE7' },
          customer: EXAMPLE_CUSTOMER,
        },
      }),
    z
      .object({
        from: FiatLegSchema,
        to: CryptoLegSchema,
        ...orderFields,
        recipient: CryptoRecipientSchema,
        refund: FiatRecipientSchema.optional(),
        partner_fee: PartnerFee.optional(),
      })
      .meta({
        id: 'CreateOnrampOrder',
        ...ruledOut('quote_id'),
        description: 'Onramp: fiat in, crypto out to an address; a refund goes to a bank account',
        example: {
          merchant_reference: 'inv-2026-0001',
          from: { currency: 'NGN', amount: 50000 },
          to: { currency: 'USDT', network: 'base-sepolia' },
          recipient: { address: '0x52908400098527886E0F7030069857D2E4169EE7' },
          customer: EXAMPLE_CUSTOMER,
        },
      }),
    z
      .object({
        from: CryptoLegSchema,
        to: FiatLegSchema,
        ...orderFields,
        recipient: FiatRecipientSchema,
        refund: CryptoRecipientSchema.optional(),
        partner_fee: PartnerFee.optional(),
      })
      .meta({
        id: 'CreateOfframpOrder',
        ...ruledOut('quote_id'),
        description:
          'Offramp: crypto in, fiat out to a bank account (its name as GET /v1/account-lookup gives it); a refund goes to an address',
        example: {
          from: { currency: 'USDT', network: 'base-sepolia', amount: 100 },
          to: { currency: 'NGN' },
          recipient: { institution_code: '058', account_number: '0123456789', account_name: 'ADA OBI' },
          customer: EXAMPLE_CUSTOMER,
        },
      }),
    z
      .object({
        from: CryptoLegSchema,
        to: CryptoLegSchema,
        ...orderFields,
        recipient: CryptoRecipientSchema,
        refund: CryptoRecipientSchema.optional(),
        partner_fee: PartnerFee.optional(),
      })
      .meta({
        id: 'CreateSwapOrder',
        ...ruledOut('quote_id'),
        description: 'Swap: crypto to crypto on one network; recipient and refund are addresses',
        example: {
          from: { currency: 'USDC', network: 'base-sepolia', amount: 100 },
          to: { currency: 'ETH', network: 'base-sepolia' },
          recipient: { address: '0x52908400098527886E0F7030069857D2E4169EE7' },
          customer: EXAMPLE_CUSTOMER,
        },
      }),
  ])
  .meta({
    id: 'CreateOrderBody',
    description: 'Spec §4.1: either `quote_id`, or `from` and `to` legs (CONTRACT §3: unknown fields are ignored)',
    example: {
      merchant_reference: 'inv-2026-0001',
      from: { currency: 'NGN', amount: 50000 },
      to: { currency: 'USDT', network: 'base-sepolia' },
      recipient: { address: '0x52908400098527886E0F7030069857D2E4169EE7' },
      customer: EXAMPLE_CUSTOMER,
    },
  });
documentedAs(CreateOrderBodySchema, CreateOrderBodyDoc);

export const CancelBodySchema = z
  .object({ reason: text(500).optional().meta({ example: 'customer asked to cancel' }) })
  .meta({ id: 'CancelBody', example: { reason: 'customer asked to cancel' } });

export const FiatFulfilSchema = z
  .object({
    reference: trimmed(100).meta({ description: 'the bank transaction reference', example: 'TRF8803344556677881' }),
    institution: trimmed(100).meta({ description: 'the paying institution', example: '058' }),
  })
  .meta({
    id: 'FiatFulfilBody',
    description: 'Proof of a fiat pay-in (onramp)',
    example: { reference: 'TRF8803344556677881', institution: '058' },
  });
export const CryptoFulfilSchema = z
  .object({
    tx_hash: trimmed(200).meta({ description: "a transaction hash of the pay-in network's format", example: `0x${'ab'.repeat(32)}` }),
  })
  .meta({ id: 'CryptoFulfilBody', description: 'Proof of a crypto pay-in (offramp, swap)', example: { tx_hash: `0x${'ab'.repeat(32)}` } });

/** Fulfil as the document states it: the proof of the order's pay-in kind (checked by the handler against the order). */
export const FulfilBodySchema = z.union([FiatFulfilSchema, CryptoFulfilSchema]).meta({
  id: 'FulfillOrderBody',
  description: 'Spec §4.1: fiat pay-in (onramp) `reference` and `institution`; crypto pay-in (offramp, swap) `tx_hash`',
});

export const INCLUDES = ['payout', 'timeline'] as const;
export type Include = (typeof INCLUDES)[number];

/** Every include, and none (shared sets: the parse below answers the common no-include case with NO_INCLUDES). */
export const ALL_INCLUDES: ReadonlySet<Include> = new Set(INCLUDES);
export const NO_INCLUDES: ReadonlySet<Include> = new Set();

export const IncludeQuerySchema = z.object({
  // Spec §4.1 says comma-separated (`include=payout,timeline`); generated clients (openapi-fetch,
  // openapi-python-client) send an array parameter repeated (`include=payout&include=timeline`),
  // which the query string parses to an array: both are read alike (issue 6).
  include: z
    .union([z.string(), z.array(z.string())])
    .optional()
    .transform((v, ctx): ReadonlySet<Include> => {
      // the common case (every poll of an order): no include, one shared empty set
      if (v === undefined || v === '') return NO_INCLUDES;
      const parts = (typeof v === 'string' ? [v] : v)
        .flatMap((s) => s.split(','))
        .map((p) => p.trim())
        .filter(Boolean);
      for (const p of parts) {
        if (!(INCLUDES as readonly string[]).includes(p)) {
          ctx.addIssue({ code: 'custom', message: `unknown value ${p}; supported: ${INCLUDES.join(', ')}` });
          return z.NEVER;
        }
      }
      return new Set(parts as Include[]);
    })
    // Documented as generators send an array (`style: form, explode: true`, the OpenAPI default:
    // `include=payout&include=timeline`); the comma-separated form of spec §4.1 is said in words.
    .meta({
      type: 'array',
      items: { type: 'string', enum: [...INCLUDES] },
      description:
        '`payout`, `timeline`: repeated (`include=payout&include=timeline`) or comma-separated in one value (`include=payout,timeline`, spec §4.1); both are read alike',
      example: ['payout', 'timeline'],
      param: { style: 'form', explode: true },
    }),
});

/** The document's form of an integer query parameter from `min` to `max` (a digit string on the wire). */
const integerParam = (min: number, max: number, fallback: number) => ({
  type: 'integer' as const,
  minimum: min,
  maximum: max,
  default: fallback,
  example: fallback,
});

const intParam = (name: string, min: number, max: number, fallback: number) =>
  z
    .string()
    .optional()
    .transform((s, ctx) => {
      if (s === undefined || s === '') return fallback;
      const n = Number(s);
      if (!/^[0-9]+$/.test(s) || n < min || n > max) {
        ctx.addIssue({ code: 'custom', message: `${name} must be an integer from ${min} to ${max}` });
        return z.NEVER;
      }
      return n;
    })
    .meta(integerParam(min, max, fallback));

/** CONTRACT §7 list orders. */
export const ListQuerySchema = z.object({
  status: z.enum(ORDER_STATUSES).optional(),
  page: intParam('page', 1, 1_000_000, 1),
  per_page: intParam('per_page', 1, 100, 20),
});
export type ListQuery = z.output<typeof ListQuerySchema>;

/** CONTRACT §4 control bodies. */
const payinAmount = z
  .number()
  .gt(0, 'must be greater than 0')
  .max(MAX_AMOUNT)
  .optional()
  .meta({ description: "default: what is due; at most the currency's precision in decimal places", example: 50000 });
const payinConfirmed = z
  .boolean()
  .optional()
  .meta({ description: 'default true; false: seen but not confirmed (fulfil confirms it)', example: true });
const payinTxHash = trimmed(200).meta({
  description: "crypto pay-in only: a hash of the network's format",
  example: `0x${'ab'.repeat(32)}`,
});
const payinTxReference = trimmed(100).meta({ description: 'fiat pay-in only', example: 'TRF8803344556677881' });

/**
 * The pay-in body as the document states it: `tx_hash` (crypto), `tx_reference` (fiat) or no
 * proof, never both (the server refuses the other kind's field). Said as three variants of a
 * oneOf rather than a `not`: a fuzzer that builds "every property" objects could not satisfy the
 * `not` and retried for ever (Schemathesis's coverage phase hung on it, issue 6). The variant
 * without a proof lists its fields only (additionalProperties false), so one with a proof is not
 * also one without; the server ignores unknown fields, which the document does not promise here.
 */
const PayinBodyDoc = z
  .union([
    z
      .object({ amount: payinAmount, tx_hash: payinTxHash, confirmed: payinConfirmed })
      .meta({ id: 'PayinWithHash', description: 'A crypto pay-in with its transaction hash' }),
    z
      .object({ amount: payinAmount, tx_reference: payinTxReference, confirmed: payinConfirmed })
      .meta({ id: 'PayinWithReference', description: 'A fiat pay-in with its bank reference' }),
    z
      .strictObject({ amount: payinAmount, confirmed: payinConfirmed })
      .meta({ id: 'PayinWithoutProof', description: 'A pay-in with a proof made up by the sandbox' }),
  ])
  .meta({
    id: 'PayinBody',
    description: '`tx_hash` for a crypto pay-in, `tx_reference` for a fiat one (never both), or neither',
    example: { amount: 50000, confirmed: true },
  });

export const ControlPayinSchema = documentedAs(
  z.object({ amount: payinAmount, tx_hash: payinTxHash.optional(), tx_reference: payinTxReference.optional(), confirmed: payinConfirmed }),
  PayinBodyDoc,
);
export type ControlPayin = z.output<typeof ControlPayinSchema>;

export const ControlPayoutSchema = documentedAs(
  z
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
    }),
  z
    .discriminatedUnion('outcome', [
      z.object({ outcome: z.enum(['success', 'fail', 'revert'] as const satisfies readonly (typeof PAYOUT_OUTCOMES)[number][]) }).meta({
        id: 'PayoutOutcome',
        description: 'The payout succeeds, fails (the order is refunded) or is reverted; `percentage` only with partial',
        ...ruledOut('percentage'),
        example: { outcome: 'fail' },
      }),
      z
        .object({
          outcome: z.literal('partial'),
          percentage: z.number().gt(0).lt(100).meta({ description: 'the share paid out, between 0 and 100 (exclusive)', example: 60 }),
        })
        .meta({
          id: 'PartialPayoutOutcome',
          description: 'Part of the payout lands; the rest is refunded',
          example: { outcome: 'partial', percentage: 60 },
        }),
    ])
    .meta({ id: 'PayoutBody', description: "CONTRACT §4: how the order's payout ends" }),
);
export type ControlPayout = z.output<typeof ControlPayoutSchema>;

export const ReferenceParamsSchema = z.object({
  reference: z.string().min(1).meta({ description: 'the order reference', example: 'ORD4F7K2M9Q8X1B3' }),
});
