import { describe, expect, it } from 'vitest';
import type { Partner } from '../auth';
import { VirtualClock } from '../clock';
import { createReferenceStore, loadFixturesOnce, DEFAULT_FIXTURES_DIR } from '../reference';
import { conflict } from '../shared/errors';
import { createIds } from '../shared/ids';
import type { WebhookEvent } from '../shared/events';
import { createCore, type Caller } from './order.core';
import { createIntake } from './order.intake';
import { createLifecycle } from './order.lifecycle';
import { DEFAULT_TIMINGS } from './order.machine';
import { createQuotes } from './order.quotes';
import type { CreateOrderBody } from './model';
import { createPlainStore } from './store';
import { refusal } from '../../test/support/refusal';

// POST /v1/orders (spec §4.1, CONTRACT §3 and §9): every check before anything is stored, and a
// create that fails after storing takes the order back out.

const T0 = Date.UTC(2026, 0, 15, 12, 0, 0);
const EVM = '0x52908400098527886E0F7030069857D2E4169EE7';
const fixtures = loadFixturesOnce(DEFAULT_FIXTURES_DIR);

function partner(clientId: string, over: Partial<Partner> = {}): Partner {
  const set = (env: string) => ({ public_key: `pk_${env}_x`, secret_key: `sk_${env}_x`, encryption_key: `enc_${env}_x` });
  return {
    client_id: clientId,
    name: clientId,
    kyb_status: 'approved',
    webhook_url: null,
    events: [],
    ip_whitelist: [],
    keys: { test: set('test'), live: set('live') },
    created_at: new Date(T0).toISOString(),
    updated_at: new Date(T0).toISOString(),
    ...over,
  };
}

const ACME: Caller = { partner: partner('ptr_acme'), env: 'test' };

/** The intake on its own factories, with a bound (eviction's two calls) that logs or refuses. */
function makeIntake() {
  const clock = new VirtualClock({ start: T0, mode: 'manual' });
  const ref = createReferenceStore(fixtures, { seed: 1, clock });
  const ids = createIds(1);
  const store = createPlainStore();
  const core = createCore({ clock, ref, ids, timings: DEFAULT_TIMINGS, store });
  const lifecycle = createLifecycle(core);
  const calls: string[] = [];
  let full = false;
  const bound = {
    makeRoom: () => {
      calls.push(`makeRoom with ${store.orders.size} stored`);
      if (full) throw conflict('the store is full');
    },
    afterAdd: () => calls.push(`afterAdd with ${store.orders.size} stored`),
  };
  const intake = createIntake(core, lifecycle, bound);
  const quotes = createQuotes(core, 60_000);
  const sent: WebhookEvent[] = [];
  lifecycle.bus.on('order.emitted', (e) => {
    sent.push(e.event);
  });
  const setFull = (value: boolean) => {
    full = value;
  };
  return { clock, ref, store, lifecycle, intake, quotes, calls, sent, setFull };
}

const onramp = (over: Partial<CreateOrderBody> = {}): CreateOrderBody => ({
  from: { currency: 'NGN', amount: 50_000 },
  to: { currency: 'USDT', network: 'base-sepolia' },
  recipient: { address: EVM },
  customer: { reference: 'cus_1', name: 'Ada Obi', email: 'ada@example.com' },
  ...over,
});

