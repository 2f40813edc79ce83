import type { Bus } from '../shared/bus';
import type { WebhookEvent } from '../shared/events';
import type { OrdersCore } from './order.core';
import type { ArrivePayinParams, OrderEvent, PayoutParams, RefundParams } from './order.machine';
import type { Order, OrderRecord, TimelineRecord } from './model';
import { isFinal } from './model';
import { eventSummary, settledAmount, settledPercentage, toSummary, type OrderSummary } from './order.view';

/** What orders publish on the bus (CONTRACT §5, §15). */
export interface OrderEvents {
  /** A webhook event the machine emitted; its timeline entry is on the order already. */
  'order.emitted': EmittedEvent;
  /** An order changed (its reference), or every order went (null: a reset, a restore, an eviction). */
  'order.changed': string | null;
}

/** A webhook event the machine emitted, with the summary as it stood at that moment. */
export interface EmittedEvent {
  event: WebhookEvent;
  order: Order;
  /** The summary as it stands at this moment (computed on demand). */
  summary: () => OrderSummary;
  at: number;
  /** Its timeline entry (the index in `order.timeline`): what `noteDelivery` completes. */
  entryId: number;
}

/**
 * What the machine's named actions do to an order (CONTRACT §3): `notify` (a webhook event on
 * the timeline, then published), `payout` and `refund` (their artefacts and timeline entries)
 * and the pay-in that a magic amount brings by itself. The machine decides when; this decides
 * what. Every change is published as `order.changed`.
 */
export function createOrderEffects(core: OrdersCore, bus: Bus<OrderEvents>) {
  const { clock, artefacts, store } = core;

  /**
   * One timeline entry, in one write with `also` (the fields the entry tells of), if given.
   * The store publishes the change.
   */
  function note(
    order: Order,
    group: TimelineRecord['group'],
    event: string,
    details: TimelineRecord['details'],
    also?: (o: OrderRecord) => void,
  ): void {
    const at = clock.now();
    store.update(order, (o) => {
      also?.(o);
      o.timeline.push({ group, event, details, at });
    });
  }

  function notify(order: Order, event: WebhookEvent): void {
    const at = clock.now();
    const entryId = store.update(order, (o) => {
      o.updated_at = at;
      return o.timeline.push({ group: 'webhook', event, details: null, at }) - 1;
    });
    if (bus.has('order.emitted')) bus.emit('order.emitted', { event, order, summary: summaryOf(order, event), at, entryId });
  }

  /**
   * What became of a webhook event (a delivery's id, or why none was made), on its timeline
   * entry: the webhooks' report, a command of its own. False when there is no such entry.
   */
  function noteDelivery(order: Order, entryId: number, outcome: Readonly<Record<string, unknown>>): boolean {
    const entry = Number.isInteger(entryId) && entryId >= 0 ? order.timeline[entryId] : undefined;
    if (entry?.group !== 'webhook') return false;
    // Kept as given when it is the only detail: the webhooks share their "skipped" outcomes.
    const details = entry.details ? { ...entry.details, ...outcome } : (outcome as TimelineRecord['details']);
    store.update(order, (o) => {
      o.timeline[entryId] = { ...entry, details };
    });
    return true;
  }

  /**
   * The order's summary on demand. Returned unnamed: tsx compiles with esbuild's keepNames, which
   * would give a named closure a `defineProperty` call (~2 µs) every time one is made.
   */
  function summaryOf(order: Order, event: WebhookEvent): () => OrderSummary {
    return () => eventSummary(event, toSummary(order, core.precisions(order)));
  }

  /** A pay-in on the record (its reference drawn unless given); a pay-in on a final order is late. */
  function notePayin(order: Order, amount: number, confirmed: boolean, ref: string | undefined): void {
    const txRef =
      ref ?? (order.payin.kind === 'fiat' ? artefacts.bankReference() : artefacts.txHash(core.formatOf(order.env, order.payin.network)));
    const details = {
      amount,
      [order.payin.kind === 'fiat' ? 'tx_reference' : 'tx_hash']: txRef,
      // A pay-in on an order in a final status: the machine refunds it (README "Assumptions").
      ...(isFinal(order.status) ? { late: true } : {}),
    };
    note(order, 'payin', confirmed ? 'confirmed' : 'received', details, (o) => {
      o.payinRefs.push(txRef);
      if (confirmed) o.payinPaidAt = clock.now();
    });
  }

  /** A magic amount's own pay-in arrives: on the record first, then the machine applies it. */
  function arrivePayin(order: Order, params: ArrivePayinParams, raise: (event: OrderEvent) => void): void {
    notePayin(order, params.amount, params.confirmed, undefined);
    raise({ type: 'PAYIN', amount: params.amount, confirmed: params.confirmed });
  }

  function payout(order: Order, phase: PayoutParams['phase']): void {
    const now = clock.now();
    const p = core.precisions(order);
    if (phase === 'sent') {
      const r = order.recipient;
      const txRef = r.kind === 'fiat' ? artefacts.bankReference() : artefacts.txHash(core.formatOf(order.env, r.network));
      const sent = {
        refs: [txRef],
        paidAt: now,
        amount: settledAmount(order, p.to),
        percentage: settledPercentage(order),
        state: 'sent' as const,
      };
      note(order, 'payout', 'sent', { amount: sent.amount, [r.kind === 'fiat' ? 'tx_reference' : 'tx_hash']: txRef }, (o) => {
        o.payout = sent;
      });
    } else if (order.payout) {
      note(order, 'payout', phase, { amount: order.payout.amount }, (o) => {
        o.payout = { ...o.payout!, state: phase, ...(phase === 'failed' ? { paidAt: null } : {}) };
      });
    }
  }

  function refund(order: Order, phase: RefundParams['phase']): void {
    if (phase === 'started') {
      note(order, 'refund', 'started', { amount: order.context.refundDue }, (o) => {
        o.refund ??= { ref: null, refundedAt: null };
      });
      return;
    }
    const t = order.refundTarget;
    const ref = t.kind === 'fiat' ? artefacts.bankReference() : artefacts.txHash(core.formatOf(order.env, t.network));
    note(order, 'refund', 'completed', { amount: order.context.refunded }, (o) => {
      o.refund = { ref, refundedAt: clock.now() };
    });
  }

  return { note, notify, noteDelivery, notePayin, arrivePayin, payout, refund };
}

export type OrderEffects = ReturnType<typeof createOrderEffects>;
