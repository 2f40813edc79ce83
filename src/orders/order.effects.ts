import type { Bus } from '../shared/bus';
import type { WebhookEvent } from '../shared/events';
import type { OrdersCore } from './order.core';
import type { ArrivePayinParams, OrderEvent, PayoutParams, RefundParams } from './order.machine';
import type { OrderRecord, TimelineRecord } from './order.store';
import { isFinal } from './order.vocabulary';
import { appended } from './packed-order';
import { unsettled } from './order-terms';
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
  order: OrderRecord;
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
  const { clock, artefacts } = core;

  /** One timeline entry. */
  function note(order: OrderRecord, group: TimelineRecord['group'], event: string, details: TimelineRecord['details']): void {
    unsettled(order).timeline.push(group, event, details, clock.now());
    order.version++;
    bus.emit('order.changed', order.reference);
  }

  function notify(order: OrderRecord, event: WebhookEvent): void {
    const at = clock.now();
    order.updated_at = at;
    const entryId = unsettled(order).timeline.push('webhook', event, null, at);
    order.version++;
    bus.emit('order.changed', order.reference);
    if (bus.has('order.emitted')) bus.emit('order.emitted', { event, order, summary: summaryOf(order, event), at, entryId });
  }

  /**
   * What became of a webhook event (a delivery's id, or why none was made), on its timeline
   * entry: the webhooks' report, a command of its own. False when there is no such entry.
   */
  function noteDelivery(order: OrderRecord, entryId: number, outcome: Readonly<Record<string, unknown>>): boolean {
    const entry = order.timeline.find(entryId);
    if (entry?.group !== 'webhook') return false;
    // Kept as given when it is the only detail: the webhooks share their "skipped" outcomes.
    unsettled(order).timeline.setDetails(entryId, entry.details ? { ...entry.details, ...outcome } : (outcome as TimelineRecord['details']));
    order.version++;
    bus.emit('order.changed', order.reference);
    return true;
  }

  /**
   * The order's summary on demand. Returned unnamed: tsx compiles with esbuild's keepNames, which
   * would give a named closure a `defineProperty` call (~2 µs) every time one is made.
   */
  function summaryOf(order: OrderRecord, event: WebhookEvent): () => OrderSummary {
    return () => eventSummary(event, toSummary(order, core.precisions(order)));
  }

  /** A pay-in on the record (its reference drawn unless given); a pay-in on a final order is late. */
  function notePayin(order: OrderRecord, amount: number, confirmed: boolean, ref: string | undefined): void {
    const txRef = ref ?? (order.payin.kind === 'fiat' ? artefacts.bankReference() : artefacts.txHash(core.formatOf(order.env, order.payin.network)));
    // A new array of the exact size: a pushed one keeps slack for as long as the order is stored (decision 009).
    order.payinRefs = appended(order.payinRefs, txRef);
    if (confirmed) order.payinPaidAt = clock.now();
    note(order, 'payin', confirmed ? 'confirmed' : 'received', {
      amount,
      [order.payin.kind === 'fiat' ? 'tx_reference' : 'tx_hash']: txRef,
      // A pay-in on an order in a final status: the machine refunds it (README "Assumptions").
      ...(isFinal(order.status) ? { late: true } : {}),
    });
  }

  /** A magic amount's own pay-in arrives: on the record first, then the machine applies it. */
  function arrivePayin(order: OrderRecord, params: ArrivePayinParams, raise: (event: OrderEvent) => void): void {
    notePayin(order, params.amount, params.confirmed, undefined);
    raise({ type: 'PAYIN', amount: params.amount, confirmed: params.confirmed });
  }

  function payout(order: OrderRecord, phase: PayoutParams['phase']): void {
    const now = clock.now();
    const p = core.precisions(order);
    if (phase === 'sent') {
      const r = order.recipient;
      const txRef = r.kind === 'fiat' ? artefacts.bankReference() : artefacts.txHash(core.formatOf(order.env, r.network));
      order.payout = {
        refs: [txRef],
        paidAt: now,
        amount: settledAmount(order, p.to),
        percentage: settledPercentage(order),
        state: 'sent',
      };
      note(order, 'payout', 'sent', { amount: order.payout.amount, [r.kind === 'fiat' ? 'tx_reference' : 'tx_hash']: txRef });
    } else if (order.payout) {
      const payout = unsettled(order).payout!;
      payout.state = phase;
      if (phase === 'failed') payout.paidAt = null;
      note(order, 'payout', phase, { amount: payout.amount });
    }
  }

  function refund(order: OrderRecord, phase: RefundParams['phase']): void {
    if (phase === 'started') {
      order.refund ??= { ref: null, refundedAt: null };
      note(order, 'refund', 'started', { amount: order.context.refundDue });
      return;
    }
    const t = order.refundTarget;
    order.refund = {
      ref: t.kind === 'fiat' ? artefacts.bankReference() : artefacts.txHash(core.formatOf(order.env, t.network)),
      refundedAt: clock.now(),
    };
    note(order, 'refund', 'completed', { amount: order.context.refunded });
  }

  return { note, notify, noteDelivery, notePayin, arrivePayin, payout, refund };
}

export type OrderEffects = ReturnType<typeof createOrderEffects>;
