import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ORDER_STATUSES } from '../../src/orders';
import { WEBHOOK_EVENTS } from '../../src/shared/events';
import { advance, createOrder, eventsOf, getOrder, recipientFor, statusesOf, TRON_ADDRESS, type OrderType } from '../support/orders';
import { startTestServer, type TestServer } from '../support/server';

let s: TestServer;
const seenStatuses = new Set<string>();
const seenEvents = new Set<string>();

beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s.close());

/** Reads the order, and remembers what it went through for the reachability test. */
async function read(reference: string) {
  const o = await getOrder(s, reference);
  for (const x of statusesOf(o)) seenStatuses.add(x);
  for (const x of eventsOf(o)) seenEvents.add(x);
  return o;
}

const payin = (ref: string, body: Record<string, unknown> = {}) => s.control('POST', `/sandbox/orders/${ref}/payin`, body);

const HAPPY: Record<OrderType, { statuses: string[]; events: string[] }> = {
  onramp: {
    statuses: ['initiated', 'awaiting_user_payment', 'processing', 'routing', 'awaiting_lp_payment', 'executing', 'settled', 'completed'],
    events: ['order.created', 'order.fiat_recieved', 'order.assigned', 'order.asset_released', 'order.settled'],
  },
  offramp: {
    statuses: ['initiated', 'awaiting_user_payment', 'processing', 'routing', 'awaiting_lp_payment', 'executing', 'settled', 'completed'],
    events: ['order.created', 'order.asset_locked', 'order.assigned', 'order.fiat_sent', 'order.settled'],
  },
  swap: {
    statuses: ['initiated', 'awaiting_user_payment', 'processing', 'routing', 'executing', 'settled', 'completed'],
    events: ['order.created', 'order.asset_locked', 'order.assigned', 'order.asset_released', 'order.settled'],
  },
};

