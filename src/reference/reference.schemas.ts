import { z } from 'zod';
import { DateTime } from '../shared/schemas';

/** Spec §2.7 wire shapes of reference data; the store's types are inferred from these. */
export const FiatCurrencySchema = z
  .object({
    id: z.number().int(),
    code: z.string(),
    name: z.string(),
    short_name: z.string(),
    symbol: z.string(),
    decimals: z.number().int().nonnegative(),
    logo: z.url(),
  })
  .meta({ id: 'FiatCurrency' });
export type FiatCurrency = z.output<typeof FiatCurrencySchema>;

export const CryptoCurrencySchema = z
  .object({
    id: z.number().int(),
    name: z.string(),
    symbol: z.string(),
    logo: z.url(),
    base_asset_code: z.string().nullable(),
  })
  .meta({ id: 'CryptoCurrency' });
export type CryptoCurrency = z.output<typeof CryptoCurrencySchema>;

export const NetworkSchema = z
  .object({
    id: z.number().int(),
    identifier: z.string(),
    logo: z.url(),
    chain_id: z.number().int(),
    chain_id_hex: z.string().regex(/^0x[0-9a-f]+$/),
    explorer_url: z.url(),
    is_testnet: z.boolean(),
    is_evm: z.boolean(),
  })
  .meta({ id: 'Network' });
export type Network = z.output<typeof NetworkSchema>;

/** CONTRACT §7. */
export const InstitutionSchema = z
  .object({
    code: z.string(),
    name: z.string(),
    type: z.enum(['bank', 'mobile_money']),
    country: z.string().length(2),
    fiat: z.string(),
  })
  .meta({ id: 'Institution' });
export type Institution = z.output<typeof InstitutionSchema>;

export const AccountLookupSchema = z
  .object({ account_name: z.string(), account_number: z.string(), bank_code: z.string(), bank_name: z.string() })
  .meta({ id: 'AccountLookup' });
export type AccountLookup = z.output<typeof AccountLookupSchema>;

/** CONTRACT §7. */
export const MarketRateSchema = z
  .object({
    pair: z.string(),
    fiat: z.string(),
    crypto: z.string(),
    buy_rate: z.number(),
    sell_rate: z.number(),
    timestamp: DateTime,
  })
  .meta({ id: 'MarketRate' });
export type MarketRate = z.output<typeof MarketRateSchema>;

/** CONTRACT §7. */
export const ExchangeRateSchema = z
  .object({ from: z.string(), to: z.string(), rate: z.number(), timestamp: DateTime })
  .meta({ id: 'ExchangeRate' });
export type ExchangeRate = z.output<typeof ExchangeRateSchema>;

// ---- requests -------------------------------------------------------------------------------

export const IdentifierParamsSchema = z.object({ identifier: z.string().meta({ description: 'network identifier or crypto symbol' }) });
export const PairParamsSchema = z.object({ pair: z.string().meta({ description: '`<fiat>_<crypto>`, e.g. NGN_USDT' }) });
export const InstitutionsQuerySchema = z.object({ fiat: z.string().min(1) });
export const AccountLookupQuerySchema = z.object({
  account_number: z.string().regex(/^\d{10}$/, 'must be exactly 10 digits'),
  bank_code: z.string().min(1),
});
export const ExchangeRateQuerySchema = z.object({ from: z.string().min(1), to: z.string().min(1) });
