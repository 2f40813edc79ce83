import { ISO } from '../clock';
import { price, type Priced } from './pricing';
import { lookupMagicAccount, lookupMagicAddress, lookupMagicAmount, type MagicAmountBehaviour } from '../reference';
import { badRequest, conflict, validationError } from '../shared/errors';
import { unused } from '../shared/ids';
import { ALL_INCLUDES, requireKyb, type Caller, type OrdersCore } from './order.core';
import { checkLegs, checkRecipient, checkRefund, defaultRefundTarget, payinTarget, shapeTargets, shapeType } from './order.legs';
import type { Lifecycle } from './order.lifecycle';
import type { PayoutOutcome } from './order.machine';
import type { Eviction } from './eviction';
import type { CreateOrderBody } from './model';
import type { OrderRecord, QuoteRecord } from './model';
import { toDetail, type OrderDetail } from './order.view';

const PROVIDER_IDS: ReadonlySet<number> = new Set([1]);

/**
 * `POST /v1/orders`: typed input to a stored order. Every check runs before anything is
 * stored; once stored, a failure takes the order back out (CONTRACT §9: a request fully
 * succeeds or changes nothing). The store's bound is the last check: a full store is a 409
 * only for a create that would otherwise succeed.
 */
export function createIntake(core: OrdersCore, lifecycle: Lifecycle, bound: Pick<Eviction, 'makeRoom' | 'afterAdd'>) {
  const { clock, ids, store } = core;

  function create(caller: Caller, input: CreateOrderBody): OrderDetail {
    requireKyb(caller.partner);
    const { env } = caller;
    const clientId = caller.partner.client_id;
    if (input.quote_id === undefined && (input.from === undefined || input.to === undefined)) {
      throw validationError(input.from === undefined ? 'from' : 'to', 'required when quote_id is not given');
    }
    if (input.quote_id !== undefined && (input.from !== undefined || input.to !== undefined)) {
      throw validationError(input.from !== undefined ? 'from' : 'to', 'not allowed with quote_id (the quote fixes both legs)');
    }
    if (input.quote_id !== undefined && input.partner_fee !== undefined) {
      throw validationError('partner_fee', 'not allowed with quote_id (pricing is locked by the quote; pass partner_fee when quoting)');
    }
    // Shape of the recipient and refund depends on the type; from legs we know it before meaning.
    let targets = input.from && input.to ? shapeTargets(shapeType(input.from, input.to), input.recipient, input.refund) : undefined;

    // First the merchant_reference: a create retried after a lost answer (CONTRACT §12) carries
    // its quote too, and was told "quote already used" rather than where its order is.
    const existing = input.merchant_reference ? store.byMerchantReference({ clientId, env }, input.merchant_reference) : undefined;
    if (existing) {
      throw conflict(`merchant_reference: ${input.merchant_reference} is already used by order ${existing.reference}`);
    }
    let priced: Priced;
    let quoteRecord: QuoteRecord | undefined;
    let magic: MagicAmountBehaviour | undefined;
    if (input.quote_id !== undefined) {
      quoteRecord = usableQuote(caller, input.quote_id);
      priced = { type: quoteRecord.type, from: quoteRecord.from, to: quoteRecord.to, pricing: quoteRecord.pricing, fee: quoteRecord.fee };
      magic = quoteRecord.magic;
      targets = shapeTargets(priced.type, input.recipient, input.refund);
    } else {
      const type = checkLegs(core, env, input.from!, input.to!);
      priced = price(core.ref, env, type, input.from!, input.to!, input.partner_fee ?? 0);
      magic = lookupMagicAmount(input.from!.amount ?? input.to!.amount);
    }
    if (input.provider_id !== undefined && !PROVIDER_IDS.has(input.provider_id)) {
      throw badRequest(`provider_id: unknown provider ${input.provider_id}`);
    }
    const type = priced.type;
    // The legs' shape gave the type the targets were parsed for; a valid pair prices to the same one.
    const shaped = targets!;
    const recipient = checkRecipient(core, env, type, priced, shaped.recipient);
    const givenRefund = shaped.refund ? checkRefund(core, env, type, priced, shaped.refund) : undefined;

    let outcome: PayoutOutcome | undefined;
    let percentage: number | undefined;
    if (recipient.kind === 'fiat') {
      const m = lookupMagicAccount(recipient.account_number)?.payout;
      outcome = m?.outcome;
      percentage = m?.percentage;
    } else {
      outcome = lookupMagicAddress(recipient.address);
    }

    // The one free-form field echoed back: it must render before anything is stored.
    if (input.metadata) {
      try {
        JSON.stringify(input.metadata);
      } catch {
        throw validationError('metadata', 'cannot be rendered as JSON');
      }
    }
    // CONTRACT §9: room for one more order (evicting finished ones) or a 409, before the quote
    // is spent or the reference drawn.
    bound.makeRoom();
    // Nothing is drawn before this point, so a refused create leaves the later references as they were.
    const refundTarget = givenRefund ?? defaultRefundTarget(core, env, type, priced, input.customer.name);
    if (quoteRecord) quoteRecord.used = true;
    const now = clock.now();
    // Fields listed one by one, in the snapshot schema's order: a `...priced` spread here cost ~20 µs per order in V8.
    const draft: OrderRecord = {
      type: priced.type,
      from: priced.from,
      to: priced.to,
      pricing: priced.pricing,
      fee: priced.fee,
      env,
      clientId,
      reference: unused(ids.reference, (ref) => store.has(ref)),
      merchant_reference: input.merchant_reference ?? null,
      customer_reference: input.customer.reference,
      metadata: input.metadata ?? null,
      memo: input.memo,
      recipient,
      payin: payinTarget(core, env, type, priced, input.customer.name),
      payinRefs: [],
      payinExpiresAt: null,
      payinPaidAt: null,
      payout: null,
      refundTarget,
      refund: null,
      timeline: [],
      status: 'initiated',
      context: undefined as unknown as OrderRecord['context'], // set from the machine just below
      created_at: now,
      updated_at: now,
      version: 0,
    };
    const order = store.create(draft);
    try {
      const input = {
        due: priced.from.amount,
        precision: core.precisionOf(env, priced.from.currency),
        hold: magic?.kind === 'hold_initiated',
        outcome,
        percentage,
        autoPayin: magic?.kind === 'auto_payin' ? { fraction: magic.fraction, confirmed: magic.confirmed } : null,
      };
      lifecycle.note(order, 'status', 'initiated', null);
      if (quoteRecord) lifecycle.note(order, 'order', 'quote_used', { quote_id: quoteRecord.quote_id });
      lifecycle.start(order, input);
      const detail = toDetail(order, core.precisions(order), ALL_INCLUDES);
      bound.afterAdd();
      return detail;
    } catch (error) {
      lifecycle.stop(order);
      store.remove(order);
      if (quoteRecord) quoteRecord.used = false;
      throw error;
    }
  }

  /** The caller's quote, not expired and not used yet (400/409 otherwise). */
  function usableQuote(caller: Caller, quoteId: string): QuoteRecord {
    const q = store.quotes.get(quoteId);
    if (!q || q.env !== caller.env || q.clientId !== caller.partner.client_id) throw badRequest(`quote_id: unknown quote ${quoteId}`);
    if (clock.now() > q.expires_at) throw badRequest(`quote_id: quote expired at ${ISO(q.expires_at)}; create a new quote`);
    if (q.used) throw conflict(`quote_id: quote ${quoteId} was already used for an order`);
    return q;
  }

  return { create };
}