describe.each(['onramp', 'offramp', 'swap'] as const)('%s lifecycle', (type) => {
  it('walks the happy path to completed within 1 h of virtual time after a confirmed pay-in', async () => {
    const created = await createOrder(s, type);
    expect(created.status).toBe('awaiting_user_payment');
    expect(created.payin.expires_at).toBe(new Date(Date.parse(created.created_at) + 30 * 60_000).toISOString());
    expect(created.payin.paid_at).toBeNull();
    expect(created.payin[type === 'onramp' ? 'tx_reference' : 'tx_hash']).toEqual([]);

    const paid = await payin(created.reference);
    expect(paid.status).toBe(200);
    expect(paid.body.data).toMatchObject({ status: 'processing', amount_paid: created.from.amount });

    await advance(s, '1h');
    const o = await read(created.reference);
    expect(o.status).toBe('completed');
    expect(statusesOf(o)).toEqual(HAPPY[type].statuses);
    expect(eventsOf(o)).toEqual(HAPPY[type].events);
    expect(o).toMatchObject({
      amount_paid: created.from.amount,
      amount_settled: created.to.amount,
      amount_refunded: 0,
      percentage_settled: 100,
    });
    expect(o.payout).toHaveLength(1);
    expect(o.payout[0]).toMatchObject({ amount: created.to.amount, percentage: 100, paid_at: expect.any(String) });
    expect(o.refund).toBeUndefined();
    expect(Date.parse(o.updated_at)).toBeGreaterThan(Date.parse(o.created_at));
    if (type === 'swap') expect(o.fee).toBeUndefined();
    else expect(o.fee.fee_in_rate).toBe(false);
  });

  it('expires an unpaid order when the pay-in window elapses', async () => {
    const created = await createOrder(s, type);
    await advance(s, '29m');
    expect((await read(created.reference)).status).toBe('awaiting_user_payment');
    await advance(s, '1m');
    const o = await read(created.reference);
    expect(o.status).toBe('expired');
    expect(eventsOf(o)).toEqual(['order.created', 'order.expired']);
  });

  it('refunds a late pay-in on an expired order', async () => {
    const created = await createOrder(s, type);
    await s.control('POST', `/sandbox/orders/${created.reference}/expire`);
    const late = await payin(created.reference);
    expect(late.status).toBe(200);
    expect(late.body.data.status).toBe('expired');
    await advance(s, '1h');
    const o = await read(created.reference);
    expect(o.status).toBe('refunded');
    expect(o.amount_refunded).toBe(created.from.amount);
    expect(o.refund).toMatchObject({ amount: created.from.amount, refunded_at: expect.any(String) });
    expect(eventsOf(o)).toEqual(['order.created', 'order.expired', ...(type === 'onramp' ? [] : ['order.asset_refunded'])]);
  });

  it('cancels before pay-in, refuses to cancel twice, and refunds a late pay-in', async () => {
    const created = await createOrder(s, type);
    const res = await s.signed('PATCH', `/v1/orders/${created.reference}/cancel`, { reason: 'customer left' });
    expect(res.status).toBe(200);
    expect(res.body.data.status).toBe('cancelled');
    const twice = await s.signed('PATCH', `/v1/orders/${created.reference}/cancel`, { reason: 'again' });
    expect(twice.status).toBe(400);
    expect(twice.body.message).toMatch(/already cancelled/);
    await payin(created.reference);
    await advance(s, '1h');
    const o = await read(created.reference);
    expect(o.status).toBe('refunded');
    expect(eventsOf(o).slice(0, 2)).toEqual(['order.created', 'order.cancelled']);
  });

  it('refuses to cancel after a pay-in', async () => {
    const created = await createOrder(s, type);
    await payin(created.reference, { amount: created.from.amount / 2 });
    const res = await s.signed('PATCH', `/v1/orders/${created.reference}/cancel`, {});
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/pay-in/);
  });

  it('proceeds with an underpayment at window end and ends partially_completed', async () => {
    const created = await createOrder(s, type);
    const half = created.from.amount / 2;
    const res = await payin(created.reference, { amount: half });
    expect(res.body.data).toMatchObject({ status: 'awaiting_user_payment', amount_paid: half });
    await advance(s, '2h');
    const o = await read(created.reference);
    expect(o.status).toBe('partially_completed');
    expect(o.percentage_settled).toBe(50);
    expect(Math.abs(o.amount_settled - created.to.amount / 2)).toBeLessThanOrEqual(0.01);
    expect(o.amount_refunded).toBe(0);
    expect(eventsOf(o)).toContain('order.settled');
  });

  it('refunds the excess of an overpayment and completes', async () => {
    const created = await createOrder(s, type);
    const over = created.from.amount * 1.25;
    await payin(created.reference, { amount: over });
    await advance(s, '1h');
    const o = await read(created.reference);
    expect(o.status).toBe('completed');
    expect(o.amount_paid).toBeCloseTo(over, 5);
    expect(o.amount_refunded).toBeCloseTo(over - created.from.amount, 5);
    expect(o.percentage_settled).toBe(100);
    expect(o.refund.amount).toBeCloseTo(over - created.from.amount, 5);
    if (type !== 'onramp') expect(eventsOf(o)).toContain('order.asset_refunded');
  });

  it('holds an unconfirmed pay-in as pending until fulfil confirms it', async () => {
    const created = await createOrder(s, type);
    const seen = await payin(created.reference, { confirmed: false });
    expect(seen.body.data).toMatchObject({ status: 'pending', amount_paid: 0 });
    await advance(s, '2h');
    expect((await read(created.reference)).status).toBe('pending');
    const body = type === 'onramp' ? { reference: 'BANKREF123', institution: 'GTBank' } : { tx_hash: `0x${'ab'.repeat(32)}` };
    const wrong = type === 'onramp' ? { tx_hash: `0x${'ab'.repeat(32)}` } : { reference: 'x', institution: 'y' };
    const bad = await s.signed('POST', `/v1/orders/${created.reference}/fulfill`, wrong);
    expect(bad.status).toBe(422);
    // the wrong kind of proof is named as such (issue 6), not as a missing field
    expect(bad.body.message).toBe(
      type === 'onramp'
        ? 'tx_hash: not allowed for a fiat pay-in (onramp); send reference and institution'
        : 'reference: not allowed for a crypto pay-in (offramp, swap); send tx_hash',
    );
    // a proof of its own kind with a field missing still names the field
    const half = await s.signed(
      'POST',
      `/v1/orders/${created.reference}/fulfill`,
      type === 'onramp' ? { reference: 'BANKREF123' } : { tx_hash: '' },
    );
    expect(half.status).toBe(422);
    expect(half.body.message).toMatch(type === 'onramp' ? /^institution: / : /^tx_hash: (?!not allowed)/);
    const res = await s.signed('POST', `/v1/orders/${created.reference}/fulfill?include=timeline`, body);
    expect(res.status).toBe(200);
    expect(res.body.data.status).toBe('processing');
    expect(res.body.data.amount_paid).toBe(created.from.amount);
    expect(res.body.data.timeline.some((t: any) => t.event === 'proof_submitted')).toBe(true);
    expect(res.body.data.payout).toBeUndefined();
    await advance(s, '1h');
    expect((await read(created.reference)).status).toBe('completed');
  });

  it('fails the payout on demand, then refunds', async () => {
    const created = await createOrder(s, type);
    expect((await s.control('POST', `/sandbox/orders/${created.reference}/payout`, { outcome: 'fail' })).status).toBe(200);
    await payin(created.reference);
    await advance(s, '2h');
    const o = await read(created.reference);
    expect(o.status).toBe('refunded');
    expect(statusesOf(o)).toContain('failed');
    expect(o).toMatchObject({ amount_refunded: created.from.amount, amount_settled: 0, percentage_settled: 0 });
    expect(o.payout[0].paid_at).toBeNull();
    expect(eventsOf(o)).not.toContain('order.settled');
    expect(eventsOf(o).includes('order.asset_refunded')).toBe(type !== 'onramp');
  });

  it('reverts a sent payout at once when decided while it runs, then refunds', async () => {
    const created = await createOrder(s, type);
    await payin(created.reference);
    await advance(s, type === 'swap' ? '3m' : '6m');
    expect((await read(created.reference)).status).toBe('executing');
    const res = await s.control('POST', `/sandbox/orders/${created.reference}/payout`, { outcome: 'revert' });
    expect(res.body.data.status).toBe('reverted');
    expect(res.body.data.payout[0].paid_at).not.toBeNull();
    await advance(s, '1h');
    const o = await read(created.reference);
    expect(o.status).toBe('refunded');
    expect(o.amount_refunded).toBe(created.from.amount);
  });

  it('pays out part of the order and refunds the rest', async () => {
    const created = await createOrder(s, type);
    await s.control('POST', `/sandbox/orders/${created.reference}/payout`, { outcome: 'partial', percentage: 40 });
    await payin(created.reference);
    await advance(s, '1h');
    const o = await read(created.reference);
    expect(o.status).toBe('partially_completed');
    expect(o.percentage_settled).toBe(40);
    expect(o.amount_refunded).toBeCloseTo(created.from.amount * 0.6, 4);
    expect(o.payout[0].percentage).toBe(40);
  });
});

