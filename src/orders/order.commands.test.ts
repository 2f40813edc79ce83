import { describe, expect, it } from 'vitest';
import { testPartner } from '../../test/support/partner';
import { VirtualClock } from '../clock';
import { createReferenceStore, DEFAULT_FIXTURES_DIR, loadFixturesOnce } from '../reference';
import type { WebhookEvent } from '../shared/events';
import { createIds } from '../shared/ids';
import { createCommands } from './order.commands';
import { ALL_INCLUDES, createCore, type Caller } from './order.core';
import { createIntake } from './order.intake';
import { createLifecycle } from './order.lifecycle';
import { DEFAULT_TIMINGS } from './order.machine';
import { createQueries } from './order.queries';
import { createPlainStore } from './store';
import { refusal } from '../../test/support/refusal';

// What moves an order besides time (spec §4, CONTRACT §4): cancel and fulfil for the partner,
// pay-in, payout outcome and expiry for the control API. The machine says what a status allows.

const T0 = Date.UTC(2026, 0, 15, 12, 0, 0);
const EVM = '0x52908400098527886E0F7030069857D2E4169EE7';
const TX_HASH = `0x${'ab'.repeat(32)}`;
const fixtures = loadFixturesOnce(DEFAULT_FIXTURES_DIR);

const partner = (clientId: string) => testPartner(clientId, T0);

const ACME: Caller = { partner: partner('ptr_acme'), env: 'test' };
const customer = { reference: 'cus_1', name: 'Ada Obi', email: 'ada@example.com' };

function makeOrders() {
  const clock = new VirtualClock({ start: T0, mode: 'manual' });
  const ref = createReferenceStore(fixtures, { seed: 1, clock });
  const store = createPlainStore();
  const core = createCore({ clock, ref, ids: createIds(1), timings: DEFAULT_TIMINGS, store });
  const lifecycle = createLifecycle(core);
  const queries = createQueries(core);
  const intake = createIntake(core, lifecycle, { makeRoom: () => {}, afterAdd: () => {} });
  const commands = createCommands(core, lifecycle, queries);
  const sent: WebhookEvent[] = [];
  lifecycle.bus.on('order.emitted', (e) => {
    sent.push(e.event);
  });
  /** An onramp of 50,000 NGN (fiat pay-in) awaiting payment. */
  const onramp = (caller = ACME) =>
    intake.create(caller, {
      from: { currency: 'NGN', amount: 50_000 },
      to: { currency: 'USDT', network: 'base-sepolia' },
      recipient: { address: EVM },
      customer,
    }).reference;
  /** An offramp of 100 USDT (crypto pay-in) awaiting payment. */
  const offramp = () => {
    const account_name = ref.lookupAccount('058', '0123456789').account_name;
    return intake.create(ACME, {
      from: { currency: 'USDT', network: 'base-sepolia', amount: 100 },
      to: { currency: 'NGN' },
      recipient: { institution_code: '058', account_number: '0123456789', account_name },
      customer,
    }).reference;
  };
  const order = (reference: string) => store.orders.get(reference)!;
  return { clock, store, lifecycle, commands, sent, onramp, offramp, order };
}

