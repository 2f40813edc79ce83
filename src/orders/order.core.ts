import type { Partner } from '../auth';
import type { VirtualClock } from '../clock';
import type { AddressFormat, Environment, ReferenceStore } from '../reference';
import { forbidden, validationError } from '../shared/errors';
import type { Ids } from '../shared/ids';
import { decimalPlaces } from '../shared/money';
import { createArtefacts } from './addresses';
import type { LifecycleTimings } from './order.machine';
import type { OrderStore } from './store';
import type { Precisions } from './order.view';

/** Who is calling /v1: the partner and the environment of its key. */
export interface Caller {
  partner: Partner;
  env: Environment;
}

export { ALL_INCLUDES, NO_INCLUDES } from './model';

/** What every part of the orders module reads: the clock, reference data, ids and the store. */
export interface OrdersCore {
  clock: VirtualClock;
  ref: ReferenceStore;
  ids: Ids;
  timings: LifecycleTimings;
  store: OrderStore;
  artefacts: ReturnType<typeof createArtefacts>;
  /** Decimal places of a currency (fiat `decimals`, crypto `precision`). */
  precisionOf(env: Environment, code: string): number;
  precisions(o: { env: Environment; from: { currency: string }; to: { currency: string } }): Precisions;
  formatOf(env: Environment, network: string): AddressFormat;
}

export function createCore(deps: {
  clock: VirtualClock;
  ref: ReferenceStore;
  ids: Ids;
  timings: LifecycleTimings;
  store: OrderStore;
}): OrdersCore {
  const { ref } = deps;
  const precisionOf = (env: Environment, code: string): number => ref.findFiat(code)?.decimals ?? ref.findCrypto(env, code)?.precision ?? 8;
  return {
    ...deps,
    artefacts: createArtefacts(deps.ids.draw),
    precisionOf,
    precisions: (o) => ({ from: precisionOf(o.env, o.from.currency), to: precisionOf(o.env, o.to.currency) }),
    formatOf: (env, network) => ref.addressFormat(env, network) ?? 'evm',
  };
}

/** Spec §4.1: quotes and orders need a KYB-approved account (403 otherwise). */
export function requireKyb(partner: Partner): void {
  if (partner.kyb_status !== 'approved') {
    throw forbidden(`Partner account is not KYB-approved (kyb_status ${partner.kyb_status}); quotes and orders need an approved account`);
  }
}

/** CONTRACT §9: an amount with more places than its currency's precision is a 422, not rounded. */
export function checkPrecision(field: string, amount: number, precision: number, currency: string): void {
  if (decimalPlaces(amount) > precision) {
    throw validationError(field, `${amount} has more than ${precision} decimal places, the precision of ${currency}`);
  }
}
