import type { WebhookEvent } from '../shared/events';
import type { OrdersCore } from './order.core';
import type { ArrivePayinParams, OrderEvent, PayoutParams, RefundParams } from './order.machine';
import type { OrderRecord, TimelineRecord } from './order.store';
import { isFinal } from './order.vocabulary';
import { settledAmount, settledPercentage } from './order.view';

/** Where the effects report: the order's timeline entries, and each webhook event. */
export interface EffectsOutput {
  /** A webhook event the machine emitted; `entry` is its timeline entry, already on the order. */
  notified(order: OrderRecord, event: WebhookEvent, entry: TimelineRecord): void;
  /** The order changed (a timeline entry, a status). */
  changed(order: OrderRecord): void;
}

/**
 * What the machine's named actions do to an order (CONTRACT §3): `notify` (a webhook event on
 * the timeline, then out), `payout` and `refund` (their artefacts and timeline entries) and the
 * pay-in that a magic amount brings by itself. The machine decides when; this decides what.
 */
export function createOrderEffects(core: OrdersCore, out: EffectsOutput) {
  const { clock, artefacts } = core;

  /** One timeline entry. */
  function note(order: OrderRecord, group: TimelineRecord['group'], event: string, details: TimelineRecord['details']): void {
    order.timeline.push({ group, event, details, at: clock.now() });
    order.version++;
    out.changed(order);
  }

  function notify(order: OrderRecord, event: WebhookEvent): void {
    const at = clock.now();
    order.updated_at = at;
    const entry: TimelineRecord = { group: 'webhook', event, details: null, at };
    order.timeline.push(entry);
    order.version++;
    out.changed(order);
    out.notified(order, event, entry);
  }

  /** A pay-in on the record (its reference drawn unless given); a pay-in on a final order is late. */
  function notePayin(order: OrderRecord, amount: number, confirmed: boolean, ref: string | undefined): void {
    const txRef = ref ?? (order.payin.kind === 'fiat' ? artefacts.bankReference() : artefacts.txHash(core.formatOf(order.env, order.payin.network)));
    order.payinRefs.push(txRef);
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
      order.payout.state = phase;
      if (phase === 'failed') order.payout.paidAt = null;
      note(order, 'payout', phase, { amount: order.payout.amount });
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

  return { note, notify, notePayin, arrivePayin, payout, refund };
}

export type OrderEffects = ReturnType<typeof createOrderEffects>;
