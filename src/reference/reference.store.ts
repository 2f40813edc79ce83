import { Faker, en, en_GH, en_NG, en_ZA, type LocaleDefinition } from '@faker-js/faker';
import { notFound, validationError } from '../shared/errors';
import { hashSeed } from '../shared/ids';
import { ISO, type Clock } from '../clock';
import type {
  AddressFormat,
  CryptoFixture,
  Environment,
  FiatFixture,
  Fixtures,
  InstitutionFixture,
  NetworkFixture,
} from './fixtures.schema';
import { lookupMagicAccount } from './magic';
import { createMarket, type Market, type MarketOptions } from './market';

import type { AccountLookup, CryptoCurrency, ExchangeRate, FiatCurrency, Institution, MarketRate, Network } from './reference.schemas';

export type { AccountLookup, CryptoCurrency, ExchangeRate, FiatCurrency, Institution, MarketRate, Network };

/** Read-only reference data per environment, with the lookups orders need. */
export interface ReferenceStore {
  fiatCurrencies(): FiatCurrency[];
  cryptoCurrencies(env: Environment): CryptoCurrency[];
  cryptoCurrency(env: Environment, symbol: string): CryptoCurrency;
  cryptoNetworks(env: Environment, symbol: string): Network[];
  networks(env: Environment): Network[];
  network(env: Environment, identifier: string): Network;
  networkCryptos(env: Environment, identifier: string): CryptoCurrency[];
  institutions(fiat: string): Institution[];
  /** The institution with `code`, or undefined. */
  findInstitution(code: string): Institution | undefined;
  lookupAccount(bankCode: string, accountNumber: string): AccountLookup;
  marketRate(pair: string): MarketRate;
  exchangeRate(env: Environment, from: string, to: string): ExchangeRate;

  /** Domain lookups (exact codes, as found in bodies). */
  findFiat(code: string): FiatFixture | undefined;
  findCrypto(env: Environment, symbol: string): CryptoFixture | undefined;
  findNetwork(env: Environment, identifier: string): NetworkFixture | undefined;
  isOnNetwork(env: Environment, symbol: string, network: string): boolean;
  addressFormat(env: Environment, network: string): AddressFormat | undefined;
  /** Mid rate in fiat per one unit of crypto. */
  midRate(fiat: string, crypto: string): number | undefined;
  rates(fiat: string, crypto: string): { buy_rate: number; sell_rate: number } | undefined;
  /** Symbol of the first crypto whose base asset is USD: the dollar reference for fees. */
  usdStablecoin(): string;
  /** Currencies: whether a code is a fiat code or a crypto symbol (any environment). */
  kindOf(code: string): 'fiat' | 'crypto' | undefined;
  /** Institutions of a fiat code (empty when unknown). */
  institutionsOf(fiat: string): Institution[];
  /** Where rates come from at each virtual instant (CONTRACT §22): fixed, a walk, scripts. */
  market: Market;
}

const ACCOUNT_NUMBER = /^\d{10}$/;
/** Account names kept by `lookupAccount` (first in, first out). */
const ACCOUNT_NAME_CACHE = 10_000;
const LOCALES: Record<string, LocaleDefinition[]> = {
  NG: [en_NG, en],
  GH: [en_GH, en],
  ZA: [en_ZA, en],
};