describe('statuses and events', () => {
  it('holds a magic-amount order in initiated, then issues its pay-in instructions', async () => {
    const created = await createOrder(s, 'onramp', {
      from: { currency: 'NGN', amount: 4444 },
      to: { currency: 'USDT', network: 'base-sepolia' },
    });
    expect(created.status).toBe('initiated');
    expect(created.payin.expires_at).toBeNull();
    const early = await s.signed('PATCH', `/v1/orders/${created.reference}/cancel`, {});
    expect(early.status).toBe(200);
    const held = await createOrder(s, 'onramp', {
      from: { currency: 'NGN', amount: 4444 },
      to: { currency: 'USDT', network: 'base-sepolia' },
    });
    await advance(s, '2m');
    const o = await read(held.reference);
    expect(o.status).toBe('awaiting_user_payment');
    expect(o.payin.expires_at).toBe(new Date(Date.parse(o.updated_at) + 30 * 60_000).toISOString());
    await read(created.reference);
  });

  it('reaches every one of the 15 statuses and emits every one of the 10 events', () => {
    expect([...seenStatuses].sort()).toEqual([...ORDER_STATUSES].sort());
    expect([...seenEvents].sort()).toEqual([...WEBHOOK_EVENTS].sort());
  });
});

describe('simulation controls', () => {
  it('answers 400 for a step the status does not allow, 404 for an unknown order', async () => {
    const created = await createOrder(s, 'swap');
    await payin(created.reference);
    await advance(s, '1h');
    expect((await payin(created.reference)).status).toBe(400);
    expect((await s.control('POST', `/sandbox/orders/${created.reference}/payout`, { outcome: 'fail' })).status).toBe(400);
    expect((await s.control('POST', `/sandbox/orders/${created.reference}/expire`)).status).toBe(400);
    expect((await payin('ORDNOPE')).status).toBe(404);
  });

  it('validates control bodies', async () => {
    const created = await createOrder(s, 'offramp');
    const cases: Array<[string, Record<string, unknown>, RegExp]> = [
      ['payout', { outcome: 'partial' }, /^percentage: /],
      ['payout', { outcome: 'success', percentage: 20 }, /^percentage: /],
      ['payout', { outcome: 'maybe' }, /^outcome: /],
      ['payin', { amount: -1 }, /^amount: /],
      ['payin', { tx_reference: 'abc' }, /^tx_reference: /],
      ['payin', { tx_hash: 'nothex' }, /^tx_hash: /],
      ['payin', { confirmed: 'yes' }, /^confirmed: /],
    ];
    for (const [step, body, message] of cases) {
      const res = await s.control('POST', `/sandbox/orders/${created.reference}/${step}`, body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body.message).toMatch(message);
    }
  });

  it('takes the pay-in at once: the response shows amount_paid and the new status', async () => {
    const created = await createOrder(s, 'onramp');
    const res = await payin(created.reference, { amount: 10_000, tx_reference: 'MYREF1' });
    expect(res.body.data).toMatchObject({ status: 'awaiting_user_payment', amount_paid: 10_000 });
    expect(res.body.data.payin.tx_reference).toEqual(['MYREF1']);
    const rest = await payin(created.reference);
    expect(rest.body.data).toMatchObject({ status: 'processing', amount_paid: created.from.amount });
  });

  it('expires on demand', async () => {
    const created = await createOrder(s, 'offramp');
    const res = await s.control('POST', `/sandbox/orders/${created.reference}/expire`);
    expect(res.body.data.status).toBe('expired');
    expect(res.body.data.payin.expires_at).toBe(new Date(await nowMs()).toISOString());
  });
});

