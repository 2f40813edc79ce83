import * as z from 'zod';
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
  .meta({
    id: 'FiatCurrency',
    example: {
      id: 1,
      code: 'NGN',
      name: 'Nigerian Naira',
      short_name: 'Naira',
      symbol: '₦',
      decimals: 2,
      logo: 'https://assets.ramp-sandbox.example/fiat/ngn.svg',
    },
  });
export type FiatCurrency = z.output<typeof FiatCurrencySchema>;

export const CryptoCurrencySchema = z
  .object({
    id: z.number().int(),
    name: z.string(),
    symbol: z.string(),
    logo: z.url(),
    base_asset_code: z.string().nullable(),
  })
  .meta({
    id: 'CryptoCurrency',
    example: {
      id: 1,
      name: 'Tether USD',
      symbol: 'USDT',
      logo: 'https://assets.ramp-sandbox.example/crypto/usdt.svg',
      base_asset_code: null,
    },
  });
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
  .meta({
    id: 'Network',
    example: {
      id: 1,
      identifier: 'base-sepolia',
      logo: 'https://assets.ramp-sandbox.example/networks/base.svg',
      chain_id: 84532,
      chain_id_hex: '0x14a34',
      explorer_url: 'https://sepolia.basescan.org',
      is_testnet: true,
      is_evm: true,
    },
  });
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
  .meta({ id: 'Institution', example: { code: '058', name: 'Guaranty Trust Bank', type: 'bank', country: 'NG', fiat: 'NGN' } });
export type Institution = z.output<typeof InstitutionSchema>;

export const AccountLookupSchema = z
  .object({ account_name: z.string(), account_number: z.string(), bank_code: z.string(), bank_name: z.string() })
  .meta({
    id: 'AccountLookup',
    example: { account_name: 'ADA OBI', account_number: '0123456789', bank_code: '058', bank_name: 'Guaranty Trust Bank' },
  });
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
  .meta({
    id: 'MarketRate',
    example: { pair: 'NGN_USDT', fiat: 'NGN', crypto: 'USDT', buy_rate: 1595.2, sell_rate: 1570.4, timestamp: '2026-01-15T12:00:00.000Z' },
  });
export type MarketRate = z.output<typeof MarketRateSchema>;

/** CONTRACT §7. */
export const ExchangeRateSchema = z
  .object({ from: z.string(), to: z.string(), rate: z.number(), timestamp: DateTime })
  .meta({ id: 'ExchangeRate', example: { from: 'NGN', to: 'USDT', rate: 0.000634, timestamp: '2026-01-15T12:00:00.000Z' } });
export type ExchangeRate = z.output<typeof ExchangeRateSchema>;

// ---- requests -------------------------------------------------------------------------------

export const IdentifierParamsSchema = z.object({
  identifier: z.string().min(1).meta({ description: 'network identifier or crypto symbol', example: 'base-sepolia' }),
});
export const CryptoSymbolParamsSchema = z.object({
  identifier: z.string().min(1).meta({ description: 'a crypto symbol', example: 'USDT' }),
});
export const PairParamsSchema = z.object({ pair: z.string().min(1).meta({ description: '`<fiat>_<crypto>`', example: 'NGN_USDT' }) });
export const InstitutionsQuerySchema = z.object({ fiat: z.string().min(1).meta({ description: 'a fiat code', example: 'NGN' }) });
export const AccountLookupQuerySchema = z.object({
  account_number: z
    .string()
    .regex(/^[0-9]{10}$/, 'must be exactly 10 digits')
    .meta({ example: '0123456789' }),
  bank_code: z.string().min(1).meta({ description: 'an institution code (GET /v1/institutions)', example: '058' }),
});
export const ExchangeRateQuerySchema = z.object({
  from: z.string().min(1).meta({ description: 'a fiat code or crypto symbol', example: 'NGN' }),
  to: z.string().min(1).meta({ description: 'a fiat code or crypto symbol', example: 'USDT' }),
});