describe('createIntake', () => {
  it('stores an onramp priced from its legs, awaiting payment, with order.created and a 30 min pay-in window', () => {
    const t = makeIntake();
    const detail = t.intake.create(ACME, onramp({ merchant_reference: 'm-1', metadata: { cart: 7 } }));
    expect(detail).toMatchObject({
      type: 'onramp',
      status: 'awaiting_user_payment',
      merchant_reference: 'm-1',
      customer_reference: 'cus_1',
      metadata: { cart: 7 },
      from: { currency: 'NGN', amount: 50_000 },
      to: { currency: 'USDT', network: 'base-sepolia' },
      recipient: { network: 'base-sepolia', address: EVM },
      payin: { currency: 'NGN', amount: 50_000, expires_at: new Date(T0 + 30 * 60_000).toISOString(), paid_at: null },
      created_at: new Date(T0).toISOString(),
    });
    expect(detail.reference).toMatch(/^ORD[A-Z2-9]{13}$/);
    const order = t.store.orders.get(detail.reference)!;
    expect(order.clientId).toBe('ptr_acme');
    expect(order.env).toBe('test');
    expect(order.timeline.map((e) => `${e.group} ${e.event}`)).toEqual([
      'status initiated',
      'status awaiting_user_payment',
      'webhook order.created',
    ]);
    expect(t.sent).toEqual(['order.created']);
    expect(t.lifecycle.pendingTimers(order).map(([id]) => id)).toEqual(['xstate.after.payinWindow.order-onramp.awaiting_user_payment']);
    expect(t.calls).toEqual(['makeRoom with 0 stored', 'afterAdd with 1 stored']);
  });

  it('gives a pay-in reference to the order it was made for only', () => {
    const t = makeIntake();
    const [a, b] = [t.intake.create(ACME, onramp()), t.intake.create(ACME, onramp())].map((d) => t.store.orders.get(d.reference)!);
    t.lifecycle.recordPayin(a!, 50_000, true, 'BANKREF1');
    expect(a!.payinRefs).toEqual(['BANKREF1']);
    expect(b!.payinRefs).toEqual([]);
    expect(a!.status).not.toBe(b!.status);
  });

  it('refuses a partner that is not KYB-approved with a 403, storing nothing', () => {
    const t = makeIntake();
    const pending: Caller = { partner: partner('ptr_pending', { kyb_status: 'pending' }), env: 'test' };
    const error = refusal(() => t.intake.create(pending, onramp()));
    expect(error.code).toBe('E_FORBIDDEN');
    expect(error.message).toMatch(/not KYB-approved \(kyb_status pending\)/);
    expect(t.store.orders.size).toBe(0);
    expect(t.calls).toEqual([]);
  });

  it('needs both legs without a quote, and neither legs nor partner_fee with one (422 naming the field)', () => {
    const t = makeIntake();
    const noTo = refusal(() => t.intake.create(ACME, onramp({ to: undefined })));
    expect([noTo.code, noTo.message]).toEqual(['E_VALIDATION_ERROR', 'to: required when quote_id is not given']);
    expect(refusal(() => t.intake.create(ACME, onramp({ from: undefined }))).message).toBe('from: required when quote_id is not given');
    const legsAndQuote = refusal(() => t.intake.create(ACME, { ...onramp(), quote_id: 'qt_x' }));
    expect(legsAndQuote.message).toBe('from: not allowed with quote_id (the quote fixes both legs)');
    const feeAndQuote = refusal(() =>
      t.intake.create(ACME, { ...onramp({ from: undefined, to: undefined }), quote_id: 'qt_x', partner_fee: 1 }),
    );
    expect(feeAndQuote.message).toMatch(/^partner_fee: not allowed with quote_id/);
    expect(t.store.orders.size).toBe(0);
  });

  it('refuses a recipient of the wrong shape for the type (422 recipient.<field>)', () => {
    const t = makeIntake();
    const error = refusal(() => t.intake.create(ACME, onramp({ recipient: { account_number: '0123456789' } })));
    expect(error.code).toBe('E_VALIDATION_ERROR');
    expect(error.message).toMatch(/^recipient\.address: /);
    const bad = refusal(() => t.intake.create(ACME, onramp({ recipient: { address: '0x1234' } })));
    expect(bad.message).toBe('recipient.address: must be a evm address: 0x followed by 40 hex characters (network base-sepolia)');
  });

  it('creates from a quote with the quote’s legs and pricing, spends it, and notes it on the timeline', () => {
    const t = makeIntake();
    const q = t.quotes.quote(ACME, {
      from: { currency: 'NGN', amount: 20_000 },
      to: { currency: 'USDT', network: 'base-sepolia' },
      partner_fee: 1,
    });
    const detail = t.intake.create(ACME, onramp({ from: undefined, to: undefined, quote_id: q.quote_id }));
    expect(detail.from).toEqual(q.from);
    expect(detail.to).toEqual(q.to);
    expect(detail.pricing).toEqual(q.pricing);
    expect(detail.fee).toEqual(q.fee);
    expect(t.store.quotes.get(q.quote_id)?.used).toBe(true);
    const order = t.store.orders.get(detail.reference)!;
    expect(order.timeline.find((e) => e.event === 'quote_used')?.details).toEqual({ quote_id: q.quote_id });
    // CONTRACT §3: a quote already used is a 409
    const again = refusal(() => t.intake.create(ACME, onramp({ from: undefined, to: undefined, quote_id: q.quote_id })));
    expect([again.code, again.message]).toEqual(['E_CONFLICT', `quote_id: quote ${q.quote_id} was already used for an order`]);
  });

  it('refuses an expired quote (400 naming when it expired), and one of another partner or environment as unknown', () => {
    const t = makeIntake();
    const body = { from: { currency: 'NGN', amount: 20_000 }, to: { currency: 'USDT', network: 'base-sepolia' } };
    const q = t.quotes.quote(ACME, body);
    const use = (caller: Caller) => () => t.intake.create(caller, onramp({ from: undefined, to: undefined, quote_id: q.quote_id }));
    const stranger = refusal(use({ partner: partner('ptr_other'), env: 'test' }));
    expect([stranger.code, stranger.message]).toEqual(['E_BADREQUEST', `quote_id: unknown quote ${q.quote_id}`]);
    expect(refusal(use({ ...ACME, env: 'live' })).message).toBe(`quote_id: unknown quote ${q.quote_id}`);
    t.clock.advance(60_000);
    expect(t.intake.create(ACME, onramp({ from: undefined, to: undefined, quote_id: q.quote_id })).status).toBe('awaiting_user_payment'); // at expiry: still usable
    const late = t.quotes.quote(ACME, body);
    t.clock.advance(60_001);
    const expired = refusal(() => t.intake.create(ACME, onramp({ from: undefined, to: undefined, quote_id: late.quote_id })));
    expect([expired.code, expired.message]).toEqual([
      'E_BADREQUEST',
      `quote_id: quote expired at ${new Date(T0 + 120_000).toISOString()}; create a new quote`,
    ]);
    expect(t.store.quotes.get(late.quote_id)?.used).toBe(false);
  });

  it('refuses a merchant_reference the partner already used in that environment (409), and allows it elsewhere', () => {
    const t = makeIntake();
    const first = t.intake.create(ACME, onramp({ merchant_reference: 'inv-1' }));
    const dup = refusal(() => t.intake.create(ACME, onramp({ merchant_reference: 'inv-1' })));
    expect([dup.code, dup.status, dup.message]).toEqual([
      'E_CONFLICT',
      409,
      `merchant_reference: inv-1 is already used by order ${first.reference}`,
    ]);
    // The lost-response retry (CONTRACT §12): the same body, its quote included, is told where its
    // order is, not that the quote was used.
    const q = t.quotes.quote(ACME, { from: { currency: 'NGN', amount: 20_000 }, to: { currency: 'USDT', network: 'base-sepolia' } });
    const body = onramp({ from: undefined, to: undefined, quote_id: q.quote_id, merchant_reference: 'inv-q' });
    const made = t.intake.create(ACME, body);
    expect(refusal(() => t.intake.create(ACME, body)).message).toBe(`merchant_reference: inv-q is already used by order ${made.reference}`);
    expect(
      t.intake.create({ partner: partner('ptr_other'), env: 'test' }, onramp({ merchant_reference: 'inv-1' })).merchant_reference,
    ).toBe('inv-1');
    const live = onramp({ merchant_reference: 'inv-1', to: { currency: 'USDT', network: 'base' } });
    expect(t.intake.create({ ...ACME, env: 'live' }, live).merchant_reference).toBe('inv-1');
    expect(t.store.orders.size).toBe(4); // inv-1 three times (test, another partner, live) and inv-q
  });

  it('refuses an unknown provider_id with a 400', () => {
    const t = makeIntake();
    expect(refusal(() => t.intake.create(ACME, onramp({ provider_id: 2 }))).message).toBe('provider_id: unknown provider 2');
    expect(t.intake.create(ACME, onramp({ provider_id: 1 })).status).toBe('awaiting_user_payment');
  });

  it('takes the payout outcome from a magic recipient and holds a magic amount in initiated', () => {
    const t = makeIntake();
    const failing = t.intake.create(ACME, onramp({ recipient: { address: `0x${'1'.repeat(36)}dead` } }));
    expect(t.store.orders.get(failing.reference)!.context.outcome).toBe('fail');
    const name = t.ref.lookupAccount('058', '2222222222').account_name;
    const offramp = t.intake.create(ACME, {
      from: { currency: 'USDT', network: 'base-sepolia', amount: 100 },
      to: { currency: 'NGN' },
      recipient: { institution_code: '058', account_number: '2222222222', account_name: name },
      customer: { reference: 'cus_2', name: 'Ada Obi', email: 'ada@example.com' },
    });
    expect(offramp.type).toBe('offramp');
    expect(t.store.orders.get(offramp.reference)!.context.outcome).toBe('revert');
    t.sent.length = 0;
    const held = t.intake.create(ACME, onramp({ from: { currency: 'NGN', amount: 4444 } }));
    expect(held.status).toBe('initiated');
    expect(t.sent).toEqual([]);
  });

  it('refuses an offramp whose account name does not match the bank record (422)', () => {
    const t = makeIntake();
    const error = refusal(() =>
      t.intake.create(ACME, {
        from: { currency: 'USDT', network: 'base-sepolia', amount: 100 },
        to: { currency: 'NGN' },
        recipient: { institution_code: '058', account_number: '0123456789', account_name: 'SOMEONE ELSE' },
        customer: { reference: 'cus_2', name: 'Ada Obi', email: 'ada@example.com' },
      }),
    );
    expect(error.message).toBe('recipient.account_name: does not match the bank record for this account (GET /v1/account-lookup)');
    expect(t.store.orders.size).toBe(0);
  });

  it('refuses metadata that cannot be rendered as JSON before storing anything', () => {
    const t = makeIntake();
    const error = refusal(() => t.intake.create(ACME, onramp({ metadata: { amount: 10n } })));
    expect([error.code, error.message]).toEqual(['E_VALIDATION_ERROR', 'metadata: cannot be rendered as JSON']);
    expect(t.store.orders.size).toBe(0);
    expect(t.calls).toEqual([]);
  });

  it('refuses a create into a full store last, without spending the quote or drawing a reference', () => {
    const full = makeIntake();
    const twin = makeIntake();
    const body = { from: { currency: 'NGN', amount: 20_000 }, to: { currency: 'USDT', network: 'base-sepolia' } };
    const q = full.quotes.quote(ACME, body);
    const twinQuote = twin.quotes.quote(ACME, body);
    full.setFull(true);
    const error = refusal(() => full.intake.create(ACME, onramp({ from: undefined, to: undefined, quote_id: q.quote_id })));
    expect(error.message).toBe('the store is full');
    expect(full.calls).toEqual(['makeRoom with 0 stored']);
    expect(full.store.orders.size).toBe(0);
    expect(full.store.quotes.get(q.quote_id)?.used).toBe(false);
    expect(full.clock.pending).toBe(1); // the quote's own timer, no order timer
    // Nothing was drawn: the next create gets the reference and pay-in account it would have had anyway.
    full.setFull(false);
    const after = full.intake.create(ACME, onramp({ from: undefined, to: undefined, quote_id: q.quote_id }));
    const unrefused = twin.intake.create(ACME, onramp({ from: undefined, to: undefined, quote_id: twinQuote.quote_id }));
    expect(after.reference).toBe(unrefused.reference);
    expect(after.payin).toEqual(unrefused.payin);
  });

  it('takes a stored order back out when its start fails: no order, no timer, the quote usable again', () => {
    const t = makeIntake();
    const q = t.quotes.quote(ACME, { from: { currency: 'NGN', amount: 20_000 }, to: { currency: 'USDT', network: 'base-sepolia' } });
    const timersBefore = t.clock.pending;
    const boom = () => {
      throw new Error('listener failed');
    };
    const off = t.lifecycle.bus.on('order.emitted', boom);
    expect(() =>
      t.intake.create(ACME, onramp({ from: undefined, to: undefined, quote_id: q.quote_id, merchant_reference: 'inv-9' })),
    ).toThrow('listener failed');
    expect(t.store.orders.size).toBe(0);
    expect(t.store.list({ clientId: 'ptr_acme', env: 'test' })).toEqual([]);
    expect(t.store.byMerchantReference({ clientId: 'ptr_acme', env: 'test' }, 'inv-9')).toBeUndefined();
    expect(t.store.quotes.get(q.quote_id)?.used).toBe(false);
    expect(t.clock.pending).toBe(timersBefore);
    expect(t.calls).toEqual(['makeRoom with 0 stored']); // afterAdd never ran
    off();
    expect(
      t.intake.create(ACME, onramp({ from: undefined, to: undefined, quote_id: q.quote_id, merchant_reference: 'inv-9' })).status,
    ).toBe('awaiting_user_payment');
  });
});