describe('magic values through /v1 alone', () => {
  const run = async (type: OrderType, over: Record<string, unknown>, duration = '2h') => {
    const created = await createOrder(s, type, over);
    await advance(s, duration);
    return read(created.reference);
  };

  it('7777 pays in automatically and completes', async () => {
    const o = await run('onramp', { from: { currency: 'KES', amount: 7777 }, to: { currency: 'USDC', network: 'base-sepolia' } });
    expect(o.status).toBe('completed');
    expect(o.payin.paid_at).toBe(new Date(Date.parse(o.created_at) + 60_000).toISOString());
  });

  it('5555 pays in half and ends partially_completed', async () => {
    const o = await run('offramp', {
      from: { currency: 'USDT', network: 'base-sepolia', amount: 5555 },
      to: { currency: 'NGN' },
    });
    expect(o.status).toBe('partially_completed');
    expect(o.percentage_settled).toBe(50);
  });

  it('8888 overpays by 10% and refunds the excess', async () => {
    const o = await run('swap', {
      from: { currency: 'USDC', network: 'base-sepolia', amount: 8888 },
      to: { currency: 'ETH', network: 'base-sepolia' },
    });
    expect(o.status).toBe('completed');
    expect(o.amount_refunded).toBeCloseTo(888.8, 4);
  });

  it('6666 is seen unconfirmed and waits for fulfil', async () => {
    const o = await run('onramp', { from: { currency: 'NGN', amount: 6666 }, to: { currency: 'USDT', network: 'base-sepolia' } });
    expect(o.status).toBe('pending');
  });

  it('account 1111111111 fails the offramp payout; 2222222222 reverts it; 3333333333 lands 50%', async () => {
    const pay = async (acct: string) => {
      const created = await createOrder(s, 'offramp', { recipient: await recipientFor(s, 'offramp', { accountNumber: acct }) });
      await payin(created.reference);
      await advance(s, '2h');
      return read(created.reference);
    };
    const failed = await pay('1111111111');
    expect(statusesOf(failed)).toContain('failed');
    expect(failed.status).toBe('refunded');
    const reverted = await pay('2222222222');
    expect(statusesOf(reverted)).toContain('reverted');
    expect(reverted.status).toBe('refunded');
    const partial = await pay('3333333333');
    expect(partial.status).toBe('partially_completed');
    expect(partial.percentage_settled).toBe(50);
  });

  it('crypto addresses ending in dead / beef fail / revert the payout', async () => {
    for (const [address, status] of [
      [`0x${'1'.repeat(36)}dead`, 'failed'],
      [`0x${'1'.repeat(36)}BEEF`, 'reverted'],
    ] as const) {
      const created = await createOrder(s, 'onramp', { recipient: { address } });
      await payin(created.reference);
      await advance(s, '2h');
      const o = await read(created.reference);
      expect(statusesOf(o)).toContain(status);
      expect(o.status).toBe('refunded');
    }
  });

  it('accepts a tron recipient on a tron network', async () => {
    const created = await createOrder(s, 'onramp', {
      to: { currency: 'USDT', network: 'tron-nile' },
      recipient: { address: TRON_ADDRESS },
    });
    expect(created.recipient).toEqual({ network: 'tron-nile', address: TRON_ADDRESS });
    expect(created.payin.account_number).toMatch(/^\d{10}$/);
  });
});

async function nowMs(): Promise<number> {
  return (await s.control('GET', '/sandbox/clock')).body.data.now_ms;
}

describe('configurable delays', () => {
  it('uses the pay-in window and step delays it is given', async () => {
    const c = await startTestServer({ payinWindowMs: 60_000, lifecycleDelays: { processing: 10_000 } });
    try {
      const o = await createOrder(c, 'swap');
      expect(Date.parse(o.payin.expires_at) - Date.parse(o.created_at)).toBe(60_000);
      await c.control('POST', `/sandbox/orders/${o.reference}/payin`, {});
      await advance(c, '10s');
      expect((await getOrder(c, o.reference)).status).toBe('routing');
      const late = await createOrder(c, 'swap');
      await advance(c, '1m');
      expect((await getOrder(c, late.reference)).status).toBe('expired');
    } finally {
      await c.close();
    }
  });
});
