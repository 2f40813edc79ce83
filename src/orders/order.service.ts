import type { Partner } from '../auth';
import { ISO, type VirtualClock } from '../clock';
import { price, type Leg, type OrderType } from '../pricing/pricing';
import {
  lookupMagicAccount,
  lookupMagicAddress,
  lookupMagicAmount,
  MAGIC_PAYIN_DELAY_MS,
  type AddressFormat,
  type Environment,
  type MagicAmountBehaviour,
  type ReferenceStore,
} from '../reference';
import { ApiError, badRequest, conflict, forbidden, notFound, validationError } from '../shared/errors';
import { paginate } from '../shared/envelope';
import type { WebhookEvent } from '../shared/events';
import type { Ids } from '../shared/ids';
import { decimalPlaces, round } from '../shared/money';
import { parseOrThrow } from '../shared/validation';
import { addressProblem, createArtefacts, txHashProblem } from './addresses';
import { createPureTransitions, type ExecutableAction } from './pure-transition';
import {
  createOrderMachine,
  DEFAULT_TIMINGS,
  type LifecycleTimings,
  type OrderEvent,
  type OrderMachine,
  type OrderStatus,
  type PayoutOutcome,
} from './order.machine';
import {
  CryptoFulfilSchema,
  CryptoRecipientSchema,
  FiatFulfilSchema,
  FiatRecipientSchema,
  type ControlPayin,
  type ControlPayout,
  type CreateOrderBody,
  type Include,
  type LegInput,
  type ListQuery,
  type Quote,
  type QuoteBody,
} from './order.schemas';
import { createEviction } from './eviction';
import { OrderStore, type OrderRecord, type QuoteRecord, type Recipient, type TimelineRecord } from './order.store';
import { toDetail, toQuoteView, toSummary, type OrderDetail, type OrderSummary, type Precisions } from './order.view';

/** Who is calling /v1: the partner and the environment of its key. */
export interface Caller {
  partner: Partner;
  env: Environment;
}

/** A webhook event the machine emitted, with the summary as it stood at that moment. */
export interface EmittedEvent {
  event: WebhookEvent;
  order: OrderRecord;
  /** The summary as it stands at this moment (computed on demand). */
  summary: () => OrderSummary;
  at: number;
}

export interface OrderServiceDeps {
  clock: VirtualClock;
  reference: ReferenceStore;
  ids: Ids;
  timings?: Partial<LifecycleTimings>;
  /** Quote lifetime, virtual ms (default 60 s). */
  quoteTtlMs?: number;
  /** CONTRACT §9: orders kept at most (default: no bound). */
  maxOrders?: number;
  /** Told of each batch of evicted orders, to forget what hangs off them (deliveries). */
  onEvicted?: (orders: ReadonlySet<OrderRecord>) => void;
}

export const ALL_INCLUDES: ReadonlySet<Include> = new Set(['payout', 'timeline']);
const NO_INCLUDES: ReadonlySet<Include> = new Set();
const PROVIDER_IDS = new Set([1]);

const machineCache = new Map<string, OrderMachine>();

/**
 * The machine of a type and timings, built once per process: a machine is data (its effects
 * are run by the service), so sandboxes share it, and starting one stays cheap (CONTRACT §14).
 */
function machineFor(type: OrderType, timings: LifecycleTimings): OrderMachine {
  const key = `${type} ${JSON.stringify(timings)}`;
  let machine = machineCache.get(key);
  if (!machine) {
    machine = createOrderMachine(type, timings);
    machineCache.set(key, machine);
  }
  return machine;
}

