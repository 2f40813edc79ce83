import { describe, expect, it } from 'vitest';
import { testPartner } from '../../test/support/partner';
import { VirtualClock } from '../clock';
import { createReferenceStore, DEFAULT_FIXTURES_DIR, loadFixturesOnce } from '../reference';
import { ApiError } from '../shared/errors';
import type { WebhookEvent } from '../shared/events';
import { createIds } from '../shared/ids';
import type { Caller } from './order.core';
import { createOrderService } from './order.service';
import { ORDER_STATUSES, type OrderStatus } from './model';

// CONTRACT §16: an order taken to a status in one call, along its machine's shortest path, with
// every webhook on the way, the virtual clock not moving and no other order touched.

const T0 = Date.UTC(2026, 0, 15, 12, 0, 0);
const EVM = '0x52908400098527886E0F7030069857D2E4169EE7';
const fixtures = loadFixturesOnce(DEFAULT_FIXTURES_DIR);

const partner = (clientId: string) => testPartner(clientId, T0);
const ACME: Caller = { partner: partner('ptr_acme'), env: 'test' };
const customer = { reference: 'cus_1', name: 'Ada Obi', email: 'ada@example.com' };

function setup() {
  const clock = new VirtualClock({ start: T0, mode: 'manual' });
  const reference = createReferenceStore(fixtures, { seed: 1, clock });
  const orders = createOrderService({ clock, reference, ids: createIds(1) });
  const sent: Array<[string, WebhookEvent, string]> = [];
  const onramp = () =>
    orders.create(ACME, {
      from: { currency: 'NGN', amount: 50_000 },
      to: { currency: 'USDT', network: 'base-sepolia' },
      recipient: { address: EVM },
      customer,
    }).reference;
  const offramp = () => {
    const account_name = reference.lookupAccount('058', '0123456789').account_name;
    return orders.create(ACME, {
      from: { currency: 'USDT', network: 'base-sepolia', amount: 100 },
      to: { currency: 'NGN' },
      recipient: { institution_code: '058', account_number: '0123456789', account_name },
      customer,
    }).reference;
  };
  const swap = () =>
    orders.create(ACME, {
      from: { currency: 'USDT', network: 'base-sepolia', amount: 100 },
      to: { currency: 'USDC', network: 'base-sepolia' },
      recipient: { address: EVM },
      customer,
    }).reference;
  const order = (ref: string) => orders.store.orders.get(ref)!;
  const webhooks = (ref: string) =>
    order(ref)
      .timeline.filter((e) => e.group === 'webhook')
      .map((e) => e.event);
  return { clock, orders, onramp, offramp, swap, order, webhooks, sent };
}

const go = (t: ReturnType<typeof setup>, ref: string, status: OrderStatus, reason?: string) =>
  t.orders.simulate(ref, status, reason === undefined ? {} : { reason });

