import { AssertionError } from 'node:assert';
import { afterEach, describe, expect, it } from 'vitest';
import { SandboxError, startSandbox, type SandboxHandle } from '../../src';
import { customer, EVM_ADDRESS, legs } from '../support/orders';
import { startReceiver, type Receiver } from '../support/receiver';
import { signedHeaders } from '../support/sign';
import { T0 } from '../support/server';

// CONTRACT §16 (an order to a status in one call) and §18 (waitFor, verify) as a partner's test
// uses them: through the in-process handle, against a real receiver.

const open: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((o) => o.close()));
});

async function setup(): Promise<{ s: SandboxHandle; r: Receiver }> {
  const r = await startReceiver('/hooks');
  open.push(r);
  const s = await startSandbox({ clockStart: T0, webhookUrl: r.url });
  open.push(s);
  return { s, r };
}

async function v1(s: SandboxHandle, method: string, path: string, payload?: unknown): Promise<any> {
  const body = payload === undefined ? undefined : JSON.stringify(payload);
  const res = await fetch(s.url + path, {
    method,
    headers: signedHeaders({ clientId: s.partner.clientId, keys: s.partner.test, method, path, body }),
    body,
  });
  const json: any = await res.json();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
  return json.data;
}
const createOnramp = (s: SandboxHandle) => v1(s, 'POST', '/v1/orders', { ...legs.onramp, recipient: { address: EVM_ADDRESS }, customer });

describe('sandbox.orders.simulate (CONTRACT §16)', () => {
  it('takes an order to refunded in one call: every webhook reaches the receiver in order, each attempt done when it answers', async () => {
    const { s, r } = await setup();
    const order = await createOnramp(s);
    const result = await s.orders.simulate(order.reference, 'refunded', { reason: 'payout bank down' });
    expect(result.status).toBe('refunded');
    expect(result.path).toEqual([
      'awaiting_user_payment',
      'processing',
      'routing',
      'awaiting_lp_payment',
      'executing',
      'failed',
      'refunded',
    ]);
    expect(result.timeline?.find((e: any) => e.event === 'outcome_set')?.details).toMatchObject({
      outcome: 'fail',
      reason: 'payout bank down',
    });
    // Every delivery's first attempt was done when the call answered, in the order of the steps.
    expect(r.received.map((x) => x.body.event)).toEqual(['order.created', 'order.fiat_recieved', 'order.assigned', 'order.asset_released']);
    expect(r.received.map((x) => x.body.data.status)).toEqual(['awaiting_user_payment', 'processing', 'awaiting_lp_payment', 'executing']);
    const deliveries = await s.deliveries({ order: order.reference });
    expect(deliveries.every((d) => d.attempts.length === 1 && d.status === 'succeeded')).toBe(true);
    // The virtual clock did not move.
    expect(s.clock.now().getTime()).toBe(T0);
    // …and the partner reads the same through /v1.
    expect((await v1(s, 'GET', `/v1/orders/${order.reference}`)).status).toBe('refunded');
  });

  it('answers 400 E_BADREQUEST listing the reachable statuses; 404 for an unknown order; 422 for a status that does not exist', async () => {
    const { s } = await setup();
    const order = await createOnramp(s);
    await s.orders.simulate(order.reference, 'cancelled');
    const unreachable = await s.orders.simulate(order.reference, 'completed').catch((e: unknown) => e);
    expect(unreachable).toBeInstanceOf(SandboxError);
    expect(unreachable).toMatchObject({ status: 400, code: 'E_BADREQUEST' });
    expect((unreachable as Error).message).toContain('Reachable from cancelled: refunded');
    await expect(s.orders.simulate('ORDNOPE', 'completed')).rejects.toMatchObject({ status: 404, code: 'E_NOTFOUND' });
    await expect(s.orders.simulate(order.reference, 'bogus' as never)).rejects.toMatchObject({ status: 422 });
    await expect(s.orders.simulate(order.reference, 'refunded', { reason: 'x'.repeat(201) })).rejects.toMatchObject({ status: 422 });
    // The lifecycle view lists what simulate can reach.
    const lifecycle: any = await fetch(`${s.url}/sandbox/orders/${order.reference}/lifecycle`).then((res) => res.json());
    expect(lifecycle.data.reachable).toEqual(['refunded']);
  });
});

