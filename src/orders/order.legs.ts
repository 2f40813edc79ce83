import type { Leg, OrderType } from './pricing';
import type { Environment } from '../reference';
import { ApiError, badRequest, validationError } from '../shared/errors';
import { parseOrThrow } from '../shared/validation';
import { addressProblem } from './addresses';
import { checkPrecision, type OrdersCore } from './order.core';
import { CryptoRecipientSchema, FiatRecipientSchema, type CryptoRecipient, type FiatRecipient, type LegInput } from './model';
import type { OrderRecord, Recipient } from './model';

/**
 * Leg rules (spec §4.1, CONTRACT §3): shape first (422: network presence by currency kind),
 * then meaning (400: unknown currency or network, pair, amount on exactly one leg).
 */
export function checkLegs(core: OrdersCore, env: Environment, from: LegInput, to: LegInput, prefix = ''): OrderType {
  const { ref } = core;
  const legs = [
    ['from', from],
    ['to', to],
  ] as const;
  for (const [name, leg] of legs) {
    const kind = ref.kindOf(leg.currency);
    if (kind === 'fiat' && leg.network !== undefined) {
      throw validationError(`${prefix}${name}.network`, `must be omitted for fiat currency ${leg.currency}`);
    }
    if (kind === 'crypto' && leg.network === undefined) {
      throw validationError(`${prefix}${name}.network`, `required for crypto currency ${leg.currency}`);
    }
  }
  for (const [name, leg] of legs) {
    const kind = ref.kindOf(leg.currency);
    if (!kind || (kind === 'crypto' && !ref.findCrypto(env, leg.currency))) {
      throw badRequest(`${prefix}${name}.currency: unsupported currency ${leg.currency} in the ${env} environment`);
    }
    if (leg.network !== undefined) {
      if (!ref.findNetwork(env, leg.network)) {
        throw badRequest(`${prefix}${name}.network: unknown network ${leg.network} in the ${env} environment (GET /v1/networks)`);
      }
      if (!ref.isOnNetwork(env, leg.currency, leg.network)) {
        throw badRequest(
          `${prefix}${name}.currency: ${leg.currency} is not available on ${leg.network} (GET /v1/networks/${leg.network}/crypto-currencies)`,
        );
      }
    }
    if (leg.amount !== undefined) checkPrecision(`${prefix}${name}.amount`, leg.amount, core.precisionOf(env, leg.currency), leg.currency);
  }
  const fromFiat = from.network === undefined;
  const toFiat = to.network === undefined;
  if (fromFiat && toFiat) throw badRequest(`${prefix}from: fiat to fiat conversions are not supported`);
  const type: OrderType = fromFiat ? 'onramp' : toFiat ? 'offramp' : 'swap';
  if (type === 'swap') {
    if (from.network !== to.network) throw badRequest(`${prefix}to.network: a swap must stay on one network (${from.network})`);
    if (from.currency === to.currency) throw badRequest(`${prefix}to.currency: a swap needs two different currencies`);
  }
  const amounts = [from.amount, to.amount].filter((a) => a !== undefined).length;
  if (amounts !== 1) {
    throw badRequest(`${prefix}${amounts === 0 ? 'from.amount' : 'to.amount'}: set amount on exactly one leg (from or to)`);
  }
  return type;
}

/** The order type the legs' shape says, before their meaning is checked. */
export function shapeType(from: Leg, to: Leg): OrderType {
  return from.network === undefined ? 'onramp' : to.network === undefined ? 'offramp' : 'swap';
}

/** The recipient and refund in the shape the order type needs: fiat account or crypto address. */
export interface ShapedTargets {
  recipient: FiatRecipient | CryptoRecipient;
  refund: FiatRecipient | CryptoRecipient | undefined;
}

/** 422 when the recipient (and refund) do not have the shape the order type needs; else them, parsed. */
export function shapeTargets(type: OrderType, recipient: unknown, refund: unknown): ShapedTargets {
  return {
    recipient: parseOrThrow(type === 'offramp' ? FiatRecipientSchema : CryptoRecipientSchema, recipient, 'recipient'),
    refund: refund ? parseOrThrow(type === 'onramp' ? FiatRecipientSchema : CryptoRecipientSchema, refund, 'refund') : undefined,
  };
}

