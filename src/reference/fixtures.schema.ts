import * as z from 'zod';

export const ENVIRONMENTS = ['test', 'live'] as const;
export type Environment = (typeof ENVIRONMENTS)[number];

const code = z.string().regex(/^[A-Z0-9]{2,10}$/, 'an upper-case code');

export const FiatFixtureSchema = z.object({
  id: z.number().int(),
  code,
  name: z.string().min(1),
  short_name: z.string().min(1),
  symbol: z.string().min(1),
  decimals: z.number().int().min(0).max(8),
  logo: z.url(),
  /** ISO 3166 alpha-2 country of the currency: used for institutions and lookup names. */
  country: z.string().regex(/^[A-Z]{2}$/),
});

export const CryptoFixtureSchema = z.object({
  id: z.number().int(),
  name: z.string().min(1),
  symbol: code,
  logo: z.url(),
  base_asset_code: z.string().nullable(),
  /** Amount precision the sandbox rounds this asset to (not a spec field; docs/calling-the-api.md, "Pricing"). */
  precision: z.number().int().min(0).max(18),
});

export const ADDRESS_FORMATS = ['evm', 'tron', 'solana'] as const;
export type AddressFormat = (typeof ADDRESS_FORMATS)[number];

export const NetworkFixtureSchema = z
  .object({
    id: z.number().int(),
    identifier: z.string().regex(/^[a-z0-9-]+$/),
    logo: z.url(),
    chain_id: z.number().int().nonnegative(),
    chain_id_hex: z.string().regex(/^0x[0-9a-f]+$/),
    explorer_url: z.url(),
    is_testnet: z.boolean(),
    is_evm: z.boolean(),
    /** How recipient and deposit addresses look on this network (not a spec field). */
    address_format: z.enum(ADDRESS_FORMATS),
    /** Symbols of the crypto currencies available on this network. */
    currencies: z.array(code).min(1),
    /** Network fee in USD, charged per order (not a spec field; docs/calling-the-api.md, "Pricing"). */
    network_fee_usd: z.number().nonnegative(),
  })
  .refine((n) => n.chain_id_hex === `0x${n.chain_id.toString(16)}`, {
    message: 'chain_id_hex must be 0x + lowercase hex of chain_id',
    path: ['chain_id_hex'],
  })
  .refine((n) => n.is_evm === (n.address_format === 'evm'), {
    message: 'is_evm must agree with address_format',
    path: ['is_evm'],
  });

export const InstitutionFixtureSchema = z.object({
  code: z.string().regex(/^[A-Za-z0-9-]{2,16}$/),
  name: z.string().min(1),
  type: z.enum(['bank', 'mobile_money']),
  country: z.string().regex(/^[A-Z]{2}$/),
});

export const RateFixtureSchema = z
  .object({ buy_rate: z.number().positive(), sell_rate: z.number().positive() })
  .refine((r) => r.buy_rate >= r.sell_rate, { message: 'buy_rate must be >= sell_rate' });

/** The five files of a fixtures directory, by file name. */
export const FixtureFilesSchema = {
  'fiat-currencies.json': z.array(FiatFixtureSchema).min(1),
  'crypto-currencies.json': z.array(CryptoFixtureSchema).min(1),
  'networks.json': z.object({ test: z.array(NetworkFixtureSchema), live: z.array(NetworkFixtureSchema) }),
  'institutions.json': z.record(code, z.array(InstitutionFixtureSchema)),
  'market-rates.json': z.record(z.string().regex(/^[A-Z0-9]+_[A-Z0-9]+$/), RateFixtureSchema),
} as const;

export type FiatFixture = z.output<typeof FiatFixtureSchema>;
export type CryptoFixture = z.output<typeof CryptoFixtureSchema>;
export type NetworkFixture = z.output<typeof NetworkFixtureSchema>;
export type InstitutionFixture = z.output<typeof InstitutionFixtureSchema>;
export type RateFixture = z.output<typeof RateFixtureSchema>;

export interface Fixtures {
  fiats: FiatFixture[];
  cryptos: CryptoFixture[];
  networks: Record<Environment, NetworkFixture[]>;
  institutions: Record<string, InstitutionFixture[]>;
  rates: Record<string, RateFixture>;
}
