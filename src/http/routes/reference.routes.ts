import * as z from 'zod';
import {
  AccountLookupQuerySchema,
  AccountLookupSchema,
  CryptoCurrencySchema,
  ExchangeRateQuerySchema,
  ExchangeRateSchema,
  FiatCurrencySchema,
  CryptoSymbolParamsSchema,
  IdentifierParamsSchema,
  InstitutionSchema,
  InstitutionsQuerySchema,
  MarketRateSchema,
  NetworkSchema,
  PairParamsSchema,
  type ReferenceStore,
} from '../../reference';
import { rawData, type Api, type RouteSpec } from '../api/api';
import { renderedOnce } from '../api/render-cache';
import { authOf } from '../edge/authenticate';

const read = { auth: 'read', tag: 'Reference data' } as const;

/** Spec §4.2 reference data, plus GET /v1/exchange-rate (CONTRACT §7). Public or secret key. */
export function registerReferenceRoutes(api: Api, deps: { reference: ReferenceStore }): void {
  const ref = deps.reference;
  // Reference lists never change while the sandbox runs: serialise each list once.
  const rendered = renderedOnce();
  const cached = (key: string, build: () => unknown) => rawData(rendered(key, build));
  const list = <D extends z.ZodType>(spec: Omit<RouteSpec<undefined, undefined, undefined, z.ZodArray<D>>, 'auth' | 'tag'>) => ({
    ...read,
    ...spec,
  });

  api.route(
    list({
      method: 'GET',
      path: '/v1/fiat-currencies',
      operationId: 'listFiatCurrencies',
      summary: 'Fiat currencies',
      data: z.array(FiatCurrencySchema),
      message: 'Fiat currencies retrieved',
    }),
    () => cached('fiat', () => ref.fiatCurrencies()),
  );
  api.route(
    list({
      method: 'GET',
      path: '/v1/crypto-currencies',
      operationId: 'listCryptoCurrencies',
      summary: 'Crypto currencies of the key’s environment',
      data: z.array(CryptoCurrencySchema),
      message: 'Crypto currencies retrieved',
    }),
    ({ ctx }) => {
      const env = authOf(ctx).env;
      return cached(`${env}|crypto`, () => ref.cryptoCurrencies(env));
    },
  );
  api.route(
    {
      ...read,
      method: 'GET',
      path: '/v1/crypto-currencies/{identifier}',
      operationId: 'getCryptoCurrency',
      summary: 'One crypto currency by symbol',
      params: CryptoSymbolParamsSchema,
      data: CryptoCurrencySchema,
      message: 'Crypto currency retrieved',
      errors: [404],
    },
    ({ ctx, params }) => ref.cryptoCurrency(authOf(ctx).env, params.identifier),
  );
  api.route(
    {
      ...read,
      method: 'GET',
      path: '/v1/crypto-currencies/{identifier}/networks',
      operationId: 'listCryptoCurrencyNetworks',
      summary: 'Networks where a crypto currency is available',
      params: CryptoSymbolParamsSchema,
      data: z.array(NetworkSchema),
      message: 'Networks retrieved',
      errors: [404],
    },
    ({ ctx, params }) => ref.cryptoNetworks(authOf(ctx).env, params.identifier),
  );
  api.route(
    list({
      method: 'GET',
      path: '/v1/networks',
      operationId: 'listNetworks',
      summary: 'Networks of the key’s environment',
      data: z.array(NetworkSchema),
      message: 'Networks retrieved',
    }),
    ({ ctx }) => {
      const env = authOf(ctx).env;
      return cached(`${env}|networks`, () => ref.networks(env));
    },
  );
  api.route(
    {
      ...read,
      method: 'GET',
      path: '/v1/networks/{identifier}',
      operationId: 'getNetwork',
      summary: 'One network',
      params: IdentifierParamsSchema,
      data: NetworkSchema,
      message: 'Network retrieved',
      errors: [404],
    },
    ({ ctx, params }) => ref.network(authOf(ctx).env, params.identifier),
  );
  api.route(
    {
      ...read,
      method: 'GET',
      path: '/v1/networks/{identifier}/crypto-currencies',
      operationId: 'listNetworkCryptoCurrencies',
      summary: 'Crypto currencies on a network',
      params: IdentifierParamsSchema,
      data: z.array(CryptoCurrencySchema),
      message: 'Crypto currencies retrieved',
      errors: [404],
    },
    ({ ctx, params }) => ref.networkCryptos(authOf(ctx).env, params.identifier),
  );
  api.route(
    {
      ...read,
      method: 'GET',
      path: '/v1/institutions',
      operationId: 'listInstitutions',
      summary: 'Institutions of a fiat currency',
      query: InstitutionsQuerySchema,
      data: z.array(InstitutionSchema),
      message: 'Institutions retrieved',
      errors: [404],
    },
    ({ query }) => ref.institutions(query.fiat),
  );
  api.route(
    {
      ...read,
      method: 'GET',
      path: '/v1/account-lookup',
      operationId: 'lookupAccount',
      summary: 'Resolve a bank account name',
      query: AccountLookupQuerySchema,
      data: AccountLookupSchema,
      message: 'Account resolved',
      errors: [404],
    },
    ({ query }) => ref.lookupAccount(query.bank_code, query.account_number),
  );
  api.route(
    {
      ...read,
      method: 'GET',
      path: '/v1/market-rates/{pair}',
      operationId: 'getMarketRate',
      summary: 'Aggregated buy and sell rate of a fiat/crypto pair',
      params: PairParamsSchema,
      data: MarketRateSchema,
      message: 'Market rate retrieved',
      errors: [404],
    },
    ({ params }) => ref.marketRate(params.pair),
  );
  api.route(
    {
      ...read,
      method: 'GET',
      path: '/v1/exchange-rate',
      operationId: 'getExchangeRate',
      summary: 'Rate between any two currencies (CONTRACT §7)',
      query: ExchangeRateQuerySchema,
      data: ExchangeRateSchema,
      message: 'Exchange rate retrieved',
      errors: [400, 404],
    },
    ({ ctx, query }) => ref.exchangeRate(authOf(ctx).env, query.from, query.to),
  );
}