/** Builds the store; wire shapes are computed once here, not per request. */
export function createReferenceStore(
  fixtures: Fixtures,
  options: { seed: number; clock: Clock & { readonly start?: number }; market?: MarketOptions },
): ReferenceStore {
  const { seed, clock } = options;
  // CONTRACT §22: every rate read below is the market's at the virtual now.
  const market = createMarket(fixtures.rates, { seed, clock }, options.market);
  const fiats = fixtures.fiats.map(toFiat);
  const fiatByCode = new Map(fixtures.fiats.map((f) => [f.code, f]));
  const cryptoBySymbol = new Map(fixtures.cryptos.map((c) => [c.symbol, c]));

  const perEnv = Object.fromEntries(
    (['test', 'live'] as const).map((env) => {
      const nets = fixtures.networks[env];
      const symbols = new Set(nets.flatMap((n) => n.currencies));
      const cryptos = fixtures.cryptos.filter((c) => symbols.has(c.symbol));
      return [
        env,
        {
          networks: nets.map(toNetwork),
          networkById: new Map(nets.map((n) => [n.identifier, n])),
          cryptos: cryptos.map(toCrypto),
          cryptoSet: new Set(cryptos.map((c) => c.symbol)),
        },
      ];
    }),
  ) as Record<
    Environment,
    {
      networks: Network[];
      networkById: Map<string, NetworkFixture>;
      cryptos: CryptoCurrency[];
      cryptoSet: Set<string>;
    }
  >;

  const institutionsByFiat = new Map<string, Institution[]>();
  const institutionByCode = new Map<string, Institution>();
  for (const [fiat, list] of Object.entries(fixtures.institutions)) {
    const out = list.map((i: InstitutionFixture) => ({ ...i, fiat }));
    institutionsByFiat.set(fiat, out);
    for (const i of out) institutionByCode.set(i.code.toUpperCase(), i);
  }

  // A name is a pure function of (seed, bank, account number), and partners test with a handful
  // of accounts, every create of an offramp looking one up: the latest names are kept, a faker
  // re-seed and four draws saved on each (docs/decisions/003-account-name-cache.md).
  const accountNames = new Map<string, string>();
  const namer = new Map<string, Faker>();
  const fakerFor = (country: string) => {
    let f = namer.get(country);
    if (!f) {
      f = new Faker({ locale: LOCALES[country] ?? [en] });
      namer.set(country, f);
    }
    return f;
  };

  const usdStable = (fixtures.cryptos.find((c) => c.base_asset_code === 'USD') ?? fixtures.cryptos[0]!).symbol;
  const upper = (s: string) => s.trim().toUpperCase();
  const now = () => ISO(clock.now());

  const requireFiat = (code: string) => {
    const f = fiatByCode.get(upper(code));
    if (!f) throw notFound(`Fiat currency ${code} not found`);
    return f;
  };

  const requireCrypto = (env: Environment, symbol: string) => {
    const s = upper(symbol);
    const c = cryptoBySymbol.get(s);
    if (!c || !perEnv[env].cryptoSet.has(s)) throw notFound(`Crypto currency ${symbol} not found`);
    return c;
  };

  const requireNetwork = (env: Environment, identifier: string) => {
    const n = perEnv[env].networkById.get(identifier.trim().toLowerCase());
    if (!n) throw notFound(`Network ${identifier} not found`);
    return n;
  };

  const midRate = (fiat: string, crypto: string) => {
    const r = market.rates(`${fiat}_${crypto}`);
    return r ? (r.buy_rate + r.sell_rate) / 2 : undefined;
  };

  /** Value of one unit of `code` in the first fiat, the common denominator for cross rates. */
  const anchorFiat = fixtures.fiats[0]!.code;
  const anchorValue = (env: Environment, code: string): number => {
    const c = upper(code);
    if (fiatByCode.has(c)) {
      // one unit of fiat c, in anchor fiat: through the first crypto both are priced in
      const bridge = fixtures.cryptos[0]!.symbol;
      return midRate(anchorFiat, bridge)! / midRate(c, bridge)!;
    }
    requireCrypto(env, c);
    return midRate(anchorFiat, c)!;
  };

  return {
    fiatCurrencies: () => fiats,
    cryptoCurrencies: (env) => perEnv[env].cryptos,
    cryptoCurrency: (env, symbol) => toCrypto(requireCrypto(env, symbol)),
    cryptoNetworks: (env, symbol) => {
      const s = requireCrypto(env, symbol).symbol;
      return fixtures.networks[env].filter((n) => n.currencies.includes(s)).map(toNetwork);
    },
    networks: (env) => perEnv[env].networks,
    network: (env, identifier) => toNetwork(requireNetwork(env, identifier)),
    networkCryptos: (env, identifier) => {
      const n = requireNetwork(env, identifier);
      return n.currencies.map((s) => toCrypto(cryptoBySymbol.get(s)!));
    },
    institutions: (fiat) => institutionsByFiat.get(requireFiat(fiat).code) ?? [],
    findInstitution: (code) => institutionByCode.get(upper(code)),
    lookupAccount: (bankCode, accountNumber) => {
      if (!ACCOUNT_NUMBER.test(accountNumber)) throw validationError('account_number', 'must be exactly 10 digits');
      const bank = institutionByCode.get(upper(bankCode));
      if (!bank) throw notFound(`Institution ${bankCode} not found`);
      const magic = lookupMagicAccount(accountNumber);
      if (magic?.notFound) throw notFound(`Account ${accountNumber} not found at ${bank.name}`);
      const key = `${bank.code}|${accountNumber}`;
      let name = accountNames.get(key);
      if (name === undefined) {
        const faker = fakerFor(bank.country);
        faker.seed(hashSeed(seed, bank.code, accountNumber));
        name = `${faker.person.firstName()} ${faker.person.lastName()}`.toUpperCase();
        if (accountNames.size >= ACCOUNT_NAME_CACHE) accountNames.delete(accountNames.keys().next().value!);
        accountNames.set(key, name);
      }
      return { account_name: name, account_number: accountNumber, bank_code: bank.code, bank_name: bank.name };
    },
    marketRate: (pair) => {
      const [fiat, crypto, ...rest] = upper(pair).split('_');
      const rates = fiat && crypto && rest.length === 0 ? market.rates(`${fiat}_${crypto}`) : undefined;
      if (!rates) throw notFound(`Market pair ${pair} not found; use <fiat>_<crypto>, e.g. NGN_USDT`);
      return { pair: `${fiat}_${crypto}`, fiat: fiat!, crypto: crypto!, ...rates, timestamp: now() };
    },
    exchangeRate: (env, from, to) => {
      const f = upper(from);
      const t = upper(to);
      const check = (code: string, field: string) => {
        if (!fiatByCode.has(code) && !(cryptoBySymbol.has(code) && perEnv[env].cryptoSet.has(code))) {
          throw notFound(`${field}: currency ${code} not found`);
        }
      };
      check(f, 'from');
      check(t, 'to');
      const rate = anchorValue(env, f) / anchorValue(env, t);
      return { from: f, to: t, rate: roundRate(rate), timestamp: now() };
    },
    findFiat: (code) => fiatByCode.get(code),
    findCrypto: (env, symbol) => (perEnv[env].cryptoSet.has(symbol) ? cryptoBySymbol.get(symbol) : undefined),
    findNetwork: (env, identifier) => perEnv[env].networkById.get(identifier),
    isOnNetwork: (env, symbol, network) => perEnv[env].networkById.get(network)?.currencies.includes(symbol) ?? false,
    addressFormat: (env, network) => perEnv[env].networkById.get(network)?.address_format,
    midRate,
    rates: (fiat, crypto) => market.rates(`${fiat}_${crypto}`),
    usdStablecoin: () => usdStable,
    kindOf: (code) => (fiatByCode.has(code) ? 'fiat' : cryptoBySymbol.has(code) ? 'crypto' : undefined),
    institutionsOf: (fiat) => institutionsByFiat.get(fiat) ?? [],
    market,
  };
}

/** Eight significant digits: enough for any pair, readable for all. */
function roundRate(rate: number): number {
  return Number(rate.toPrecision(8));
}

function toFiat(f: FiatFixture): FiatCurrency {
  return { id: f.id, code: f.code, name: f.name, short_name: f.short_name, symbol: f.symbol, decimals: f.decimals, logo: f.logo };
}

function toCrypto(c: CryptoFixture): CryptoCurrency {
  return { id: c.id, name: c.name, symbol: c.symbol, logo: c.logo, base_asset_code: c.base_asset_code };
}

function toNetwork(n: NetworkFixture): Network {
  return {
    id: n.id,
    identifier: n.identifier,
    logo: n.logo,
    chain_id: n.chain_id,
    chain_id_hex: n.chain_id_hex,
    explorer_url: n.explorer_url,
    is_testnet: n.is_testnet,
    is_evm: n.is_evm,
  };
}
