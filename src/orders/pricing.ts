import type { Environment, ReferenceStore } from '../reference';
import { badRequest } from '../shared/errors';
import { ceil, floor, round, sum } from '../shared/money';

import { type Fee, MAX_STORED_AMOUNT, type OrderType, type PricedLeg, type Pricing } from './model';

export type { Fee, OrderType, PricedLeg, Pricing };

/** A leg as validated (spec §2.6); `network` is present exactly on crypto legs. */
export interface Leg {
  currency: string;
  network?: string;
  amount?: number;
}

export interface Priced {
  type: OrderType;
  from: PricedLeg;
  to: PricedLeg;
  pricing: Pricing;
  fee: Fee;
}

/** The fee model (README "Pricing"); rates in fractions. */
const FEE_MODEL = {
  /** Protocol fee: 0.5% of the converted value. */
  protocolRate: 0.005,
  /** VAT: 7.5% of the protocol fee. */
  vatRate: 0.075,
  /** Highest partner fee, percent. */
  maxPartnerFeePercent: 10,
} as const;

/**
 * Prices a conversion from its legs (amount on exactly one). Fiat↔crypto: the fee is charged
 * on top in the fiat currency (`fee_in_rate: false`); swaps embed it in the rate (`true`).
 * Every amount is rounded to its currency's precision; `total` is the sum of the rounded parts.
 */
export function price(ref: ReferenceStore, env: Environment, type: OrderType, from: Leg, to: Leg, partnerFeePercent = 0): Priced {
  return withinStoredBounds(
    type === 'swap' ? priceSwap(ref, env, from, to, partnerFeePercent) : priceFiat(ref, env, type, from, to, partnerFeePercent),
  );
}

/**
 * Refuses a conversion whose other leg or fee comes to more than an order may hold
 * (`MAX_STORED_AMOUNT`, 1e18): a leg may be given up to 1e12, and at a rate in the millions
 * (NGN per ETH, or a scripted rate up to 1e12) the leg priced from it passes 1e18. Such a quote
 * or order was stored, and the state saved with it was refused on load (CONTRACT §13).
 */
function withinStoredBounds(priced: Priced): Priced {
  const parts: Array<[string, number, string]> = [
    ['from.amount', priced.from.amount, priced.from.currency],
    ['to.amount', priced.to.amount, priced.to.currency],
    ['fee.total', priced.fee.total, priced.fee.currency],
  ];
  for (const [field, amount, currency] of parts) {
    if (!(amount <= MAX_STORED_AMOUNT)) {
      throw badRequest(
        `amount is too large: ${field} would come to ${amount} ${currency}, more than ${MAX_STORED_AMOUNT.toExponential().replace('+', '')}, the most the sandbox prices; send a smaller amount`,
      );
    }
  }
  return priced;
}

function priceFiat(
  ref: ReferenceStore,
  env: Environment,
  type: Exclude<OrderType, 'swap'>,
  from: Leg,
  to: Leg,
  partnerFeePercent: number,
): Priced {
  const fiatLeg = type === 'onramp' ? from : to;
  const cryptoLeg = type === 'onramp' ? to : from;
  const fiat = ref.findFiat(fiatLeg.currency)!;
  const crypto = ref.findCrypto(env, cryptoLeg.currency)!;
  const rates = ref.rates(fiat.code, crypto.symbol)!;
  const rate = type === 'onramp' ? rates.buy_rate : rates.sell_rate;
  const fd = fiat.decimals;
  const cp = crypto.precision;
  const networkFee = round(networkFeeUsd(ref, env, cryptoLeg.network!) * usdInFiat(ref, fiat.code), fd);
  const rateText = `${rate} ${fiat.code} per ${crypto.symbol}`;
  const pct = FEE_MODEL.protocolRate * (1 + FEE_MODEL.vatRate) + partnerFeePercent / 100;
  let fiatAmount: number;
  let cryptoAmount: number;
  let fee: Fee;
  if (type === 'onramp') {
    // The customer pays fiat = value of the crypto + fees.
    if (to.amount !== undefined) {
      cryptoAmount = round(to.amount, cp);
      const value = round(cryptoAmount * rate, fd);
      fee = fiatFee(value, fiat.code, fd, networkFee, partnerFeePercent);
      fiatAmount = round(value + fee.total, fd);
      if (!(fiatAmount > 0) && !(value > 0)) throw buysNothing(cryptoAmount, crypto.symbol, fiat.code, fd, rateText);
    } else {
      fiatAmount = round(from.amount!, fd);
      const value = floor((fiatAmount - networkFee) / (1 + pct), fd);
      cryptoAmount = floor(value / rate, cp);
      fee = fiatFee(round(cryptoAmount * rate, fd), fiat.code, fd, networkFee, partnerFeePercent);
      if (value > 0 && !(cryptoAmount > 0)) throw buysNothing(value, fiat.code, crypto.symbol, cp, rateText);
    }
  } else {
    // The customer sends crypto; the recipient gets its value less fees.
    if (from.amount !== undefined) {
      cryptoAmount = round(from.amount, cp);
      const value = round(cryptoAmount * rate, fd);
      if (!(value > 0)) throw buysNothing(cryptoAmount, crypto.symbol, fiat.code, fd, rateText);
      fee = fiatFee(value, fiat.code, fd, networkFee, partnerFeePercent);
      fiatAmount = round(value - fee.total, fd);
    } else {
      fiatAmount = round(to.amount!, fd);
      cryptoAmount = ceil((fiatAmount + networkFee) / (1 - pct) / rate, cp);
      fee = fiatFee(round(cryptoAmount * rate, fd), fiat.code, fd, networkFee, partnerFeePercent);
      if (!(cryptoAmount > 0)) throw buysNothing(fiatAmount, fiat.code, crypto.symbol, cp, rateText);
    }
  }
  if (!(fiatAmount > 0) || !(cryptoAmount > 0)) throw tooSmall(fee);
  const fiatOut: PricedLeg = { currency: fiat.code, amount: fiatAmount };
  const cryptoOut: PricedLeg = { currency: crypto.symbol, network: cryptoLeg.network!, amount: cryptoAmount };
  return {
    type,
    from: type === 'onramp' ? fiatOut : cryptoOut,
    to: type === 'onramp' ? cryptoOut : fiatOut,
    pricing: { base_currency: crypto.symbol, quote_currency: fiat.code, exchange_rate: rate },
    fee,
  };
}

