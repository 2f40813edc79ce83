import * as z from 'zod';
import type { AddressFormat, Environment, ReferenceStore } from '../../reference';
import { ENVIRONMENTS } from '../../reference';
import {
  CryptoLegSchema,
  CryptoRecipientSchema,
  CustomerSchema,
  FiatLegSchema,
  FiatRecipientSchema,
  LegSchema,
  OrderSummarySchema,
  type CreateOrderBody,
  type LegInput,
} from '../../orders';
import { documentedAs, TRIMMED_PATTERN } from '../../shared/documented';

const fields = {
  client_id: z.string().min(1).meta({ description: 'the partner the order is made for', example: 'ptr_acme' }),
  environment: z.enum(ENVIRONMENTS).optional().meta({ description: 'default test' }),
  customer: CustomerSchema.optional(),
  merchant_reference: z.string().trim().min(1).max(100).optional().meta({ pattern: TRIMMED_PATTERN }),
  partner_fee: z.number().min(0).max(10).optional(),
};
const RECIPIENT = 'default: a valid account (offramp, bank 0123456789 at the fiat’s first institution) or address on the network';

/** `POST /sandbox/orders`: an order created for a partner without signing (CONTRACT §15 dashboard). */
export const ControlCreateOrderSchema = documentedAs(
  z.object({
    ...fields,
    from: LegSchema,
    to: LegSchema,
    recipient: z.record(z.string(), z.unknown(), 'Invalid input: expected object').optional().meta({ description: RECIPIENT }),
  }),
  // As POST /v1/orders from legs: their networks give the type, and so the recipient's kind.
  z
    .union([
      z
        .object({
          ...fields,
          from: FiatLegSchema,
          to: CryptoLegSchema,
          recipient: CryptoRecipientSchema.optional().meta({ description: RECIPIENT }),
        })
        .meta({
          id: 'SandboxCreateOnrampOrder',
          example: { client_id: 'ptr_acme', from: { currency: 'NGN', amount: 50000 }, to: { currency: 'USDT', network: 'base-sepolia' } },
        }),
      z
        .object({
          ...fields,
          from: CryptoLegSchema,
          to: FiatLegSchema,
          recipient: FiatRecipientSchema.optional().meta({ description: RECIPIENT }),
        })
        .meta({
          id: 'SandboxCreateOfframpOrder',
          example: { client_id: 'ptr_acme', from: { currency: 'USDT', network: 'base-sepolia', amount: 100 }, to: { currency: 'NGN' } },
        }),
      z
        .object({
          ...fields,
          from: CryptoLegSchema,
          to: CryptoLegSchema,
          recipient: CryptoRecipientSchema.optional().meta({ description: RECIPIENT }),
        })
        .meta({
          id: 'SandboxCreateSwapOrder',
          example: {
            client_id: 'ptr_acme',
            from: { currency: 'USDC', network: 'base-sepolia', amount: 100 },
            to: { currency: 'ETH', network: 'base-sepolia' },
          },
        }),
    ])
    .meta({
      id: 'SandboxCreateOrderBody',
      description: 'An order for any partner, unsigned; customer and recipient are filled in when not given',
    }),
);
export type ControlCreateOrder = z.output<typeof ControlCreateOrderSchema>;

/** An order summary with its owner, as the cross-partner list shows it. */
export const SandboxOrderSummarySchema = OrderSummarySchema.extend({
  client_id: z.string(),
  environment: z.enum(ENVIRONMENTS),
}).meta({ id: 'SandboxOrderSummary' });

/** A plain address of each format (any valid one will do: only the format is checked). */
const ADDRESSES: Record<AddressFormat, string> = {
  evm: '0x52908400098527886E0F7030069857D2E4169EE7',
  tron: 'TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU7',
  solana: '7EcDhSYGxXyscszYEp35KHN8vvw3svAuLKTzXwCFLtV',
};
const ACCOUNT_NUMBER = '0123456789';
const CUSTOMER = { reference: 'cus_dashboard', name: 'Ada Obi', email: 'ada@example.com' };

/**
 * The /v1 create-order body for a control create: what the caller gave, and a customer and a
 * recipient that pass the checks where it gave none (the legs decide the order type).
 */
export function createOrderBody(reference: ReferenceStore, env: Environment, b: ControlCreateOrder): CreateOrderBody {
  return {
    from: b.from,
    to: b.to,
    customer: b.customer ?? CUSTOMER,
    recipient: b.recipient ?? defaultRecipient(reference, env, b.from, b.to),
    ...(b.merchant_reference === undefined ? {} : { merchant_reference: b.merchant_reference }),
    ...(b.partner_fee === undefined ? {} : { partner_fee: b.partner_fee }),
  };
}

function defaultRecipient(reference: ReferenceStore, env: Environment, from: LegInput, to: LegInput): Record<string, unknown> {
  if (to.network === undefined) {
    // An offramp pays a bank account: the name must be the bank's (what an account lookup says).
    const bank = reference.institutionsOf(to.currency).find((i) => i.type === 'bank') ?? reference.institutionsOf(to.currency)[0];
    // No institution (a currency that is no fiat): a recipient of the right shape all the same, so
    // the create names what is wrong (the currency), not a recipient the caller never sent.
    if (!bank) return { institution_code: '-', account_number: ACCOUNT_NUMBER, account_name: CUSTOMER.name.toUpperCase() };
    let accountName = CUSTOMER.name.toUpperCase();
    try {
      accountName = reference.lookupAccount(bank.code, ACCOUNT_NUMBER).account_name;
    } catch {
      // the create answers with what is wrong
    }
    return { institution_code: bank.code, account_number: ACCOUNT_NUMBER, account_name: accountName };
  }
  const format = reference.addressFormat(env, to.network) ?? reference.addressFormat(env, from.network ?? '') ?? 'evm';
  return { address: ADDRESSES[format] };
}
