import { ISO } from '../clock';
import { round } from '../shared/money';
import type { OrderDetail, OrderSummary, Quote, TimelineEntry } from './order.responses';
import type { Include } from './model';
import type { Order, QuoteRecord, Recipient } from './model';
import { isSettled } from './model';

export type { OrderDetail, OrderSummary };

/** Precision of a leg's currency, from the order's own amounts (set at pricing). */
export interface Precisions {
  from: number;
  to: number;
}

/** The amount paid out for the order's settled share (its `ratio`), in the payout currency. */
export function settledAmount(o: Pick<Order, 'to' | 'context'>, toPrecision: number): number {
  return round(o.to.amount * o.context.ratio, toPrecision);
}

/** The settled share as a percentage, 2 places. */
export function settledPercentage(o: Pick<Order, 'context'>): number {
  return round(o.context.ratio * 100, 2);
}

/** The summary form (spec §2.2): no payin, no payout. */
export function toSummary(o: Order, p: Precisions): OrderSummary {
  const settled = isSettled(o.status);
  // Two literals rather than a conditional spread: same key order, and no slow object cloning.
  const from = { ...o.from };
  const to = { ...o.to };
  const pricing = { ...o.pricing };
  const amount_paid = round(o.context.paid, p.from);
  const amount_settled = settled ? settledAmount(o, p.to) : 0;
  const amount_refunded = round(o.context.refunded, p.from);
  const percentage_settled = settled ? settledPercentage(o) : 0;
  const created_at = ISO(o.created_at);
  const updated_at = ISO(o.updated_at);
  const { reference, merchant_reference, customer_reference, type, metadata, status } = o;
  // spec §2.2: fee is omitted when it is embedded in the exchange rate
  return o.fee.fee_in_rate
    ? {
        reference,
        merchant_reference,
        customer_reference,
        type,
        from,
        to,
        pricing,
        metadata,
        amount_paid,
        amount_settled,
        amount_refunded,
        percentage_settled,
        status,
        created_at,
        updated_at,
      }
    : {
        reference,
        merchant_reference,
        customer_reference,
        type,
        from,
        to,
        pricing,
        fee: { ...o.fee },
        metadata,
        amount_paid,
        amount_settled,
        amount_refunded,
        percentage_settled,
        status,
        created_at,
        updated_at,
      };
}

/**
 * The `data` of a webhook event: the summary, but an order.created payload carries status
 * awaiting_user_payment (spec §6.2), whenever it is sent: a magic amount's pay-in may already have
 * moved the order on, and one sent on demand may be for an order long completed.
 */
export function eventSummary(event: string, summary: OrderSummary): OrderSummary {
  return event === 'order.created' && summary.status !== 'awaiting_user_payment'
    ? { ...summary, status: 'awaiting_user_payment' }
    : summary;
}

/** The detail form (spec §2.3); payout and timeline only when included. */
export function toDetail(o: Order, p: Precisions, include: ReadonlySet<Include>): OrderDetail {
  // Extends the fresh summary in place (no spread of a 16-field object): keys keep spec order.
  const detail = Object.assign(toSummary(o, p), { recipient: recipientView(o.recipient), payin: payinView(o) }) as OrderDetail;
  if (include.has('payout')) detail.payout = payoutView(o, p);
  if (o.refund) detail.refund = refundView(o);
  if (include.has('timeline')) {
    detail.timeline = o.timeline.map((t): TimelineEntry => ({ group: t.group, event: t.event, details: t.details, created_at: ISO(t.at) }));
  }
  return detail;
}

export function toQuoteView(q: QuoteRecord): Quote {
  return {
    quote_id: q.quote_id,
    type: q.type,
    from: { ...q.from },
    to: { ...q.to },
    pricing: { ...q.pricing },
    fee: { ...q.fee },
    timestamp: ISO(q.created_at),
    ttl_in_seconds: Math.round((q.expires_at - q.created_at) / 1000),
    provider_id: 1,
  };
}

function recipientView(r: Recipient): OrderDetail['recipient'] {
  const memo = r.memo === undefined ? {} : { memo: r.memo };
  return r.kind === 'fiat'
    ? { institution_code: r.institution_code, account_number: r.account_number, account_name: r.account_name, ...memo }
    : { network: r.network, address: r.address, ...memo };
}

function payinView(o: Order): OrderDetail['payin'] {
  const t = o.payin;
  const common = {
    amount: o.from.amount,
    expires_at: o.payinExpiresAt === null ? null : ISO(o.payinExpiresAt),
    paid_at: o.payinPaidAt === null ? null : ISO(o.payinPaidAt),
  };
  return t.kind === 'fiat'
    ? {
        currency: t.currency,
        account_name: t.account_name,
        account_number: t.account_number,
        institution_code: t.institution_code,
        amount: common.amount,
        tx_reference: [...o.payinRefs],
        expires_at: common.expires_at,
        paid_at: common.paid_at,
      }
    : {
        asset: t.asset,
        address: t.address,
        network: t.network,
        amount: common.amount,
        tx_hash: [...o.payinRefs],
        expires_at: common.expires_at,
        paid_at: common.paid_at,
      };
}

function payoutView(o: Order, p: Precisions): NonNullable<OrderDetail['payout']> {
  if (!o.payout) return [];
  const landed = isSettled(o.status);
  const amount = landed ? settledAmount(o, p.to) : o.payout.amount;
  const percentage = landed ? settledPercentage(o) : o.payout.percentage;
  const r = o.recipient;
  const paidAt = o.payout.paidAt === null ? null : ISO(o.payout.paidAt);
  return [
    r.kind === 'fiat'
      ? {
          currency: o.to.currency,
          account_name: r.account_name,
          account_number: r.account_number,
          institution_code: r.institution_code,
          amount,
          percentage,
          tx_reference: [...o.payout.refs],
          paid_at: paidAt,
        }
      : {
          asset: o.to.currency,
          address: r.address,
          network: r.network,
          amount,
          percentage,
          tx_hash: [...o.payout.refs],
          paid_at: paidAt,
        },
  ];
}

function refundView(o: Order): NonNullable<OrderDetail['refund']> {
  const r = o.refundTarget;
  const refundedAt = o.refund?.refundedAt == null ? null : ISO(o.refund.refundedAt);
  const amount = o.context.refundDue;
  return r.kind === 'fiat'
    ? {
        currency: o.from.currency,
        account_name: r.account_name,
        account_number: r.account_number,
        institution_code: r.institution_code,
        amount,
        tx_reference: o.refund?.ref ?? null,
        refunded_at: refundedAt,
      }
    : {
        asset: o.from.currency,
        address: r.address,
        network: r.network,
        amount,
        tx_hash: o.refund?.ref ?? null,
        refunded_at: refundedAt,
      };
}
