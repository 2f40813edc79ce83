// Over 300 lines on purpose: the whole order lifecycle of CONTRACT §3 is one machine definition,
// read top to bottom; splitting its states across files would hide the transitions.
import { assign, cancel, enqueueActions, raise, setup, type ActionFunction } from 'xstate';
import type { WebhookEvent } from '../shared/events';
import { round } from '../shared/money';
import type { OrderContext } from './model';
import { statusTags, type OrderType, type PayoutOutcome } from './model';

export { ORDER_STATUSES, type OrderStatus, type PayoutOutcome } from './model';
export type { OrderContext } from './model';

/** Virtual delays of the lifecycle, ms (README "Lifecycle"). */
export interface LifecycleTimings {
  /** How long a held order (magic amount) stays `initiated`. */
  provisioning: number;
  /** Pay-in window (CONTRACT §8: 30 min). */
  payinWindow: number;
  processing: number;
  routing: number;
  lpAssignment: number;
  payout: number;
  settlement: number;
  refund: number;
}

export const DEFAULT_TIMINGS: LifecycleTimings = {
  provisioning: 2 * 60_000,
  payinWindow: 30 * 60_000,
  processing: 2 * 60_000,
  routing: 60_000,
  lpAssignment: 3 * 60_000,
  payout: 5 * 60_000,
  settlement: 60_000,
  refund: 10 * 60_000,
};

/** What a magic amount's automatic pay-in is: a fraction of what is due, confirmed or not. */
export type AutoPayin = NonNullable<OrderContext['autoPayin']>;

export type OrderEvent =
  | { type: 'PAYIN'; amount: number; confirmed: boolean }
  | { type: 'CONFIRM' }
  | { type: 'CANCEL' }
  | { type: 'EXPIRE' }
  | { type: 'SET_PAYOUT'; outcome: PayoutOutcome; percentage?: number }
  | { type: 'REFUND_DONE' }
  | { type: 'AUTO_PAYIN' };

export interface OrderInput {
  due: number;
  precision: number;
  hold: boolean;
  /** A payout outcome decided at creation (magic recipient); default success. */
  outcome?: PayoutOutcome;
  percentage?: number;
  autoPayin?: AutoPayin | null;
}

/** Effects the order service carries out; the machine only names them. */
export type NotifyParams = { event: WebhookEvent };
export type PayoutParams = { phase: 'sent' | 'failed' | 'reverted' };
export type RefundParams = { phase: 'started' | 'completed' };
/** A pay-in the machine itself brings (magic amounts): the service records it, then applies PAYIN. */
export type ArrivePayinParams = { amount: number; confirmed: boolean };

/** A magic amount's automatic pay-in arrives this long into the pay-in window (virtual ms). */
const AUTO_PAYIN_DELAY_MS = 60_000;

/** The webhook event each type emits at each step (spec §6.1, issue 3). */
const EVENTS: Record<OrderType, { locked: WebhookEvent; payout: WebhookEvent; refundIsCrypto: boolean }> = {
  onramp: { locked: 'order.fiat_recieved', payout: 'order.asset_released', refundIsCrypto: false },
  offramp: { locked: 'order.asset_locked', payout: 'order.fiat_sent', refundIsCrypto: true },
  swap: { locked: 'order.asset_locked', payout: 'order.asset_released', refundIsCrypto: true },
};

/** Paid and unconfirmed once `event` is applied (guards run before actions). */
function project(context: OrderContext, event: OrderEvent): { paid: number; unconfirmed: number } {
  if (event.type === 'PAYIN') {
    return event.confirmed
      ? { paid: context.paid + event.amount, unconfirmed: context.unconfirmed }
      : { paid: context.paid, unconfirmed: context.unconfirmed + event.amount };
  }
  if (event.type === 'CONFIRM') return { paid: context.paid + context.unconfirmed, unconfirmed: 0 };
  return { paid: context.paid, unconfirmed: context.unconfirmed };
}

/**
 * The order lifecycle for one order type: statuses, transitions, delays and the webhook event
 * of each step. Orders hold plain data; the lifecycle runs it with the machine runner.
 */
