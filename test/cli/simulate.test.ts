import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli';
import { deadUrl } from '../support/free-port';
import { startReceiver, type Receiver } from '../support/receiver';
import { startTestServer, type Caller, type TestServer } from '../support/server';

// CONTRACT §16/§17: `ramp-sandbox simulate REF STATUS [--reason TEXT]`.
const TOKEN = 'simulate-token';
let s: TestServer;
let receiver: Receiver;
let partner: Caller;
beforeAll(async () => {
  [s, receiver] = await Promise.all([startTestServer({ adminToken: TOKEN }), startReceiver()]);
  partner = await s.createPartner({ name: 'Simulate', webhook_url: receiver.url });
});
afterAll(async () => {
  await Promise.all([s?.close(), receiver?.close()]);
});

const newOrder = async () =>
  (
    await s.controlApi.sandboxCreateOrder({
      body: { client_id: partner.clientId, from: { currency: 'NGN', amount: 50_000 }, to: { currency: 'USDT', network: 'base-sepolia' } },
    })
  ).reference;
const simulate = (...args: string[]) => runCli(['simulate', '--sandbox', s.url, '--admin-token', TOKEN, ...args]);

describe('ramp-sandbox simulate', () => {
  it('takes an order to a status in one call and prints the statuses it passed through', async () => {
    const reference = await newOrder();
    const res = await simulate(reference, 'completed');
    expect(res).toMatchObject({ code: 0, stderr: '' });
    expect(res.stdout).toBe(
      `${reference} completed: awaiting_user_payment → processing → routing → awaiting_lp_payment → executing → settled → completed\n`,
    );
    const order = await s.controlApi.sandboxGetOrder({ params: { reference } });
    expect(order.status).toBe('completed');
    // Every webhook on the way reached the receiver, in order, by the time the command ended.
    const events = receiver.received.filter((r) => r.body?.data?.reference === reference).map((r) => r.body.event);
    expect(events).toEqual(['order.created', 'order.fiat_recieved', 'order.assigned', 'order.asset_released', 'order.settled']);
  });

  it('--reason is recorded on the failing step; --json prints the order with its path', async () => {
    const reference = await newOrder();
    const res = await simulate(reference, 'refunded', '--reason', 'bank rejected the account', '--json');
    expect(res).toMatchObject({ code: 0, stderr: '' });
    const order = JSON.parse(res.stdout);
    expect(order).toMatchObject({
      reference,
      status: 'refunded',
      path: ['awaiting_user_payment', 'processing', 'routing', 'awaiting_lp_payment', 'executing', 'failed', 'refunded'],
    });
    expect(order.timeline.find((e: { event: string }) => e.event === 'outcome_set').details).toMatchObject({
      outcome: 'fail',
      reason: 'bank rejected the account',
    });
  });

  it('refuses bad input with one clear line', async () => {
    const cancelled = await newOrder();
    await s.controlApi.sandboxCancelOrder({ params: { reference: cancelled }, body: {} });
    const [unreachableStatus, unknownOrder, longReason, noToken, deadSandbox] = await Promise.all([
      simulate(cancelled, 'completed'),
      simulate('ORDNOSUCHORDER', 'completed'),
      simulate(cancelled, 'refunded', '--reason', 'r'.repeat(201)),
      runCli(['simulate', cancelled, 'refunded', '--sandbox', s.url], { env: { SANDBOX_ADMIN_TOKEN: undefined } }),
      deadUrl().then((url) => runCli(['simulate', 'ORD1', 'completed', '--sandbox', url])),
    ]);
    for (const res of [unreachableStatus, unknownOrder, longReason, noToken, deadSandbox]) {
      expect(res.code).toBe(1);
      expect(res.stderr).toMatch(/^ramp-sandbox simulate: [^\n]+\n$/);
      expect(res.stdout).toBe('');
    }
    expect(unreachableStatus.stderr).toMatch(/answered 400 E_BADREQUEST: .*Reachable from cancelled: refunded/);
    expect(unknownOrder.stderr).toMatch(/answered 404 E_NOTFOUND: .*ORDNOSUCHORDER/);
    expect(longReason.stderr).toMatch(/answered 422 E_VALIDATION_ERROR: reason: /);
    expect(noToken.stderr).toMatch(/answered 401 E_UNAUTHORIZED/);
    expect(deadSandbox.stderr).toMatch(/cannot reach the sandbox at/);

    const [unknownStatus, missing, extra, huge] = await Promise.all([
      simulate(cancelled, 'done'),
      simulate(cancelled),
      simulate(cancelled, 'refunded', 'now'),
      simulate('x'.repeat(100_000), 'completed'.repeat(10_000)),
    ]);
    for (const res of [unknownStatus, missing, extra, huge]) {
      expect(res.code).toBe(2);
      expect(res.stderr).toMatch(/^ramp-sandbox simulate: [^\n]+\n\nUsage: ramp-sandbox simulate REF STATUS/);
      expect(res.stderr.split('\n')[0]!.length).toBeLessThan(200);
    }
    expect(unknownStatus.stderr).toMatch(/unknown status 'done'/);
  });
});