/** Where the payout goes (shaped for `type`): a bank account that exists under that name, or a valid address. */
export function checkRecipient(
  core: OrdersCore,
  env: Environment,
  type: OrderType,
  priced: { from: Leg; to: Leg },
  value: ShapedTargets['recipient'],
): Recipient {
  return type === 'offramp'
    ? checkFiatAccount(core, priced.to.currency, value as FiatRecipient, 'recipient', true)
    : checkAddress(core, env, priced.to.network!, value as CryptoRecipient, 'recipient');
}

/** Where a refund goes, when given (shaped for `type`). */
export function checkRefund(
  core: OrdersCore,
  env: Environment,
  type: OrderType,
  priced: { from: Leg; to: Leg },
  value: NonNullable<ShapedTargets['refund']>,
): Recipient {
  return type === 'onramp'
    ? checkFiatAccount(core, priced.from.currency, value as FiatRecipient, 'refund', false)
    : checkAddress(core, env, priced.from.network!, value as CryptoRecipient, 'refund');
}

function checkFiatAccount(core: OrdersCore, fiat: string, r: FiatRecipient, prefix: string, matchName: boolean): Recipient {
  const institution = core.ref.institutionsOf(fiat).find((i) => i.code.toUpperCase() === r.institution_code.toUpperCase());
  if (!institution) {
    throw validationError(
      `${prefix}.institution_code`,
      `${r.institution_code} is not an institution for ${fiat} (GET /v1/institutions?fiat=${fiat})`,
    );
  }
  let lookedUp: string;
  try {
    lookedUp = core.ref.lookupAccount(institution.code, r.account_number).account_name;
  } catch (error) {
    if (error instanceof ApiError && error.code === 'E_NOTFOUND') {
      throw validationError(`${prefix}.account_number`, `no account ${r.account_number} at ${institution.name}`);
    }
    throw error;
  }
  if (matchName && r.account_name !== lookedUp && normaliseName(r.account_name) !== normaliseName(lookedUp)) {
    throw validationError(`${prefix}.account_name`, `does not match the bank record for this account (GET /v1/account-lookup)`);
  }
  const recipient: Recipient = {
    kind: 'fiat',
    institution_code: institution.code,
    account_number: r.account_number,
    account_name: r.account_name,
  };
  if (r.memo !== undefined) recipient.memo = r.memo;
  return recipient;
}

function checkAddress(core: OrdersCore, env: Environment, network: string, r: CryptoRecipient, prefix: string): Recipient {
  const problem = addressProblem(core.formatOf(env, network), r.address);
  if (problem) throw validationError(`${prefix}.address`, `${problem} (network ${network})`);
  const recipient: Recipient = { kind: 'crypto', network, address: r.address };
  if (r.memo !== undefined) recipient.memo = r.memo;
  return recipient;
}

/** No refund target given: refund to where the money came from (a simulated sender). */
export function defaultRefundTarget(
  core: OrdersCore,
  env: Environment,
  type: OrderType,
  priced: { from: Leg },
  customerName: string,
): Recipient {
  if (type === 'onramp') {
    const bank = core.ref.institutionsOf(priced.from.currency)[0]!;
    return {
      kind: 'fiat',
      institution_code: bank.code,
      account_number: core.artefacts.accountNumber(),
      account_name: customerName.toUpperCase(),
    };
  }
  const network = priced.from.network!;
  return { kind: 'crypto', network, address: core.artefacts.address(core.formatOf(env, network)) };
}

/** Where the customer pays in: a simulated bank account or deposit address. */
export function payinTarget(
  core: OrdersCore,
  env: Environment,
  type: OrderType,
  priced: { from: Leg },
  customerName: string,
): OrderRecord['payin'] {
  if (type === 'onramp') {
    const fiat = priced.from.currency;
    const bank = core.ref.institutionsOf(fiat).find((i) => i.type === 'bank') ?? core.ref.institutionsOf(fiat)[0]!;
    return {
      kind: 'fiat',
      currency: fiat,
      institution_code: bank.code,
      account_number: core.artefacts.accountNumber(),
      account_name: `RAMP SANDBOX / ${customerName.toUpperCase()}`.slice(0, 100),
    };
  }
  const network = priced.from.network!;
  return { kind: 'crypto', asset: priced.from.currency, network, address: core.artefacts.address(core.formatOf(env, network)) };
}

function normaliseName(name: string): string {
  return name.trim().replace(/\s+/g, ' ').toLowerCase();
}
