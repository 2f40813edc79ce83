// docs/in-process.md, verbatim (test/cli/examples.test.ts checks the page still shows this file).
import { afterAll, beforeAll, expect, it } from 'vitest';
import { signRequest, startSandbox, type SandboxHandle } from 'ramp-sandbox';

let sandbox: SandboxHandle;
beforeAll(async () => {
  // webhookUrl: your endpoint (examples/partner-test has one); nothing listens on port 9, so here deliveries fail and retry.
  sandbox = await startSandbox({ seed: 7, webhookUrl: 'http://127.0.0.1:9/webhooks' });
});
afterAll(() => sandbox.close());

async function api(method: string, path: string, payload?: unknown) {
  const body = payload === undefined ? undefined : JSON.stringify(payload);
  const { clientId, test } = sandbox.partner;
  const headers = signRequest({ method, path, body, clientId, secretKey: test.secret_key, encryptionKey: test.encryption_key });
  const res = await fetch(sandbox.url + path, { method, headers, body });
  return ((await res.json()) as { data: any }).data;
}

it('completes an onramp order once it is paid', async () => {
  const quote = await api('POST', '/v1/orders/quote', {
    from: { currency: 'NGN', amount: 50000 },
    to: { currency: 'USDT', network: 'base-sepolia' },
  });
  const order = await api('POST', '/v1/orders', {
    quote_id: quote.quote_id,
    recipient: { address: '0x52908400098527886E0F7030069857D2E4169EE7' },
    customer: { reference: 'cus_1', name: 'Ada Obi', email: 'ada@example.com' },
  });
  await sandbox.orders.payin(order.reference); // exactly what is due
  await sandbox.clock.advance('1h'); // the lifecycle and its webhooks run now
  expect((await sandbox.orders.get(order.reference)).status).toBe('completed');
  expect((await sandbox.deliveries({ order: order.reference })).map((d) => d.event)).toContain('order.settled');
});
