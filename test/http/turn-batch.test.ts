import { request } from 'node:http';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { signRequest, startSandbox, type SandboxHandle } from '../../src/index';
import { customer, EVM_ADDRESS, legs } from '../support/orders';

/** One signed request over a fresh connection (node:http, not fetch: nothing of it uses timers). */
function call(sandbox: SandboxHandle, method: string, path: string, payload?: unknown): Promise<{ status: number; body: any }> {
  const body = payload === undefined ? undefined : JSON.stringify(payload);
  const { clientId, test } = sandbox.partner;
  const headers = signRequest({ method, path, body, clientId, secretKey: test.secret_key, encryptionKey: test.encryption_key });
  return new Promise((resolve, reject) => {
    const req = request(sandbox.url + path, { method, headers: { ...headers, connection: 'close' }, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text) }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const onramp = { ...legs.onramp, recipient: { address: EVM_ADDRESS }, customer };

// Decision 025: requests wait for the end of the event loop's turn in node's own setImmediate,
// taken when the sandbox is imported. A partner's test that fakes the timers afterwards
// (vi.useFakeTimers fakes setImmediate too) must still get its answers.
describe('requests routed by turn', () => {
  let sandbox: SandboxHandle | undefined;
  afterEach(async () => {
    vi.useRealTimers();
    await sandbox?.close();
    sandbox = undefined;
  });

  it('answers in-process requests while the test has faked every timer', async () => {
    sandbox = await startSandbox({ seed: 7 });
    vi.useFakeTimers();
    expect(vi.isFakeTimers()).toBe(true);
    const quote = await call(sandbox, 'POST', '/v1/orders/quote', legs.onramp);
    expect(quote.status).toBe(200);
    const created = await call(sandbox, 'POST', '/v1/orders', onramp);
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const got = await call(sandbox, 'GET', `/v1/orders/${created.body.data.reference}`);
    expect(got.body.data.reference).toBe(created.body.data.reference);
  });

  it('answers many requests sent at once, each with its own answer, in the order of the store', async () => {
    sandbox = await startSandbox({ seed: 7 });
    const refs = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'].map((r) => `m-${r}`);
    const answers = await Promise.all(
      refs.map((merchant) => call(sandbox!, 'POST', '/v1/orders', { ...onramp, merchant_reference: merchant })),
    );
    expect(answers.map((a) => a.status)).toEqual(refs.map(() => 200));
    expect(answers.map((a) => a.body.data.merchant_reference)).toEqual(refs);
    expect(new Set(answers.map((a) => a.body.data.reference)).size).toBe(refs.length);
  });
});