/** Quotes, orders and their lifecycle: the domain behind /v1/orders and the order controls. */
export function createOrderService(deps: OrderServiceDeps) {
  const { clock, reference: ref, ids } = deps;
  const timings: LifecycleTimings = { ...DEFAULT_TIMINGS, ...deps.timings };
  const quoteTtlMs = deps.quoteTtlMs ?? 60_000;
  const machines: Record<OrderType, OrderMachine> = {
    onramp: machineFor('onramp', timings),
    offramp: machineFor('offramp', timings),
    swap: machineFor('swap', timings),
  };
  const pure = {
    onramp: createPureTransitions(machines.onramp),
    offramp: createPureTransitions(machines.offramp),
    swap: createPureTransitions(machines.swap),
  };
  const store = new OrderStore();
  const eviction = createEviction({
    store,
    maxOrders: deps.maxOrders ?? Number.POSITIVE_INFINITY,
    onEvicted: (evicted) => {
      for (const order of evicted) for (const variant of ['', 'p', 't', 'pt']) rendered.delete(`${order.reference}|${variant}`);
      deps.onEvicted?.(evicted);
      for (const changed of changeListeners) changed(null);
    },
  });
  const artefacts = createArtefacts(ids.faker);
  /** Listeners may return details to record on the order's timeline entry (e.g. a delivery id). */
  const listeners = new Set<(e: EmittedEvent) => Record<string, unknown> | void>();
  /** Told the reference of each order that changed (null: all of them went, a reset); the dashboard's live feed. */
  const changeListeners = new Set<(reference: string | null) => void>();

  const precisionOf = (env: Environment, code: string): number =>
    ref.findFiat(code)?.decimals ?? ref.findCrypto(env, code)?.precision ?? 8;
  const precisions = (o: { env: Environment; from: { currency: string }; to: { currency: string } }): Precisions => ({
    from: precisionOf(o.env, o.from.currency),
    to: precisionOf(o.env, o.to.currency),
  });
  const formatOf = (env: Environment, network: string): AddressFormat => ref.addressFormat(env, network) ?? 'evm';

  // ---- quotes -------------------------------------------------------------------------

  function quote(caller: Caller, input: QuoteBody): Quote {
    requireKyb(caller.partner);
    const type = checkLegs(caller.env, input.from, input.to);
    const priced = price(ref, caller.env, type, input.from, input.to, input.partner_fee ?? 0);
    const now = clock.now();
    const q: QuoteRecord = {
      ...priced,
      quote_id: ids.id('qt_'),
      env: caller.env,
      clientId: caller.partner.client_id,
      partnerFeePercent: input.partner_fee ?? 0,
      magic: lookupMagicAmount(input.from.amount ?? input.to.amount),
      created_at: now,
      expires_at: now + quoteTtlMs,
      used: false,
    };
    store.quotes.set(q.quote_id, q);
    // Forget the quote an hour after it expires; until then, using it is a clear 400.
    clock.setTimer(q.expires_at + 3_600_000, () => store.quotes.delete(q.quote_id), `quote ${q.quote_id}: forget`);
    return toQuoteView(q);
  }

  /**
   * Leg rules (spec §4.1, CONTRACT §3): shape first (422: network presence by currency kind),
   * then meaning (400: unknown currency or network, pair, amount on exactly one leg).
   */
  function checkLegs(env: Environment, from: LegInput, to: LegInput, prefix = ''): OrderType {
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
          throw badRequest(`${prefix}${name}.currency: ${leg.currency} is not available on ${leg.network} (GET /v1/networks/${leg.network}/crypto-currencies)`);
        }
      }
      if (leg.amount !== undefined) checkPrecision(`${prefix}${name}.amount`, leg.amount, precisionOf(env, leg.currency), leg.currency);
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

  // ---- orders -------------------------------------------------------------------------

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
    const legType = input.from && input.to ? shapeType(input.from, input.to) : undefined;
    if (legType) {
      shapeRecipient(legType, input.recipient, 'recipient');
      if (input.refund) shapeRefund(legType, input.refund, 'refund');
    }

    let priced;
    let quoteRecord: QuoteRecord | undefined;
    let magic: MagicAmountBehaviour | undefined;
    if (input.quote_id !== undefined) {
      quoteRecord = store.quotes.get(input.quote_id);
      if (!quoteRecord || quoteRecord.env !== env || quoteRecord.clientId !== clientId) {
        throw badRequest(`quote_id: unknown quote ${input.quote_id}`);
      }
      if (clock.now() > quoteRecord.expires_at) {
        throw badRequest(`quote_id: quote expired at ${ISO(quoteRecord.expires_at)}; create a new quote`);
      }
      if (quoteRecord.used) throw conflict(`quote_id: quote ${input.quote_id} was already used for an order`);
      priced = { type: quoteRecord.type, from: quoteRecord.from, to: quoteRecord.to, pricing: quoteRecord.pricing, fee: quoteRecord.fee };
      magic = quoteRecord.magic;
      shapeRecipient(priced.type, input.recipient, 'recipient');
      if (input.refund) shapeRefund(priced.type, input.refund, 'refund');
    } else {
      const type = checkLegs(env, input.from!, input.to!);
      priced = price(ref, env, type, input.from!, input.to!, input.partner_fee ?? 0);
      magic = lookupMagicAmount(input.from!.amount ?? input.to!.amount);
    }
    if (input.provider_id !== undefined && !PROVIDER_IDS.has(input.provider_id)) {
      throw badRequest(`provider_id: unknown provider ${input.provider_id}`);
    }
    if (input.merchant_reference && store.hasMerchantReference(clientId, env, input.merchant_reference)) {
      throw conflict(`merchant_reference: ${input.merchant_reference} is already used by another order`);
    }
    const type = priced.type;
    const recipient = checkRecipient(env, type, priced, input.recipient);
    const refundTarget = input.refund
      ? checkRefund(env, type, priced, input.refund)
      : defaultRefundTarget(env, type, priced, input.customer.name);

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
    if (quoteRecord) quoteRecord.used = true;
    const now = clock.now();
    const fromPrecision = precisionOf(env, priced.from.currency);
    // Fields listed one by one: a `...priced` spread here cost ~20 µs per order in V8.
    const order: OrderRecord = {
      type: priced.type,
      from: priced.from,
      to: priced.to,
      pricing: priced.pricing,
      fee: priced.fee,
      env,
      clientId,
      reference: ids.reference(),
      merchant_reference: input.merchant_reference ?? null,
      customer_reference: input.customer.reference,
      metadata: input.metadata ?? null,
      memo: input.memo,
      recipient,
      payin: payinTarget(env, type, priced, input.customer.name),
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
      timers: [],
      version: 0,
    };
    // CONTRACT §9: a request fully succeeds or changes nothing. Until the order is stored,
    // nothing has been changed; a failure after that takes the order (and its timers) back out.
    store.add(order);
    try {
      const [snapshot, actions] = pure[type].initial({
        due: priced.from.amount,
        precision: fromPrecision,
        hold: magic?.kind === 'hold_initiated',
        outcome,
        percentage,
      });
      note(order, 'status', 'initiated', null);
      if (quoteRecord) note(order, 'order', 'quote_used', { quote_id: quoteRecord.quote_id });
      const queue: OrderEvent[] = [];
      apply(order, snapshot, actions, queue);
      for (const event of queue) dispatch(order, event);
      if (magic?.kind === 'auto_payin') scheduleMagicPayin(order, magic);
      const detail = toDetail(order, precisions(order), ALL_INCLUDES);
      eviction.afterAdd();
      return detail;
    } catch (error) {
      for (const [, timer] of order.timers) clock.clearTimer(timer);
      store.remove(order);
      if (quoteRecord) quoteRecord.used = false;
      throw error;
    }
  }

  function scheduleMagicPayin(order: OrderRecord, magic: Extract<MagicAmountBehaviour, { kind: 'auto_payin' }>) {
    const at = Math.max(clock.now(), order.created_at) + MAGIC_PAYIN_DELAY_MS;
    clock.setTimer(
      at,
      () => {
        if (order.status !== 'awaiting_user_payment') return;
        const amount = round(order.from.amount * magic.fraction, precisionOf(order.env, order.from.currency));
        recordPayin(order, amount, magic.confirmed, undefined);
      },
      `${order.reference}: magic pay-in`,
    );
  }

  function list(caller: Caller, q: ListQuery) {
    const all = store.ownedBy(caller.partner.client_id, caller.env);
    const matching: OrderRecord[] = [];
    for (let i = all.length - 1; i >= 0; i--) {
      const o = all[i]!;
      if (!q.status || o.status === q.status) matching.push(o);
    }
    const page = paginate(matching, q.page, q.per_page);
    return { data: page.data.map((o) => toSummary(o, precisions(o))), meta: page.meta };
  }

  function cancel(caller: Caller, reference: string, reason: string | undefined): OrderDetail {
    const order = owned(caller, reference);
    if (!can(order, { type: 'CANCEL' })) {
      const why =
        order.status === 'cancelled'
          ? 'it is already cancelled'
          : order.context.paid > 0 || order.context.unconfirmed > 0
            ? 'a pay-in has already been received'
            : `its status is ${order.status}`;
      throw badRequest(`Order ${reference} cannot be cancelled: ${why}`);
    }
    note(order, 'order', 'cancel_requested', reason ? { reason } : null);
    dispatch(order, { type: 'CANCEL' });
    return toDetail(order, precisions(order), ALL_INCLUDES);
  }

  function fulfil(caller: Caller, reference: string, body: unknown, include: ReadonlySet<Include>): OrderDetail {
    const order = owned(caller, reference);
    let proof: string;
    let details: Record<string, unknown>;
    if (order.payin.kind === 'fiat') {
      const b = parseOrThrow(FiatFulfilSchema, body);
      proof = b.reference;
      details = { reference: b.reference, institution: b.institution };
    } else {
      const b = parseOrThrow(CryptoFulfilSchema, body);
      const problem = txHashProblem(formatOf(order.env, order.payin.network), b.tx_hash);
      if (problem) throw validationError('tx_hash', problem);
      proof = b.tx_hash;
      details = { tx_hash: b.tx_hash };
    }
    if (order.status !== 'pending') {
      throw badRequest(
        order.status === 'awaiting_user_payment'
          ? `Order ${reference} has no pay-in awaiting confirmation; fulfil confirms a pay-in that was seen but not confirmed (status pending)`
          : `Order ${reference} cannot be fulfilled in status ${order.status}`,
      );
    }
    if (!order.payinRefs.includes(proof)) order.payinRefs.push(proof);
    note(order, 'payin', 'proof_submitted', details);
    order.payinPaidAt = clock.now();
    dispatch(order, { type: 'CONFIRM' });
    return toDetail(order, precisions(order), include);
  }

  // ---- simulation controls (CONTRACT §4) -------------------------------------------------

  function find(reference: string): OrderRecord {
    const order = store.orders.get(reference);
    if (!order) throw notFound(`Order ${reference} not found`);
    return order;
  }

  function simulatePayin(reference: string, b: ControlPayin): OrderDetail {
    const order = find(reference);
    if (order.payin.kind === 'fiat' && b.tx_hash !== undefined) {
      throw validationError('tx_hash', 'not allowed for a fiat pay-in; use tx_reference');
    }
    if (order.payin.kind === 'crypto' && b.tx_reference !== undefined) {
      throw validationError('tx_reference', 'not allowed for a crypto pay-in; use tx_hash');
    }
    if (order.payin.kind === 'crypto' && b.tx_hash !== undefined) {
      const problem = txHashProblem(formatOf(order.env, order.payin.network), b.tx_hash);
      if (problem) throw validationError('tx_hash', problem);
    }
    const confirmed = b.confirmed ?? true;
    const precision = precisionOf(order.env, order.from.currency);
    if (b.amount !== undefined) checkPrecision('amount', b.amount, precision, order.from.currency);
    const outstanding = round(order.context.due - order.context.paid - order.context.unconfirmed, precision);
    const amount = round(b.amount ?? (outstanding > 0 ? outstanding : order.context.due), precision);
    if (!(amount > 0)) throw validationError('amount', `rounds to 0 at ${precision} decimal places`);
    if (!can(order, { type: 'PAYIN', amount, confirmed })) {
      throw badRequest(`A pay-in does not apply to order ${reference} in status ${order.status}`);
    }
    recordPayin(order, amount, confirmed, b.tx_hash ?? b.tx_reference);
    return toDetail(order, precisions(order), ALL_INCLUDES);
  }

  function recordPayin(order: OrderRecord, amount: number, confirmed: boolean, ref?: string) {
    const txRef = ref ?? (order.payin.kind === 'fiat' ? artefacts.bankReference() : artefacts.txHash(formatOf(order.env, order.payin.network)));
    order.payinRefs.push(txRef);
    if (confirmed) order.payinPaidAt = clock.now();
    note(order, 'payin', confirmed ? 'confirmed' : 'received', {
      amount,
      [order.payin.kind === 'fiat' ? 'tx_reference' : 'tx_hash']: txRef,
      ...(order.status === 'expired' || order.status === 'cancelled' ? { late: true } : {}),
    });
    dispatch(order, { type: 'PAYIN', amount, confirmed });
  }

  function decidePayout(reference: string, b: ControlPayout): OrderDetail {
    const order = find(reference);
    const event: OrderEvent = { type: 'SET_PAYOUT', outcome: b.outcome, ...(b.percentage === undefined ? {} : { percentage: b.percentage }) };
    if (!can(order, event)) {
      throw badRequest(`The payout of order ${reference} can no longer be decided: status ${order.status}`);
    }
    note(order, 'payout', 'outcome_set', { outcome: b.outcome, ...(b.percentage === undefined ? {} : { percentage: b.percentage }) });
    dispatch(order, event);
    return toDetail(order, precisions(order), ALL_INCLUDES);
  }

  function expire(reference: string): OrderDetail {
    const order = find(reference);
    if (!can(order, { type: 'EXPIRE' })) {
      throw badRequest(`The pay-in window of order ${reference} is not open: status ${order.status}`);
    }
    order.payinExpiresAt = clock.now();
    dispatch(order, { type: 'EXPIRE' });
    return toDetail(order, precisions(order), ALL_INCLUDES);
  }

  // ---- the machine, applied purely ---------------------------------------------------------

  function snapshotOf(order: OrderRecord) {
    return machines[order.type].resolveState({ value: order.status, context: order.context });
  }

  function can(order: OrderRecord, event: OrderEvent): boolean {
    return snapshotOf(order).can(event);
  }

  /** Applies `event` and any zero-delay events it raises; false when the status ignores it. */
  function dispatch(order: OrderRecord, event: OrderEvent): boolean {
    const queue: OrderEvent[] = [event];
    let first = true;
    let accepted = false;
    while (queue.length > 0) {
      const e = queue.shift()!;
      const snapshot = snapshotOf(order);
      if (!snapshot.can(e)) {
        if (first) return false;
        continue;
      }
      if (first) accepted = true;
      first = false;
      const [next, actions] = pure[order.type].transition(snapshot, e);
      apply(order, next, actions, queue);
    }
    return accepted;
  }

  /** Takes a snapshot the machine computed: status, context, then its effects. */
  function apply(order: OrderRecord, next: { value: unknown; context: OrderRecord['context'] }, actions: readonly ExecutableAction[], queue: OrderEvent[]) {
    order.version++;
    const before = order.status;
    order.context = next.context;
    order.status = next.value as OrderStatus;
    if (before !== order.status) {
      order.updated_at = clock.now();
      note(order, 'status', order.status, null);
      if (order.status === 'awaiting_user_payment') order.payinExpiresAt = clock.now() + timings.payinWindow;
    }
    runActions(order, actions, queue);
  }

  function runActions(order: OrderRecord, actions: readonly ExecutableAction[], queue: OrderEvent[]) {
    for (let i = 0; i < actions.length; i++) {
      const action = actions[i]!;
      const params = (action.params ?? {}) as Record<string, any>;
      // A delay raised and cancelled in the same step (a state passed through at once) needs no timer.
      if (action.type === 'xstate.raise' && actions.some((a, j) => j > i && a.type === 'xstate.cancel' && (a.params as { sendId?: unknown })?.sendId === params.id)) {
        continue;
      }
      switch (action.type) {
        case 'notify':
          emit(order, params.event as WebhookEvent);
          break;
        case 'payout':
          onPayout(order, params.phase);
          break;
        case 'refund':
          onRefund(order, params.phase);
          break;
        case 'xstate.raise': {
          const id = String(params.id);
          const event = params.event as OrderEvent;
          const delay = Number(params.delay ?? 0);
          cancelTimer(order, id);
          if (delay <= 0) {
            queue.push(event);
          } else {
            const timer = clock.setTimer(
              clock.now() + delay,
              () => {
                order.timers = order.timers.filter(([key]) => key !== id);
                dispatch(order, event);
              },
              `${order.reference}: ${describeTimer(id)}`,
            );
            order.timers.push([id, timer]);
          }
          break;
        }
        case 'xstate.cancel':
          cancelTimer(order, String(params.sendId));
          break;
        default:
          break;
      }
    }
  }

  function cancelTimer(order: OrderRecord, id: string) {
    const slot = order.timers.find(([key]) => key === id);
    if (slot) {
      clock.clearTimer(slot[1]);
      order.timers = order.timers.filter((s) => s !== slot);
    }
  }

  function emit(order: OrderRecord, event: WebhookEvent) {
    const at = clock.now();
    order.updated_at = at;
    const entry: TimelineRecord = { group: 'webhook', event, details: null, at };
    order.timeline.push(entry);
    order.version++;
    for (const changed of changeListeners) changed(order.reference);
    if (listeners.size === 0) return;
    const summary = () => toSummary(order, precisions(order));
    for (const listener of listeners) {
      const details = listener({ event, order, summary, at });
      if (details) entry.details = entry.details ? { ...entry.details, ...details } : details;
    }
  }

  function onPayout(order: OrderRecord, phase: 'sent' | 'failed' | 'reverted') {
    const now = clock.now();
    const p = precisions(order);
    if (phase === 'sent') {
      const r = order.recipient;
      const txRef = r.kind === 'fiat' ? artefacts.bankReference() : artefacts.txHash(formatOf(order.env, r.network));
      order.payout = {
        refs: [txRef],
        paidAt: now,
        amount: round(order.to.amount * order.context.ratio, p.to),
        percentage: round(order.context.ratio * 100, 2),
        state: 'sent',
      };
      note(order, 'payout', 'sent', { amount: order.payout.amount, [r.kind === 'fiat' ? 'tx_reference' : 'tx_hash']: txRef });
    } else if (order.payout) {
      order.payout.state = phase;
      if (phase === 'failed') order.payout.paidAt = null;
      note(order, 'payout', phase, { amount: order.payout.amount });
    }
  }

  function onRefund(order: OrderRecord, phase: 'started' | 'completed') {
    if (phase === 'started') {
      order.refund ??= { ref: null, refundedAt: null };
      note(order, 'refund', 'started', { amount: order.context.refundDue });
      return;
    }
    const t = order.refundTarget;
    order.refund = {
      ref: t.kind === 'fiat' ? artefacts.bankReference() : artefacts.txHash(formatOf(order.env, t.network)),
      refundedAt: clock.now(),
    };
    note(order, 'refund', 'completed', { amount: order.context.refunded });
  }

  function note(order: OrderRecord, group: TimelineRecord['group'], event: string, details: TimelineRecord['details']) {
    order.timeline.push({ group, event, details, at: clock.now() });
    order.version++;
    for (const changed of changeListeners) changed(order.reference);
  }

  /**
   * The order detail as JSON, rendered once per change of the order: partners poll orders far
   * more often than orders change. A small cache of the latest renders, keyed by version.
   */
  const rendered = new Map<string, { version: number; json: string }>();
  function detailJson(caller: Caller, reference: string, include: ReadonlySet<Include> = NO_INCLUDES): string {
    const order = owned(caller, reference);
    const key = `${reference}|${include.has('payout') ? 'p' : ''}${include.has('timeline') ? 't' : ''}`;
    const hit = rendered.get(key);
    if (hit && hit.version === order.version) return hit.json;
    const json = JSON.stringify(toDetail(order, precisions(order), include));
    rendered.delete(key);
    rendered.set(key, { version: order.version, json });
    if (rendered.size > 2048) rendered.delete(rendered.keys().next().value!);
    return json;
  }

  // ---- checks -------------------------------------------------------------------------------

  function owned(caller: Caller, reference: string): OrderRecord {
    const order = store.orders.get(reference);
    if (!order || order.env !== caller.env || order.clientId !== caller.partner.client_id) {
      throw notFound(`Order ${reference} not found`);
    }
    return order;
  }

  function shapeType(from: Leg, to: Leg): OrderType {
    return from.network === undefined ? 'onramp' : to.network === undefined ? 'offramp' : 'swap';
  }

  function shapeRecipient(type: OrderType, value: unknown, prefix: string) {
    parseOrThrow(type === 'offramp' ? FiatRecipientSchema : CryptoRecipientSchema, value, prefix);
  }

  function shapeRefund(type: OrderType, value: unknown, prefix: string) {
    parseOrThrow(type === 'onramp' ? FiatRecipientSchema : CryptoRecipientSchema, value, prefix);
  }

  function checkFiatAccount(fiat: string, value: unknown, prefix: string, matchName: boolean): Recipient {
    const r = parseOrThrow(FiatRecipientSchema, value, prefix);
    const institution = ref.institutionsOf(fiat).find((i) => i.code.toUpperCase() === r.institution_code.toUpperCase());
    if (!institution) {
      throw validationError(`${prefix}.institution_code`, `${r.institution_code} is not an institution for ${fiat} (GET /v1/institutions?fiat=${fiat})`);
    }
    let lookedUp: string;
    try {
      lookedUp = ref.lookupAccount(institution.code, r.account_number).account_name;
    } catch (error) {
      if (error instanceof ApiError && error.code === 'E_NOTFOUND') {
        throw validationError(`${prefix}.account_number`, `no account ${r.account_number} at ${institution.name}`);
      }
      throw error;
    }
    if (matchName && normaliseName(r.account_name) !== normaliseName(lookedUp)) {
      throw validationError(`${prefix}.account_name`, `does not match the bank record for this account (GET /v1/account-lookup)`);
    }
    const recipient: Recipient = { kind: 'fiat', institution_code: institution.code, account_number: r.account_number, account_name: r.account_name };
    if (r.memo !== undefined) recipient.memo = r.memo;
    return recipient;
  }

  function checkAddress(env: Environment, network: string, value: unknown, prefix: string): Recipient {
    const r = parseOrThrow(CryptoRecipientSchema, value, prefix);
    const problem = addressProblem(formatOf(env, network), r.address);
    if (problem) throw validationError(`${prefix}.address`, `${problem} (network ${network})`);
    const recipient: Recipient = { kind: 'crypto', network, address: r.address };
    if (r.memo !== undefined) recipient.memo = r.memo;
    return recipient;
  }

  function checkRecipient(env: Environment, type: OrderType, priced: { from: Leg; to: Leg }, value: unknown): Recipient {
    return type === 'offramp'
      ? checkFiatAccount(priced.to.currency, value, 'recipient', true)
      : checkAddress(env, priced.to.network!, value, 'recipient');
  }

  function checkRefund(env: Environment, type: OrderType, priced: { from: Leg; to: Leg }, value: unknown): Recipient {
    return type === 'onramp'
      ? checkFiatAccount(priced.from.currency, value, 'refund', false)
      : checkAddress(env, priced.from.network!, value, 'refund');
  }

  /** No refund target given: refund to where the money came from (a simulated sender). */
  function defaultRefundTarget(env: Environment, type: OrderType, priced: { from: Leg }, customerName: string): Recipient {
    if (type === 'onramp') {
      const bank = ref.institutionsOf(priced.from.currency)[0]!;
      return { kind: 'fiat', institution_code: bank.code, account_number: artefacts.accountNumber(), account_name: customerName.toUpperCase() };
    }
    const network = priced.from.network!;
    return { kind: 'crypto', network, address: artefacts.address(formatOf(env, network)) };
  }

  function payinTarget(env: Environment, type: OrderType, priced: { from: Leg }, customerName: string): OrderRecord['payin'] {
    if (type === 'onramp') {
      const fiat = priced.from.currency;
      const bank = ref.institutionsOf(fiat).find((i) => i.type === 'bank') ?? ref.institutionsOf(fiat)[0]!;
      return {
        kind: 'fiat',
        currency: fiat,
        institution_code: bank.code,
        account_number: artefacts.accountNumber(),
        account_name: `RAMP SANDBOX / ${customerName.toUpperCase()}`.slice(0, 100),
      };
    }
    const network = priced.from.network!;
    return { kind: 'crypto', asset: priced.from.currency, network, address: artefacts.address(formatOf(env, network)) };
  }

  return {
    quote,
    create,
    detailJson,
    list,
    cancel,
    fulfil,
    find,
    simulatePayin,
    decidePayout,
    expire,
    /** Detail of any order by reference (control API). */
    detail: (reference: string) => {
      const order = find(reference);
      return toDetail(order, precisions(order), ALL_INCLUDES);
    },
    summary: (order: OrderRecord) => toSummary(order, precisions(order)),
    onEvent(listener: (e: EmittedEvent) => Record<string, unknown> | void) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    /** Called with the reference of each order that changes (null: every order went); returns the unsubscribe. */
    onChange(listener: (reference: string | null) => void) {
      changeListeners.add(listener);
      return () => changeListeners.delete(listener);
    },
    machines,
    timings,
    store,
    /** Orders evicted to stay within `maxOrders` (CONTRACT §9). */
    get evictedCount() {
      return eviction.count;
    },
    clear: () => {
      store.clear();
      rendered.clear();
      eviction.reset();
      for (const changed of changeListeners) changed(null);
    },
  };
}

export type OrderService = ReturnType<typeof createOrderService>;

/** Spec §4.1: quotes and orders need a KYB-approved account (403 otherwise). */
export function requireKyb(partner: Partner): void {
  if (partner.kyb_status !== 'approved') {
    throw forbidden(`Partner account is not KYB-approved (kyb_status ${partner.kyb_status}); quotes and orders need an approved account`);
  }
}

/** CONTRACT §9: an amount with more places than its currency's precision is a 422, not rounded. */
function checkPrecision(field: string, amount: number, precision: number, currency: string): void {
  if (decimalPlaces(amount) > precision) {
    throw validationError(field, `${amount} has more than ${precision} decimal places, the precision of ${currency}`);
  }
}

function normaliseName(name: string): string {
  return name.trim().replace(/\s+/g, ' ').toLowerCase();
}

function describeTimer(id: string): string {
  // xstate.after.<delay>.<machine id>.<state>
  const m = /^xstate\.after\.([^.]+)\.[^.]+\.(.+)$/.exec(id);
  return m ? `${m[1]} elapsed in ${m[2]}` : id;
}