export function createOrderMachine(type: OrderType, timings: LifecycleTimings = DEFAULT_TIMINGS) {
  const ev = EVENTS[type];
  const notify = (event: WebhookEvent) => ({ type: 'notify', params: { event } }) as const;
  const payout = (phase: PayoutParams['phase']) => ({ type: 'payout', params: { phase } }) as const;
  const refund = (phase: RefundParams['phase']) => ({ type: 'refund', params: { phase } }) as const;
  const refundCompleted = ['completeRefund', refund('completed'), ...(ev.refundIsCrypto ? [notify('order.asset_refunded')] : [])] as const;

  /** Into `processing` after the last pay-in step: an excess over what is due starts a refund. */
  const intoProcessing = <const P extends readonly ('addPayin' | 'confirmPayin')[]>(pre: P) =>
    [
      { guard: 'wouldOverpay', target: 'processing', actions: [...pre, 'shareOut', refund('started')] },
      { target: 'processing', actions: [...pre, 'shareOut'] },
    ] as const;
  /** The payout's end, by outcome (`fromEvent`: decided by SET_PAYOUT while it runs). */
  const payoutEnds = (fromEvent: boolean) => {
    const pre = fromEvent ? (['setOutcome'] as const) : ([] as const);
    const g = (o: PayoutOutcome) =>
      fromEvent ? ({ type: 'eventOutcomeIs', params: { outcome: o } } as const) : ({ type: 'outcomeIs', params: { outcome: o } } as const);
    return [
      { guard: g('fail'), target: 'failed', actions: [...pre] },
      { guard: g('revert'), target: 'reverted', actions: [...pre] },
      { guard: g('partial'), target: 'settled', actions: [...pre, 'applyOutcome', refund('started')] },
      { target: 'settled', actions: [...pre, 'applyOutcome'] },
    ] as const;
  };
  const setOutcome = { SET_PAYOUT: { actions: 'setOutcome' } } as const;

  return setup({
    types: {
      context: {} as OrderContext,
      events: {} as OrderEvent,
      input: {} as OrderInput,
    },
    actions: {
      // Effects: no-ops here; the order service runs them from the action list.
      notify: (() => {}) as ActionFunction<any, any, any, NotifyParams, any, any, any, any, any>,
      payout: (() => {}) as ActionFunction<any, any, any, PayoutParams, any, any, any, any, any>,
      refund: (() => {}) as ActionFunction<any, any, any, RefundParams, any, any, any, any, any>,
      arrivePayin: (() => {}) as ActionFunction<any, any, any, ArrivePayinParams, any, any, any, any, any>,
      addPayin: assign(({ context, event }) => project(context, event)),
      confirmPayin: assign(({ context, event }) => project(context, event)),
      /** Share of the order covered by confirmed pay-ins; any excess is refunded. */
      shareOut: assign(({ context }) => ({
        ratio: Math.min(1, context.paid / context.due),
        refundDue: round(Math.max(0, context.paid - context.due), context.precision),
      })),
      setOutcome: assign(({ context, event }) =>
        event.type === 'SET_PAYOUT'
          ? { outcome: event.outcome, percentage: event.percentage ?? 100 }
          : { outcome: context.outcome, percentage: context.percentage },
      ),
      /** Success keeps the share; partial pays out `percentage` of it and refunds the rest. */
      applyOutcome: assign(({ context }) => {
        if (context.outcome !== 'partial') return {};
        const settledValue = Math.min(context.paid, context.due) * (context.percentage / 100);
        return {
          ratio: settledValue / context.due,
          refundDue: round(context.paid - settledValue, context.precision),
        };
      }),
      refundAll: assign(({ context }) => ({ ratio: 0, refundDue: context.paid })),
      lateRefund: assign(({ context, event }) => {
        const amount = event.type === 'PAYIN' ? event.amount : 0;
        return { paid: context.paid + amount, refundDue: round(context.refundDue + amount, context.precision) };
      }),
      completeRefund: assign(({ context }) => ({ refunded: context.refundDue })),
      /**
       * The pay-in window opens: it closes `payinWindow` from now, and now is the order's
       * creation, or the end of its provisioning delay when it was held (the only way here from
       * `initiated`). The machine knows durations, not instants: the deadline is kept as the
       * time from the creation (the record's `created_at` places it).
       */
      openPayinWindow: assign(({ context }) => ({
        payinClosesAfter: (context.hold ? timings.provisioning : 0) + timings.payinWindow,
      })),
    },
    guards: {
      notHeld: ({ context }) => !context.hold,
      hasAutoPayin: ({ context }) => context.autoPayin !== null,
      wouldCoverDue: ({ context, event }) => event.type === 'PAYIN' && event.confirmed && project(context, event).paid >= context.due,
      isConfirmed: ({ event }) => event.type === 'PAYIN' && event.confirmed,
      wouldOverpay: ({ context, event }) => project(context, event).paid > context.due,
      hasPaid: ({ context }) => context.paid > 0,
      nothingPaid: ({ context }) => context.paid === 0 && context.unconfirmed === 0,
      outcomeIs: ({ context }, params: { outcome: PayoutOutcome }) => context.outcome === params.outcome,
      eventOutcomeIs: ({ event }, params: { outcome: PayoutOutcome }) => event.type === 'SET_PAYOUT' && event.outcome === params.outcome,
      underSettled: ({ context }) => context.ratio < 1,
      hasRefund: ({ context }) => context.refundDue > 0,
      underSettledWithRefund: ({ context }) => context.ratio < 1 && context.refundDue > 0,
    },
    delays: {
      provisioning: timings.provisioning,
      payinWindow: timings.payinWindow,
      processing: timings.processing,
      routing: timings.routing,
      lpAssignment: timings.lpAssignment,
      payout: timings.payout,
      settlement: timings.settlement,
      refund: timings.refund,
    },
  }).createMachine({
    id: `order-${type}`,
    initial: 'initiated',
    // `input` is undefined when xstate builds its throwaway actor (transition(), the runner's
    // scope): answer cheaply instead of throwing.
    context: ({ input }) => ({
      due: input?.due ?? 0,
      precision: input?.precision ?? 0,
      hold: input?.hold ?? false,
      paid: 0,
      unconfirmed: 0,
      ratio: 0,
      refundDue: 0,
      refunded: 0,
      outcome: input?.outcome ?? 'success',
      percentage: input?.percentage ?? 100,
      autoPayin: input?.autoPayin ?? null,
      payinClosesAfter: null,
    }),
    states: {
      initiated: {
        // Pay-in instructions are ready at once, unless the order is held (magic amount).
        always: { guard: 'notHeld', target: 'awaiting_user_payment' },
        after: { provisioning: 'awaiting_user_payment' },
        on: { CANCEL: 'cancelled', ...setOutcome },
      },
      awaiting_user_payment: {
        // A magic amount's pay-in arrives by itself a minute in: a timer only for those orders.
        entry: [
          'openPayinWindow',
          notify('order.created'),
          enqueueActions(({ context, enqueue }) => {
            if (context.autoPayin) enqueue.raise({ type: 'AUTO_PAYIN' }, { delay: AUTO_PAYIN_DELAY_MS, id: 'auto-payin' });
          }),
        ],
        exit: cancel('auto-payin'),
        after: {
          payinWindow: [{ guard: 'hasPaid', target: 'processing', actions: 'shareOut' }, { target: 'expired' }],
        },
        on: {
          PAYIN: [
            ...intoProcessing(['addPayin']).slice(0, 1),
            { guard: 'wouldCoverDue', target: 'processing', actions: ['addPayin', 'shareOut'] },
            { guard: 'isConfirmed', actions: 'addPayin' },
            { target: 'pending', actions: 'addPayin' },
          ],
          EXPIRE: [{ guard: 'hasPaid', target: 'processing', actions: 'shareOut' }, { target: 'expired' }],
          CANCEL: { guard: 'nothingPaid', target: 'cancelled' },
          AUTO_PAYIN: {
            guard: 'hasAutoPayin',
            actions: {
              type: 'arrivePayin',
              params: ({ context }) => ({
                amount: round(context.due * context.autoPayin!.fraction, context.precision),
                confirmed: context.autoPayin!.confirmed,
              }),
            },
          },
          ...setOutcome,
        },
      },
      pending: {
        on: {
          PAYIN: { actions: 'addPayin' },
          CONFIRM: intoProcessing(['confirmPayin']),
          ...setOutcome,
        },
      },
      processing: {
        entry: notify(ev.locked),
        after: { processing: 'routing' },
        on: setOutcome,
      },
      routing: {
        ...(type === 'swap' ? { entry: notify('order.assigned') } : {}),
        after: { routing: type === 'swap' ? 'executing' : 'awaiting_lp_payment' },
        on: setOutcome,
      },
      awaiting_lp_payment: {
        entry: notify('order.assigned'),
        after: { lpAssignment: 'executing' },
        on: setOutcome,
      },
      executing: {
        entry: [notify(ev.payout), payout('sent')],
        after: { payout: payoutEnds(false) },
        on: { SET_PAYOUT: payoutEnds(true) },
      },
      settled: {
        tags: statusTags('settled'),
        entry: notify('order.settled'),
        after: {
          settlement: [
            { guard: 'underSettledWithRefund', target: 'partially_completed', actions: [...refundCompleted] },
            { guard: 'underSettled', target: 'partially_completed' },
            { guard: 'hasRefund', target: 'completed', actions: [...refundCompleted] },
            { target: 'completed' },
          ],
        },
      },
      completed: { tags: statusTags('completed') },
      partially_completed: { tags: statusTags('partially_completed') },
      failed: {
        entry: [payout('failed'), 'refundAll', refund('started')],
        after: { refund: 'refunded' },
      },
      reverted: {
        entry: [payout('reverted'), 'refundAll', refund('started')],
        after: { refund: 'refunded' },
      },
      refunded: {
        tags: statusTags('refunded'),
        entry: [...refundCompleted],
      },
      cancelled: {
        // Final: a late pay-in is only refunded (README "Assumptions").
        tags: statusTags('cancelled'),
        entry: notify('order.cancelled'),
        on: {
          PAYIN: { actions: ['lateRefund', refund('started'), raise({ type: 'REFUND_DONE' }, { delay: 'refund', id: 'late-refund' })] },
          REFUND_DONE: 'refunded',
        },
      },
      expired: {
        tags: statusTags('expired'),
        entry: notify('order.expired'),
        on: {
          PAYIN: { actions: ['lateRefund', refund('started'), raise({ type: 'REFUND_DONE' }, { delay: 'refund', id: 'late-refund' })] },
          REFUND_DONE: 'refunded',
        },
      },
    },
  });
}

export type OrderMachine = ReturnType<typeof createOrderMachine>;