describe('orders.simulate (CONTRACT §16)', () => {
  it('takes an onramp to completed: every status and webhook on the way, at the current virtual instant, the clock unmoved', async () => {
    const t = setup();
    const ref = t.onramp();
    const path = await go(t, ref, 'completed');
    expect(path).toEqual(['awaiting_user_payment', 'processing', 'routing', 'awaiting_lp_payment', 'executing', 'settled', 'completed']);
    expect(t.order(ref).status).toBe('completed');
    expect(t.webhooks(ref)).toEqual(['order.created', 'order.fiat_recieved', 'order.assigned', 'order.asset_released', 'order.settled']);
    expect(t.clock.now()).toBe(T0);
    expect(t.order(ref).timeline.every((e) => e.at === T0)).toBe(true);
    // Nothing of the order is left on the clock.
    expect(t.orders.pendingTimers(ref)).toEqual([]);
    expect(t.clock.pending).toBe(0);
    // What the partner sees is a paid order.
    expect(
      t
        .order(ref)
        .timeline.filter((e) => e.group === 'payin')
        .map((e) => e.event),
    ).toEqual(['confirmed']);
  });

  it('refunded goes through a failed payout, not a late pay-in to a cancelled order; the reason is on the failing step', async () => {
    const t = setup();
    const ref = t.offramp();
    const path = await go(t, ref, 'refunded', 'bank rejected the account');
    expect(path).toEqual(['awaiting_user_payment', 'processing', 'routing', 'awaiting_lp_payment', 'executing', 'failed', 'refunded']);
    const entry = t.order(ref).timeline.find((e) => e.event === 'outcome_set');
    expect(entry?.details).toMatchObject({ outcome: 'fail', reason: 'bank rejected the account' });
    expect(t.webhooks(ref)).toEqual(['order.created', 'order.asset_locked', 'order.assigned', 'order.fiat_sent', 'order.asset_refunded']);
  });

  it('partially_completed comes from a partial pay-in; failed and reverted from the payout outcome', async () => {
    const t = setup();
    const a = t.onramp();
    await go(t, a, 'partially_completed');
    const payins = t.order(a).timeline.filter((e) => e.group === 'payin');
    expect(payins).toHaveLength(1);
    expect(payins[0]!.details).toMatchObject({ amount: 25_000 });
    expect(t.order(a).status).toBe('partially_completed');
    for (const status of ['failed', 'reverted'] as const) {
      const ref = t.onramp();
      await go(t, ref, status);
      expect(t.order(ref).status).toBe(status);
      expect(t.order(ref).timeline.find((e) => e.event === 'outcome_set')?.details).toMatchObject({
        outcome: status === 'failed' ? 'fail' : 'revert',
      });
    }
  });

  it('expired, cancelled and pending in one step; the reason of an expiry on its status entry', async () => {
    const t = setup();
    const e = t.onramp();
    expect(await go(t, e, 'expired', 'customer never paid')).toEqual(['awaiting_user_payment', 'expired']);
    expect(t.order(e).timeline.find((x) => x.group === 'status' && x.event === 'expired')?.details).toEqual({
      reason: 'customer never paid',
    });
    const c = t.onramp();
    expect(await go(t, c, 'cancelled', 'duplicate')).toEqual(['awaiting_user_payment', 'cancelled']);
    expect(t.order(c).timeline.find((x) => x.event === 'cancel_requested')?.details).toEqual({ reason: 'duplicate' });
    const p = t.offramp();
    expect(await go(t, p, 'pending')).toEqual(['awaiting_user_payment', 'pending']);
    // …and on from pending: the pay-in is confirmed.
    expect(await go(t, p, 'completed')).toEqual([
      'pending',
      'processing',
      'routing',
      'awaiting_lp_payment',
      'executing',
      'settled',
      'completed',
    ]);
    expect(t.order(p).timeline.some((x) => x.event === 'proof_submitted')).toBe(true);
  });

  it('from a final status only what the machine allows: a late pay-in takes a cancelled order to refunded', async () => {
    const t = setup();
    const ref = t.onramp();
    await go(t, ref, 'cancelled');
    expect(await go(t, ref, 'refunded')).toEqual(['cancelled', 'refunded']);
    expect(t.order(ref).timeline.find((e) => e.group === 'payin')?.details).toMatchObject({ late: true });
  });

  it('refuses a status not reachable, or not in the type’s machine, with a 400 listing the reachable ones; nothing changes', async () => {
    const t = setup();
    const ref = t.onramp();
    await go(t, ref, 'completed');
    const version = t.order(ref).version;
    const error = await go(t, ref, 'processing').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ code: 'E_BADREQUEST' });
    expect((error as Error).message).toBe(
      `Order ${ref} (onramp, status completed) cannot be taken to processing: it is not reachable from completed. Nothing is reachable from completed: the order's lifecycle is over`,
    );
    const s = t.swap();
    const swapError = (await go(t, s, 'awaiting_lp_payment').catch((e: unknown) => e)) as Error;
    expect(swapError.message).toMatch(
      /awaiting_lp_payment is not a status of the swap lifecycle\. Reachable from awaiting_user_payment: .*processing.*completed/,
    );
    expect(swapError.message).not.toMatch(/Reachable from .*awaiting_lp_payment/);
    expect(t.order(ref).version).toBe(version);
    expect(t.order(s).status).toBe('awaiting_user_payment');
  });

  it('touches no other order and leaves the other orders’ timers on the clock', async () => {
    const t = setup();
    const other = t.onramp();
    const ref = t.onramp();
    await go(t, ref, 'completed');
    expect(t.order(other).status).toBe('awaiting_user_payment');
    expect(t.orders.pendingTimers(other)).toHaveLength(1);
    expect(t.clock.pending).toBe(1);
  });

  it('the status it is already in is a no-op; every status of each type is reachable from a new order except initiated', async () => {
    const t = setup();
    const ref = t.onramp();
    expect(await go(t, ref, 'awaiting_user_payment')).toEqual(['awaiting_user_payment']);
    for (const make of [t.onramp, t.offramp, t.swap]) {
      const reachable = t.orders.reachable(make());
      const type = t.order(make()).type;
      const expected = ORDER_STATUSES.filter(
        (s) => s !== 'initiated' && s !== 'awaiting_user_payment' && !(type === 'swap' && s === 'awaiting_lp_payment'),
      );
      expect([...reachable].sort(), type).toEqual([...expected].sort());
    }
  });

  it('waits for afterStep between steps, so deliveries can finish in order', async () => {
    const t = setup();
    const ref = t.onramp();
    const seen: string[] = [];
    await t.orders.simulate(ref, 'settled', {
      afterStep: () => {
        seen.push(t.order(ref).status);
        return Promise.resolve();
      },
    });
    expect(seen).toEqual(['processing', 'routing', 'awaiting_lp_payment', 'executing', 'settled']);
  });
});
