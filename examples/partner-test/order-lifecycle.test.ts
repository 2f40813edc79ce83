/**
 * A partner-side test, written as a partner writes one against the package: a sandbox of its own
 * in process (manual clock), the partner's webhook endpoint on a free port, an order taken from
 * quote to `completed`, and the endpoint's idempotency checked with a delivery sent twice.
 * Copy it into your project with `npm install --save-dev ramp-sandbox` (here, 'ramp-sandbox'
 * resolves to this repository's src/: vitest.config.ts and tsconfig.json map it).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signRequest, startSandbox, type SandboxHandle } from 'ramp-sandbox';
import { startWebhookServer, type WebhookServer } from './webhook-server';

let sandbox: SandboxHandle;
let hooks: WebhookServer;

beforeAll(async () => {
  // The endpoint reads its keys per request, so it can listen before the sandbox issues them.
  hooks = await startWebhookServer(() => ({ clientId: sandbox.partner.clientId, encryptionKey: sandbox.partner.test.encryption_key }));
  sandbox = await startSandbox({ clock: 'manual', seed: 42, webhookUrl: hooks.url });
});

afterAll(async () => {
  await sandbox?.close();
  await hooks?.close();
});

/** Your API client: every /v1 call signed with the secret key (spec §5.2). */
async function api(method: string, path: string, payload?: unknown): Promise<any> {
  const body = payload === undefined ? undefined : JSON.stringify(payload); // sign the exact bytes sent
  const { clientId, test } = sandbox.partner;
  const headers = signRequest({ method, path, body, clientId, secretKey: test.secret_key, encryptionKey: test.encryption_key });
  const res = await fetch(sandbox.url + path, { method, headers, body });
  const json = (await res.json()) as { status: boolean; data: any; message: string };
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${json.message}`);
  return json.data;
}

describe('onramp: NGN in, USDT out', () => {
  let reference: string;

  it('quotes and creates an order awaiting the customer’s payment', async () => {
    const quote = await api('POST', '/v1/orders/quote', {
      from: { currency: 'NGN', amount: 50_000 },
      to: { currency: 'USDT', network: 'base-sepolia' },
    });
    const order = await api('POST', '/v1/orders', {
      quote_id: quote.quote_id,
      merchant_reference: 'checkout-1001',
      recipient: { address: '0x52908400098527886E0F7030069857D2E4169EE7' },
      customer: { reference: 'cus_1', name: 'Ada Obi', email: 'ada@example.com' },
    });
    reference = order.reference;
    expect(order.status).toBe('awaiting_user_payment');
    expect(order.payin.amount).toBe(50_000);
  });

  it('completes once the customer pays and the lifecycle runs, and tells the webhook endpoint', async () => {
    await sandbox.orders.payin(reference); // the exact amount due
    await sandbox.clock.advance('1h'); // every step and webhook due within the hour runs now
    const order = await api('GET', `/v1/orders/${reference}`);
    expect(order.status).toBe('completed');
    // The last event is order.settled (spec §6.1 has no order.completed): the status it carries.
    expect(hooks.orders.get(reference)).toBe('settled');
    expect(hooks.handled.map((h) => h.event)).toEqual(expect.arrayContaining(['order.created', 'order.fiat_recieved', 'order.settled']));
    expect(hooks.rejected).toBe(0);
  });

  it('handles a delivery that arrives twice only once', async () => {
    const [settled] = await sandbox.deliveries({ order: reference, event: 'order.settled' });
    const handledBefore = hooks.handled.length;
    const again = await sandbox.webhooks.retry(settled!.id); // the same delivery, sent again
    expect(again.attempts.at(-1)!.http_status).toBe(200);
    expect(hooks.duplicates).toBe(1);
    expect(hooks.handled).toHaveLength(handledBefore);
    expect(hooks.handled.filter((h) => h.event === 'order.settled')).toHaveLength(1);
  });
});
