import { round } from '../shared/money';
import { badRequest, validationError } from '../shared/errors';
import { parseOrThrow } from '../shared/validation';
import { txHashProblem } from './addresses';
import { checkPrecision, type Caller, type OrdersCore } from './order.core';
import type { Lifecycle } from './order.lifecycle';
import type { OrderEvent } from './order.machine';
import type { Queries } from './order.queries';
import { CryptoFulfilSchema, FiatFulfilSchema, MAX_STORED_AMOUNT, type ControlPayin, type ControlPayout, type Include } from './model';
import type { OrderDetail } from './order.view';

/**
 * The field of the other kind of fulfil proof in `body` when it lacks its own kind's (spec §4.1:
 * `reference` and `institution` for a fiat pay-in, `tx_hash` for a crypto one), or undefined.
 * A proof of the wrong kind is named as such (issue 6), not as `reference: … received undefined`.
 */
function wrongProof(kind: 'fiat' | 'crypto', body: unknown): string | undefined {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return undefined;
  const has = (key: string) => (body as Record<string, unknown>)[key] !== undefined;
  if (kind === 'fiat') return has('tx_hash') && !(has('reference') && has('institution')) ? 'tx_hash' : undefined;
  return has('tx_hash') ? undefined : ['reference', 'institution'].find(has);
}

/**
 * What moves an order besides time: the partner's cancel and fulfil (/v1), and the control
 * API's pay-in, payout outcome and expiry. Whether a status allows one is the machine's answer.
 */
export function createCommands(core: OrdersCore, lifecycle: Lifecycle, queries: Queries) {
  const { clock } = core;
  const { can, dispatch, note } = lifecycle;

  function cancel(caller: Caller, reference: string, reason: string | undefined): OrderDetail {
    const order = queries.owned(caller, reference);
    if (!can(order, { type: 'CANCEL' })) {
      // Would the machine allow it had nothing been paid? Then the pay-in is why.
      const unpaid = { type: order.type, status: order.status, context: { ...order.context, paid: 0, unconfirmed: 0 } };
      const why =
        order.status === 'cancelled'
          ? 'it is already cancelled'
          : can(unpaid, { type: 'CANCEL' })
            ? 'a pay-in has already been received'
            : `its status is ${order.status}`;
      throw badRequest(`Order ${reference} cannot be cancelled: ${why}`);
    }
    note(order, 'order', 'cancel_requested', reason ? { reason } : null);
    dispatch(order, { type: 'CANCEL' });
    return queries.detail(order);
  }

  function fulfil(caller: Caller, reference: string, body: unknown, include: ReadonlySet<Include>): OrderDetail {
    const order = queries.owned(caller, reference);
    let proof: string;
    let details: Record<string, unknown>;
    // The other kind's proof, without this kind's: say so, rather than name the missing field.
    const wrong = wrongProof(order.payin.kind, body);
    if (wrong)
      throw validationError(
        wrong,
        order.payin.kind === 'fiat'
          ? 'not allowed for a fiat pay-in (onramp); send reference and institution'
          : 'not allowed for a crypto pay-in (offramp, swap); send tx_hash',
      );
    if (order.payin.kind === 'fiat') {
      const b = parseOrThrow(FiatFulfilSchema, body);
      proof = b.reference;
      details = { reference: b.reference, institution: b.institution };
    } else {
      const b = parseOrThrow(CryptoFulfilSchema, body);
      const problem = txHashProblem(core.formatOf(order.env, order.payin.network), b.tx_hash);
      if (problem) throw validationError('tx_hash', problem);
      proof = b.tx_hash;
      details = { tx_hash: b.tx_hash };
    }
    if (!can(order, { type: 'CONFIRM' })) {
      const payinOpen = can(order, { type: 'PAYIN', amount: order.context.due, confirmed: false });
      throw badRequest(
        payinOpen
          ? `Order ${reference} has no pay-in awaiting confirmation; fulfil confirms a pay-in that was seen but not confirmed (status pending)`
          : `Order ${reference} cannot be fulfilled in status ${order.status}`,
      );
    }
    note(order, 'payin', 'proof_submitted', details, (o) => {
      if (!o.payinRefs.includes(proof)) o.payinRefs.push(proof);
      o.payinPaidAt = clock.now();
    });
    dispatch(order, { type: 'CONFIRM' });
    return queries.detail(order, include);
  }

  function simulatePayin(reference: string, b: ControlPayin): OrderDetail {
    const order = queries.find(reference);
    if (order.payin.kind === 'fiat' && b.tx_hash !== undefined) {
      throw validationError('tx_hash', 'not allowed for a fiat pay-in; use tx_reference');
    }
    if (order.payin.kind === 'crypto' && b.tx_reference !== undefined) {
      throw validationError('tx_reference', 'not allowed for a crypto pay-in; use tx_hash');
    }
    if (order.payin.kind === 'crypto' && b.tx_hash !== undefined) {
      const problem = txHashProblem(core.formatOf(order.env, order.payin.network), b.tx_hash);
      if (problem) throw validationError('tx_hash', problem);
    }
    const confirmed = b.confirmed ?? true;
    const precision = core.precisionOf(order.env, order.from.currency);
    if (b.amount !== undefined) checkPrecision('amount', b.amount, precision, order.from.currency);
    const outstanding = round(order.context.due - order.context.paid - order.context.unconfirmed, precision);
    const amount = round(b.amount ?? (outstanding > 0 ? outstanding : order.context.due), precision);
    if (!(amount > 0)) throw validationError('amount', `rounds to 0 at ${precision} decimal places`);
    // Late pay-ins add up without end (each is refunded): past the bound an order keeps, its saved
    // state would not load again (CONTRACT §13).
    if (order.context.paid + order.context.unconfirmed + amount > MAX_STORED_AMOUNT) {
      throw validationError(
        'amount',
        `would take the pay-ins of order ${reference} past ${MAX_STORED_AMOUNT}, the most simulated pay-ins add up to`,
      );
    }
    if (!can(order, { type: 'PAYIN', amount, confirmed })) {
      throw badRequest(`A pay-in does not apply to order ${reference} in status ${order.status}`);
    }
    lifecycle.recordPayin(order, amount, confirmed, b.tx_hash ?? b.tx_reference);
    return queries.detail(order);
  }

  function decidePayout(reference: string, b: ControlPayout): OrderDetail {
    const order = queries.find(reference);
    const event: OrderEvent = {
      type: 'SET_PAYOUT',
      outcome: b.outcome,
      ...(b.percentage === undefined ? {} : { percentage: b.percentage }),
    };
    if (!can(order, event)) {
      throw badRequest(`The payout of order ${reference} can no longer be decided: status ${order.status}`);
    }
    note(order, 'payout', 'outcome_set', { outcome: b.outcome, ...(b.percentage === undefined ? {} : { percentage: b.percentage }) });
    dispatch(order, event);
    return queries.detail(order);
  }

  function expire(reference: string): OrderDetail {
    const order = queries.find(reference);
    if (!can(order, { type: 'EXPIRE' })) {
      throw badRequest(`The pay-in window of order ${reference} is not open: status ${order.status}`);
    }
    core.store.update(order, (o) => {
      o.payinExpiresAt = clock.now();
    });
    dispatch(order, { type: 'EXPIRE' });
    return queries.detail(order);
  }

  return { cancel, fulfil, simulatePayin, decidePayout, expire };
}
