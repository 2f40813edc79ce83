import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyWebhook } from '../../src/client/verify-webhook';
import { runCli } from '../support/cli';
import { deadUrl } from '../support/free-port';
import { startReceiver, type Receiver } from '../support/receiver';
import { startTestServer, type Caller, type TestServer } from '../support/server';

// CONTRACT §17: `ramp-sandbox trigger EVENT [--order REF] [--client-id ID] [--url URL]`.
const TOKEN = 'trigger-token';
let s: TestServer;
let receiver: Receiver;
let partner: Caller;
let reference: string;
beforeAll(async () => {
  [s, receiver] = await Promise.all([startTestServer({ adminToken: TOKEN }), startReceiver()]);
  partner = await s.createPartner({ name: 'Trigger', webhook_url: receiver.url });
  reference = (
    await s.controlApi.sandboxCreateOrder({
      body: { client_id: partner.clientId, from: { currency: 'NGN', amount: 50_000 }, to: { currency: 'USDT', network: 'base-sepolia' } },
    })
  ).reference;
});
afterAll(async () => {
  await Promise.all([s?.close(), receiver?.close()]);
});

const trigger = (...args: string[]) => runCli(['trigger', '--sandbox', s.url, ...args], { env: { SANDBOX_ADMIN_TOKEN: undefined } });
/** One line on stderr, no stack trace. */
const oneLine = /^ramp-sandbox trigger: [^\n]+\n$/;

describe('ramp-sandbox trigger', () => {
  it("sends the order's event to its partner's receiver, signed, and prints id, URL, status and duration", async () => {
    const res = await trigger('order.created', '--order', reference, '--admin-token', TOKEN);
    expect(res).toMatchObject({ code: 0, stderr: '' });
    expect(res.stdout).toMatch(
      new RegExp(`^dlv_\\w+ order\\.created ${reference} → ${receiver.url.replace(/[.?]/g, '\\$&')} 200 in \\d+ ms\\n$`),
    );
    // The order's own order.created (from its creation) may arrive too: this one is by its id.
    const got = receiver.received.filter((r) => r.headers['svc-delivery-id'] === res.stdout.split(' ')[0]);
    expect(got).toHaveLength(1);
    expect(got[0]!.headers['svc-event']).toBe('order.created');
    const verified = verifyWebhook(got[0]!.rawBody, got[0]!.headers, {
      clientId: partner.clientId,
      encryptionKey: partner.keys.test.encryption_key,
      path: got[0]!.path,
    });
    expect(verified.data).toMatchObject({ reference, status: 'awaiting_user_payment' });
  });

  it('prints the delivery as JSON with --json, the token taken from SANDBOX_ADMIN_TOKEN', async () => {
    const res = await runCli(['trigger', 'order.assigned', '--order', reference, '--json', '--sandbox', s.url], {
      env: { SANDBOX_ADMIN_TOKEN: TOKEN },
    });
    expect(res).toMatchObject({ code: 0, stderr: '' });
    const delivery = JSON.parse(res.stdout);
    expect(delivery).toMatchObject({
      event: 'order.assigned',
      order: reference,
      client_id: partner.clientId,
      status: 'succeeded',
      source: 'manual',
    });
    expect(delivery.attempts).toEqual([expect.objectContaining({ number: 1, http_status: 200 })]);
    expect(await s.controlApi.getDelivery({ params: { id: delivery.id } })).toEqual(delivery);
  });

  it('without --order sends --data for the demo partner to --url', async () => {
    const res = await trigger(
      'order.expired',
      '--url',
      receiver.url,
      '--data',
      '{"reference":"ORDMADEUP","status":"expired"}',
      '--admin-token',
      TOKEN,
      '--json',
    );
    expect(res).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(res.stdout)).toMatchObject({
      client_id: s.demo.clientId,
      order: 'ORDMADEUP',
      payload: { event: 'order.expired', data: { reference: 'ORDMADEUP', status: 'expired' } },
    });
  });

  it('exits 1 and says what comes next when the receiver does not answer 2xx', async () => {
    receiver.behave(() => '500');
    try {
      const res = await trigger('order.settled', '--order', reference, '--admin-token', TOKEN);
      expect(res.code).toBe(1);
      expect(res.stdout).toMatch(
        new RegExp(`^dlv_\\w+ order\\.settled ${reference} → \\S+ 500 in \\d+ ms; next attempt at \\S+ \\(virtual\\)\\n$`),
      );
      expect(res.stderr).toBe('');
    } finally {
      receiver.behave(() => 'ok');
    }
  });

  it('refuses bad input with one clear line: exit 2 for the command line, 1 for what the sandbox refuses', async () => {
    const [unknownEvent, noEvent, twoEvents, badData, arrayData, huge] = await Promise.all([
      trigger('order.completed', '--admin-token', TOKEN),
      trigger('--admin-token', TOKEN),
      trigger('order.created', 'order.settled', '--admin-token', TOKEN),
      trigger('order.created', '--data', '{not json', '--admin-token', TOKEN),
      trigger('order.created', '--data', '[1,2]', '--admin-token', TOKEN),
      trigger(`order.${'x'.repeat(100_000)}`, '--admin-token', TOKEN),
    ]);
    for (const res of [unknownEvent, noEvent, twoEvents, badData, arrayData, huge]) {
      expect(res.code).toBe(2);
      expect(res.stderr).toMatch(/^ramp-sandbox trigger: [^\n]+\n\nUsage: ramp-sandbox trigger EVENT/);
      expect(res.stderr).not.toMatch(/\n\s+at /);
      expect(res.stdout).toBe('');
    }
    expect(unknownEvent.stderr).toMatch(/unknown event 'order\.completed'/);
    expect(huge.stderr.split('\n')[0]!.length).toBeLessThan(200);

    const [unknownOrder, badUrl, otherPartner, noToken, unreachable] = await Promise.all([
      trigger('order.created', '--order', 'ORDNOSUCHORDER', '--admin-token', TOKEN),
      trigger('order.created', '--order', reference, '--url', 'ftp://nowhere', '--admin-token', TOKEN),
      trigger('order.created', '--order', reference, '--client-id', s.demo.clientId, '--admin-token', TOKEN),
      trigger('order.created', '--order', reference),
      deadUrl().then((url) => runCli(['trigger', 'order.created', '--sandbox', url])),
    ]);
    for (const res of [unknownOrder, badUrl, otherPartner, noToken, unreachable]) {
      expect(res.code).toBe(1);
      expect(res.stderr).toMatch(oneLine);
      expect(res.stdout).toBe('');
    }
    expect(unknownOrder.stderr).toMatch(/answered 404 E_NOTFOUND: .*ORDNOSUCHORDER/);
    expect(badUrl.stderr).toMatch(/answered 422 E_VALIDATION_ERROR: url: must be an http\(s\) URL/);
    expect(otherPartner.stderr).toMatch(/answered 400 E_BADREQUEST: order: .* belongs to another partner/);
    expect(noToken.stderr).toMatch(/answered 401 E_UNAUTHORIZED: .*\(pass --admin-token or set SANDBOX_ADMIN_TOKEN\)/);
    expect(unreachable.stderr).toMatch(/cannot reach the sandbox at http:\/\/127\.0\.0\.1:\d+ \(ECONNREFUSED\)/);

    const badSandbox = await runCli(['trigger', 'order.created', '--sandbox', 'not a url']);
    expect(badSandbox.code).toBe(2);
    expect(badSandbox.stderr).toMatch(oneLine);
  });
});