describe('createCommands', () => {
  it('cancels an unpaid order: cancelled, the reason on the timeline, order.cancelled sent, the pay-in window timer gone', () => {
    const t = makeOrders();
    const ref = t.onramp();
    expect(t.clock.pending).toBe(1);
    const detail = t.commands.cancel(ACME, ref, 'customer changed their mind');
    expect(detail.status).toBe('cancelled');
    expect(t.order(ref).timeline.find((e) => e.event === 'cancel_requested')?.details).toEqual({ reason: 'customer changed their mind' });
    expect(t.sent).toEqual(['order.created', 'order.cancelled']);
    expect(t.clock.pending).toBe(0);
    expect(t.lifecycle.pendingTimers(t.order(ref))).toEqual([]);
  });

  it("answers 404 for another partner's order or another environment's, without revealing it exists", () => {
    const t = makeOrders();
    const ref = t.onramp();
    for (const caller of [
      { partner: partner('ptr_other'), env: 'test' as const },
      { ...ACME, env: 'live' as const },
    ]) {
      const error = refusal(() => t.commands.cancel(caller, ref, undefined));
      expect([error.code, error.message]).toEqual(['E_NOTFOUND', `Order ${ref} not found`]);
      expect(refusal(() => t.commands.fulfil(caller, ref, { reference: 'r', institution: 'i' }, ALL_INCLUDES)).code).toBe('E_NOTFOUND');
    }
    expect(t.order(ref).status).toBe('awaiting_user_payment');
  });

  it('says why a cancel is refused: already cancelled, a pay-in received, or the status', () => {
    const t = makeOrders();
    const cancelled = t.onramp();
    t.commands.cancel(ACME, cancelled, undefined);
    expect(refusal(() => t.commands.cancel(ACME, cancelled, undefined)).message).toBe(
      `Order ${cancelled} cannot be cancelled: it is already cancelled`,
    );
    const partlyPaid = t.onramp();
    t.commands.simulatePayin(partlyPaid, { amount: 10_000 });
    expect(t.order(partlyPaid).status).toBe('awaiting_user_payment');
    const paid = refusal(() => t.commands.cancel(ACME, partlyPaid, undefined));
    expect([paid.code, paid.message]).toEqual([
      'E_BADREQUEST',
      `Order ${partlyPaid} cannot be cancelled: a pay-in has already been received`,
    ]);
    const processing = t.onramp();
    t.commands.simulatePayin(processing, {});
    expect(refusal(() => t.commands.cancel(ACME, processing, undefined)).message).toBe(
      `Order ${processing} cannot be cancelled: its status is processing`,
    );
    expect(t.order(partlyPaid).timeline.some((e) => e.event === 'cancel_requested')).toBe(false);
  });

  it('pays in the outstanding amount by default, confirmed: the order moves to processing', () => {
    const t = makeOrders();
    const ref = t.onramp();
    t.clock.advance(90_000);
    const detail = t.commands.simulatePayin(ref, { tx_reference: 'BANK-1' });
    expect(detail.status).toBe('processing');
    expect(detail.amount_paid).toBe(50_000);
    expect(detail.payin).toMatchObject({ tx_reference: ['BANK-1'], paid_at: new Date(T0 + 90_000).toISOString() });
    expect(t.sent).toEqual(['order.created', 'order.fiat_recieved']);
  });

  it('adds partial pay-ins until the due amount is covered', () => {
    const t = makeOrders();
    const ref = t.onramp();
    expect(t.commands.simulatePayin(ref, { amount: 20_000.5 }).status).toBe('awaiting_user_payment');
    const rest = t.commands.simulatePayin(ref, {});
    expect(rest.amount_paid).toBe(50_000);
    expect(rest.status).toBe('processing');
    expect(
      t
        .order(ref)
        .timeline.filter((e) => e.group === 'payin')
        .map((e) => e.details?.amount),
    ).toEqual([20_000.5, 29_999.5]);
  });

  it('refuses a pay-in the order cannot take, or with the wrong reference kind or precision (nothing recorded)', () => {
    const t = makeOrders();
    const ref = t.onramp();
    expect(refusal(() => t.commands.simulatePayin(ref, { tx_hash: TX_HASH })).message).toBe(
      'tx_hash: not allowed for a fiat pay-in; use tx_reference',
    );
    expect(refusal(() => t.commands.simulatePayin(ref, { amount: 10.123 })).message).toBe(
      'amount: 10.123 has more than 2 decimal places, the precision of NGN',
    );
    const crypto = t.offramp();
    expect(refusal(() => t.commands.simulatePayin(crypto, { tx_reference: 'BANK-1' })).message).toBe(
      'tx_reference: not allowed for a crypto pay-in; use tx_hash',
    );
    expect(refusal(() => t.commands.simulatePayin(crypto, { tx_hash: '0x12' })).message).toBe(
      'tx_hash: must be a evm transaction hash: 0x followed by 64 hex characters',
    );
    t.commands.simulatePayin(ref, {});
    const error = refusal(() => t.commands.simulatePayin(ref, {}));
    expect([error.code, error.message]).toEqual(['E_BADREQUEST', `A pay-in does not apply to order ${ref} in status processing`]);
    expect(refusal(() => t.commands.simulatePayin('ORDNOPE', {})).code).toBe('E_NOTFOUND');
    expect(t.order(ref).payinRefs).toHaveLength(1);
  });

  it('refunds a pay-in that arrives after the order was cancelled, then ends refunded', () => {
    const t = makeOrders();
    const ref = t.onramp();
    t.commands.cancel(ACME, ref, undefined);
    expect(t.commands.simulatePayin(ref, { amount: 500 }).status).toBe('cancelled');
    expect(t.order(ref).timeline.find((e) => e.group === 'payin')?.details).toMatchObject({ amount: 500, late: true });
    t.clock.advance(DEFAULT_TIMINGS.refund);
    expect(t.order(ref).status).toBe('refunded');
    expect(t.order(ref).context.refunded).toBe(500);
  });

  it('confirms a pay-in seen but not confirmed on fulfil, keeping the proof (fiat: reference and institution)', () => {
    const t = makeOrders();
    const ref = t.onramp();
    t.commands.simulatePayin(ref, { confirmed: false, tx_reference: 'SEEN-1' });
    expect(t.order(ref).status).toBe('pending');
    t.clock.advance(30_000);
    const detail = t.commands.fulfil(ACME, ref, { reference: 'PROOF-1', institution: 'GTBank' }, ALL_INCLUDES);
    expect(detail.status).toBe('processing');
    expect(detail.payin).toMatchObject({ tx_reference: ['SEEN-1', 'PROOF-1'], paid_at: new Date(T0 + 30_000).toISOString() });
    expect(t.order(ref).timeline.find((e) => e.event === 'proof_submitted')?.details).toEqual({
      reference: 'PROOF-1',
      institution: 'GTBank',
    });
    expect(detail.timeline?.map((e) => e.event)).toContain('proof_submitted');
  });

  it('refuses a fulfil with no pay-in awaiting confirmation, past the pay-in, or with a malformed proof', () => {
    const t = makeOrders();
    const ref = t.onramp();
    const early = refusal(() => t.commands.fulfil(ACME, ref, { reference: 'P', institution: 'I' }, ALL_INCLUDES));
    expect([early.code, early.message]).toEqual([
      'E_BADREQUEST',
      `Order ${ref} has no pay-in awaiting confirmation; fulfil confirms a pay-in that was seen but not confirmed (status pending)`,
    ]);
    // the wrong kind of proof is named as such (issue 6)
    expect(refusal(() => t.commands.fulfil(ACME, ref, { tx_hash: TX_HASH }, ALL_INCLUDES)).message).toBe(
      'tx_hash: not allowed for a fiat pay-in (onramp); send reference and institution',
    );
    expect(refusal(() => t.commands.fulfil(ACME, ref, { reference: 'P' }, ALL_INCLUDES)).message).toMatch(/^institution: /);
    const crypto = t.offramp();
    expect(refusal(() => t.commands.fulfil(ACME, crypto, { tx_hash: 'nope' }, ALL_INCLUDES)).message).toBe(
      'tx_hash: must be a evm transaction hash: 0x followed by 64 hex characters',
    );
    t.commands.simulatePayin(crypto, {});
    expect(refusal(() => t.commands.fulfil(ACME, crypto, { tx_hash: TX_HASH }, ALL_INCLUDES)).message).toBe(
      `Order ${crypto} cannot be fulfilled in status processing`,
    );
    expect(t.order(ref).payinRefs).toEqual([]);
    expect(t.order(ref).timeline.some((e) => e.event === 'proof_submitted')).toBe(false);
  });

  it('decides the payout outcome while it can: a failed payout ends refunded; once final it is refused', () => {
    const t = makeOrders();
    const ref = t.onramp();
    t.commands.simulatePayin(ref, {});
    t.commands.decidePayout(ref, { outcome: 'fail' });
    expect(t.order(ref).timeline.find((e) => e.event === 'outcome_set')?.details).toEqual({ outcome: 'fail' });
    const { processing, routing, lpAssignment, payout, refund } = DEFAULT_TIMINGS;
    t.clock.advance(processing + routing + lpAssignment + payout);
    expect(t.order(ref).status).toBe('failed');
    t.clock.advance(refund);
    expect(t.order(ref).status).toBe('refunded');
    const error = refusal(() => t.commands.decidePayout(ref, { outcome: 'success' }));
    expect([error.code, error.message]).toEqual(['E_BADREQUEST', `The payout of order ${ref} can no longer be decided: status refunded`]);
  });

  it('ends a payout under way at once when its outcome is decided in executing (partial: settled, part refunded)', () => {
    const t = makeOrders();
    const ref = t.onramp();
    t.commands.simulatePayin(ref, {});
    const { processing, routing, lpAssignment } = DEFAULT_TIMINGS;
    t.clock.advance(processing + routing + lpAssignment);
    expect(t.order(ref).status).toBe('executing');
    const detail = t.commands.decidePayout(ref, { outcome: 'partial', percentage: 40 });
    expect(detail.status).toBe('settled');
    expect(detail.percentage_settled).toBe(40);
    expect(t.order(ref).context.refundDue).toBe(30_000);
  });

  it('expires an open pay-in window now, and refuses once it is closed', () => {
    const t = makeOrders();
    const ref = t.onramp();
    t.clock.advance(5 * 60_000);
    const detail = t.commands.expire(ref);
    expect(detail.status).toBe('expired');
    expect(detail.payin.expires_at).toBe(new Date(T0 + 5 * 60_000).toISOString());
    expect(t.sent).toEqual(['order.created', 'order.expired']);
    expect(t.clock.pending).toBe(0);
    expect(refusal(() => t.commands.expire(ref)).message).toBe(`The pay-in window of order ${ref} is not open: status expired`);
  });

  it('expires into processing instead when part of the pay-in was confirmed', () => {
    const t = makeOrders();
    const ref = t.onramp();
    t.commands.simulatePayin(ref, { amount: 25_000 });
    expect(t.commands.expire(ref).status).toBe('processing');
    expect(t.order(ref).context.ratio).toBe(0.5);
  });
});
