import type Router from '@koa/router';
import type { Context } from 'koa';
import { z } from 'zod';
import type { ReferenceStore } from '../../reference';
import { ok } from '../../shared/envelope';
import { parseOrThrow } from '../../shared/validation';
import { authOf, requireAuth, type AuthDeps } from '../middleware/authenticate';

const InstitutionsQuerySchema = z.object({ fiat: z.string().min(1) });
const AccountLookupQuerySchema = z.object({
  account_number: z.string().regex(/^\d{10}$/, 'must be exactly 10 digits'),
  bank_code: z.string().min(1),
});
const ExchangeRateQuerySchema = z.object({ from: z.string().min(1), to: z.string().min(1) });

/** Spec §4.2 reference data, plus GET /v1/exchange-rate (CONTRACT §7). Public or secret key. */
export function registerReferenceRoutes(router: Router, deps: AuthDeps & { reference: ReferenceStore }): void {
  const read = requireAuth(deps, 'read');
  const ref = deps.reference;
  // Reference lists never change while the sandbox runs: serialise each envelope once.
  const serialised = new Map<string, string>();
  const cached = (ctx: Context, key: string, build: () => unknown) => {
    let json = serialised.get(key);
    if (json === undefined) {
      json = JSON.stringify(build());
      serialised.set(key, json);
    }
    ctx.set('Content-Type', 'application/json; charset=utf-8'); // set directly: skips a MIME lookup
    ctx.body = json;
  };

  router.get('/v1/fiat-currencies', read, (ctx) => {
    cached(ctx, 'fiat', () => ok('Fiat currencies retrieved', ref.fiatCurrencies()));
  });
  router.get('/v1/crypto-currencies', read, (ctx) => {
    const env = authOf(ctx).env;
    cached(ctx, `${env}|crypto`, () => ok('Crypto currencies retrieved', ref.cryptoCurrencies(env)));
  });
  router.get('/v1/crypto-currencies/:identifier', read, (ctx) => {
    ctx.body = ok('Crypto currency retrieved', ref.cryptoCurrency(authOf(ctx).env, ctx.params.identifier!));
  });
  router.get('/v1/crypto-currencies/:identifier/networks', read, (ctx) => {
    ctx.body = ok('Networks retrieved', ref.cryptoNetworks(authOf(ctx).env, ctx.params.identifier!));
  });
  router.get('/v1/networks', read, (ctx) => {
    const env = authOf(ctx).env;
    cached(ctx, `${env}|networks`, () => ok('Networks retrieved', ref.networks(env)));
  });
  router.get('/v1/networks/:identifier', read, (ctx) => {
    ctx.body = ok('Network retrieved', ref.network(authOf(ctx).env, ctx.params.identifier!));
  });
  router.get('/v1/networks/:identifier/crypto-currencies', read, (ctx) => {
    ctx.body = ok('Crypto currencies retrieved', ref.networkCryptos(authOf(ctx).env, ctx.params.identifier!));
  });
  router.get('/v1/institutions', read, (ctx) => {
    const { fiat } = parseOrThrow(InstitutionsQuerySchema, ctx.query);
    ctx.body = ok('Institutions retrieved', ref.institutions(fiat));
  });
  router.get('/v1/account-lookup', read, (ctx) => {
    const q = parseOrThrow(AccountLookupQuerySchema, ctx.query);
    ctx.body = ok('Account resolved', ref.lookupAccount(q.bank_code, q.account_number));
  });
  router.get('/v1/market-rates/:pair', read, (ctx) => {
    ctx.body = ok('Market rate retrieved', ref.marketRate(ctx.params.pair!));
  });
  router.get('/v1/exchange-rate', read, (ctx) => {
    const q = parseOrThrow(ExchangeRateQuerySchema, ctx.query);
    ctx.body = ok('Exchange rate retrieved', ref.exchangeRate(authOf(ctx).env, q.from, q.to));
  });
}