describe('sandbox.waitFor and sandbox.verify (CONTRACT §18)', () => {
  it('waitFor.delivery resolves with a delivery already logged, or when its first attempt is done', async () => {
    const { s } = await setup();
    const order = await createOnramp(s);
    const created = await s.waitFor.delivery({ order: order.reference, event: 'order.created' });
    expect(created).toMatchObject({ event: 'order.created', order: order.reference, status: 'succeeded' });
    expect(created.attempts).toHaveLength(1);
    const later = s.waitFor.delivery({ order: order.reference, event: 'order.fiat_recieved', status: 'succeeded' });
    await s.orders.payin(order.reference);
    expect((await later).attempts[0]!.http_status).toBe(200);
  });

  it('waitFor.status resolves when the order gets there; a timeout lists what was seen', async () => {
    const { s } = await setup();
    const order = await createOnramp(s);
    const processing = s.waitFor.status(order.reference, 'processing');
    await s.orders.payin(order.reference);
    expect((await processing).status).toBe('processing');
    const error = await s.waitFor.status(order.reference, 'completed', { timeoutMs: 50 }).catch((e: unknown) => e);
    expect((error as Error).message).toBe(
      `waitFor.status(${order.reference}, completed): the order is processing after 50 ms; statuses seen: initiated → awaiting_user_payment → processing. ` +
        'On a manual clock nothing moves by itself: advance the clock (sandbox.clock.advance) or take the order there (sandbox.orders.simulate).',
    );
    const none = await s.waitFor.delivery({ event: 'order.completed' }, { timeoutMs: 50 }).catch((e: unknown) => e);
    expect((none as Error).message).toMatch(
      /^waitFor\.delivery\(\{"event":"order\.completed"\}\): no matching delivery with its first attempt done after 50 ms\. Deliveries seen \(2\):\n {2}dlv_\S+ order\.created order=ORD\S+ succeeded \(1 attempt\)\n/,
    );
    await expect(s.waitFor.status(order.reference, 'completed', { timeoutMs: -1 })).rejects.toThrow(TypeError);
  });

  it('verify passes on matching requests and fails with an AssertionError listing the recorded ones', async () => {
    const { s } = await setup();
    const order = await createOnramp(s);
    await v1(s, 'GET', `/v1/orders/${order.reference}`);
    const created = await s.verify({ method: 'post', path: '/v1/orders', status: 200 }, { times: 1 });
    expect(created).toHaveLength(1);
    expect(await s.verify({ path: '/v1/orders/*' })).toHaveLength(1);
    expect(await s.verify({ client_id: s.partner.clientId }, { atLeast: 2 })).toHaveLength(2);
    const error = await s.verify({ method: 'PATCH', path: '/v1/orders/*/cancel' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AssertionError);
    expect((error as Error).message).toBe(
      `verify({"method":"PATCH","path":"/v1/orders/*/cancel"}): expected at least 1 matching request, found 0. Recorded requests (2):\n` +
        `  POST /v1/orders → 200 (${s.partner.clientId})\n  GET /v1/orders/${order.reference} → 200 (${s.partner.clientId})`,
    );
    await expect(s.verify({ path: '/v1/orders' }, { times: 0 })).rejects.toThrow(/expected exactly 0 matching requests, found 1/);
    // Both at once: refused as a mistake (its AssertionError's message was node:assert's own, not this one's).
    await expect(s.verify({}, { times: 2, atLeast: 2 })).rejects.toThrow(new TypeError('verify: give times or atLeast, not both'));
  });
});