function priceSwap(ref: ReferenceStore, env: Environment, from: Leg, to: Leg, partnerFeePercent: number): Priced {
  const a = ref.findCrypto(env, from.currency)!;
  const b = ref.findCrypto(env, to.currency)!;
  const network = from.network!;
  const mid = usdPrice(ref, a.symbol) / usdPrice(ref, b.symbol);
  const networkFee = round(networkFeeUsd(ref, env, network) / usdPrice(ref, a.symbol), a.precision);
  const pct = FEE_MODEL.protocolRate * (1 + FEE_MODEL.vatRate) + partnerFeePercent / 100;
  let fromAmount: number;
  if (from.amount !== undefined) fromAmount = round(from.amount, a.precision);
  else fromAmount = ceil((to.amount! / mid + networkFee) / (1 - pct), a.precision);
  const protocol = round(fromAmount * FEE_MODEL.protocolRate, a.precision);
  const partner = round((fromAmount * partnerFeePercent) / 100, a.precision);
  const vat = round(protocol * FEE_MODEL.vatRate, a.precision);
  const total = sum([networkFee, protocol, partner, vat], a.precision);
  const fee: Fee = {
    currency: a.symbol,
    network_fee: networkFee,
    protocol_fee: protocol,
    partner_fee: partner,
    vat,
    total,
    fee_in_rate: true,
  };
  const toAmount = to.amount !== undefined ? round(to.amount, b.precision) : floor((fromAmount - total) * mid, b.precision);
  const midText = `${Number(mid.toPrecision(10))} ${b.symbol} per ${a.symbol}`;
  // The amount wanted is worth less than the smallest unit it would be paid with.
  if (to.amount !== undefined && !(fromAmount > 0))
    throw buysNothing(round(to.amount, b.precision), b.symbol, a.symbol, a.precision, midText);
  if (fromAmount - total <= 0) throw tooSmall(fee);
  if (!(toAmount > 0)) {
    const left = round(fromAmount - total, a.precision);
    throw buysNothing(left, a.symbol, b.symbol, b.precision, midText);
  }
  return {
    type: 'swap',
    from: { currency: a.symbol, network, amount: fromAmount },
    to: { currency: b.symbol, network, amount: toAmount },
    pricing: {
      base_currency: a.symbol,
      quote_currency: b.symbol,
      exchange_rate: Number((toAmount / fromAmount).toPrecision(10)),
    },
    fee,
  };
}

/** The fee of a fiat↔crypto conversion of `value` (fiat), charged on top (`fee_in_rate: false`). */
function fiatFee(value: number, currency: string, fd: number, networkFee: number, partnerFeePercent: number): Fee {
  const protocol = round(value * FEE_MODEL.protocolRate, fd);
  const partner = round((value * partnerFeePercent) / 100, fd);
  const vat = round(protocol * FEE_MODEL.vatRate, fd);
  return {
    currency,
    network_fee: networkFee,
    protocol_fee: protocol,
    partner_fee: partner,
    vat,
    total: sum([networkFee, protocol, partner, vat], fd),
    fee_in_rate: false,
  };
}

function tooSmall(fee: Fee) {
  return badRequest(`amount is too small: fees alone come to ${fee.total} ${fee.currency}`);
}

/**
 * Refuses an amount whose value, at the rate, is less than the other currency's smallest unit
 * (a scripted rate far from the fixtures', say): fees are not what makes it too small.
 */
function buysNothing(amount: number, currency: string, other: string, decimals: number, rate: string) {
  const unit = (10 ** -decimals).toFixed(decimals);
  return badRequest(`amount is too small: ${amount} ${currency} comes to less than ${unit} ${other} (its smallest unit) at ${rate}`);
}

function networkFeeUsd(ref: ReferenceStore, env: Environment, network: string): number {
  return ref.findNetwork(env, network)?.network_fee_usd ?? 0;
}

/** Fiat units per US dollar: through the first USD-based stablecoin. */
function usdInFiat(ref: ReferenceStore, fiat: string): number {
  return ref.midRate(fiat, ref.usdStablecoin())!;
}

/** US dollars per unit of a crypto currency. */
function usdPrice(ref: ReferenceStore, symbol: string): number {
  const fiat = ref.fiatCurrencies()[0]!.code;
  return ref.midRate(fiat, symbol)! / ref.midRate(fiat, ref.usdStablecoin())!;
}
