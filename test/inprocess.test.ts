import { createServer } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { SandboxError, startSandbox, type SandboxHandle } from '../src';
import { customer, EVM_ADDRESS, legs } from './support/orders';
import { startReceiver, type Receiver } from './support/receiver';
import { signedHeaders } from './support/sign';
import { T0 } from './support/server';

const open: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((o) => o.close()));
});

async function start(options: Parameters<typeof startSandbox>[0] = {}): Promise<SandboxHandle> {
  const s = await startSandbox({ clockStart: T0, ...options });
  open.push(s);
  return s;
}

async function receiver(): Promise<Receiver> {
  const r = await startReceiver('/hooks');
  open.push(r);
  return r;
}

/** A signed /v1 call as the demo partner (test keys), with the independent test signer. */
async function v1(s: SandboxHandle, method: string, path: string, payload?: unknown): Promise<any> {
  const body = payload === undefined ? undefined : JSON.stringify(payload);
  const keys = s.partner.test;
  const res = await fetch(s.url + path, {
    method,
    headers: signedHeaders({ clientId: s.partner.clientId, keys, method, path, body }),
    body,
  });
  const json: any = await res.json();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
  return json.data;
}

const createOnramp = (s: SandboxHandle) => v1(s, 'POST', '/v1/orders', { ...legs.onramp, recipient: { address: EVM_ADDRESS }, customer });

/** Free a port is when something else can listen on it. */
function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

describe('startSandbox: the in-process API (CONTRACT §14)', () => {
  it('starts on a free port with a manual clock and hands out the demo partner’s keys', async () => {
    const s = await start({ seed: 7 });
    expect(s.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(s.partner.clientId).toMatch(/^ptr_demo_/);
    expect(s.partner.test.secret_key).toMatch(/^sk_test_/);
    expect(s.partner.live.encryption_key).toMatch(/^enc_live_/);
    expect(s.clock.now().getTime()).toBe(T0);
    expect(await s.clock.get()).toMatchObject({ mode: 'manual', now_ms: T0 });
    const networks = await v1(s, 'GET', '/v1/networks');
    expect(networks.length).toBeGreaterThan(0);
    // Same seed, same keys.
    const again = await start({ seed: 7 });
    expect(again.partner).toEqual(s.partner);
  });

  it('advances the clock by a duration, by ms and to an instant, firing due timers', async () => {
    const s = await start();
    await createOnramp(s);
    expect((await s.clock.advance('5m')).clock.now_ms).toBe(T0 + 300_000);
    expect((await s.clock.advance(1000)).clock.now_ms).toBe(T0 + 301_000);
    const to = await s.clock.advanceTo(new Date(T0 + 3_600_000));
    expect(to.clock.now).toBe(new Date(T0 + 3_600_000).toISOString());
    expect(to.fired_count).toBeGreaterThan(0); // the pay-in window elapsed
    expect(s.clock.now().getTime()).toBe(T0 + 3_600_000);
  });

  it('takes an order through pay-in, payout outcome and completion, and reads it', async () => {
    const s = await start();
    const { reference } = await createOnramp(s);
    expect((await s.orders.payout(reference, { outcome: 'partial', percentage: 40 })).reference).toBe(reference);
    expect((await s.orders.payin(reference)).status).not.toBe('awaiting_user_payment');
    await s.clock.advance('1h');
    const order = await s.orders.get(reference);
    expect(order.status).toBe('partially_completed');
    expect(order.timeline?.filter((t) => t.group === 'status').map((t) => t.event)).toContain('settled');
  });

  it('takes the state, restores it into another sandbox of the seed, and refuses a bad document with a 422 SandboxError', async () => {
    const a = await start({ seed: 9 });
    const { reference } = await createOnramp(a);
    await a.orders.payin(reference);
    await a.clock.advance('30s');
    const doc = await a.state();
    expect(doc.orders.map((o) => o.reference)).toEqual([reference]);
    const b = await start({ seed: 9 });
    expect(await b.restore(doc)).toMatchObject({ orders: 1 });
    await Promise.all([a.clock.advance('1h'), b.clock.advance('1h')]);
    expect((await b.orders.get(reference)).status).toBe('completed');
    expect(await b.orders.get(reference)).toEqual(await a.orders.get(reference));
    const error = await b.restore({ ...doc, seed: 1 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SandboxError);
    expect(error).toMatchObject({ status: 422, code: 'E_VALIDATION_ERROR', message: expect.stringMatching(/^seed: /) });
  });

  it('expires an order’s pay-in window at once', async () => {
    const s = await start();
    const { reference } = await createOnramp(s);
    expect((await s.orders.expire(reference)).status).toBe('expired');
  });

  it('throws SandboxError with the envelope’s status, code and message exactly where the route answers an error', async () => {
    const s = await start();
    const notFound = await s.orders.payin('ORD_nope').catch((e: unknown) => e);
    expect(notFound).toBeInstanceOf(SandboxError);
    expect(notFound).toMatchObject({
      status: 404,
      code: 'E_NOTFOUND',
      message: 'Order ORD_nope not found',
      route: 'POST /sandbox/orders/ORD_nope/payin',
    });
    await expect(s.clock.advance('soon')).rejects.toMatchObject({
      status: 422,
      code: 'E_VALIDATION_ERROR',
      message: expect.stringMatching(/^duration: /),
    });
    await expect(s.clock.advanceTo(T0 - 1)).rejects.toMatchObject({ status: 400, code: 'E_BADREQUEST' });
    const { reference } = await createOnramp(s);
    await expect(s.orders.payout(reference, { outcome: 'partial' })).rejects.toMatchObject({
      status: 422,
      message: expect.stringMatching(/^percentage: required/),
    });
    await expect(s.orders.payin(reference, { amount: -1 })).rejects.toMatchObject({
      code: 'E_VALIDATION_ERROR',
      message: expect.stringMatching(/^amount: /),
    });
    await s.orders.expire(reference);
    await expect(s.orders.expire(reference)).rejects.toMatchObject({ status: 400, code: 'E_BADREQUEST' });
    await expect(s.faults.add({})).rejects.toMatchObject({ status: 422 });
    await expect(s.faults.remove('flt_nope')).rejects.toMatchObject({ status: 404 });
    await expect(s.webhooks.retry('dlv_nope')).rejects.toMatchObject({ status: 404 });
    await expect(s.requests({ limit: 0 })).rejects.toMatchObject({ status: 422, message: expect.stringMatching(/^limit: /) });
  });

  it('lists the deliveries to the webhookUrl, and retries one on demand', async () => {
    const r = await receiver();
    const s = await start({ webhookUrl: r.url });
    const { reference } = await createOnramp(s);
    await s.orders.payin(reference);
    await s.clock.advance('1h');
    const all = await s.deliveries();
    expect(all.length).toBeGreaterThanOrEqual(3);
    expect(all.every((d) => d.status === 'succeeded' && d.order === reference)).toBe(true);
    const created = await s.deliveries({ event: 'order.created' });
    expect(created).toHaveLength(1);
    expect(await s.deliveries({ page: 1, per_page: 1 })).toHaveLength(1);
    const before = r.received.length;
    const retried = await s.webhooks.retry(created[0]!.id);
    expect(retried.attempts).toHaveLength(2);
    expect(r.received).toHaveLength(before + 1);
    expect(r.received.at(-1)!.headers['svc-delivery-id']).toBe(created[0]!.id);
  });

  it('rejects a bad webhookUrl before listening, with the control API’s message', async () => {
    await expect(startSandbox({ webhookUrl: 'ftp://x' })).rejects.toMatchObject({
      status: 422,
      code: 'E_VALIDATION_ERROR',
      message: 'webhook_url: must be an http(s) URL',
    });
  });

  it('shows recorded /v1 requests and injects and clears faults', async () => {
    const s = await start();
    await v1(s, 'GET', '/v1/networks');
    const fault = await s.faults.add({ path: '/v1/networks', error: { status: 503 }, times: 1 });
    expect(fault).toMatchObject({ id: expect.any(String), remaining: 1 });
    await expect(v1(s, 'GET', '/v1/networks')).rejects.toThrow(/503/);
    const recorded = await s.requests({ path: '/v1/networks' });
    expect(recorded.map((q) => q.status)).toEqual([503, 200]);
    expect(recorded[0]!.fault).toBe(fault.id);
    const kept = await s.faults.add({ latency_ms: 1 });
    expect(await s.faults.list()).toEqual([expect.objectContaining({ id: kept.id })]);
    expect((await s.faults.remove(kept.id)).id).toBe(kept.id);
    await s.faults.add({ drop: 1 });
    expect(await s.faults.clear()).toEqual({ removed: 1 });
  });

  it('injects faults in virtual time (CONTRACT §22): a window, skip, and the new kinds, typed', async () => {
    const s = await start();
    const windowed = await s.faults.add({ path: '/v1/networks', error: { status: 503 }, window: { from: '1m', to: '2m' }, skip: 1 });
    expect(windowed).toMatchObject({
      window: { from: new Date(T0 + 60_000).toISOString(), to: new Date(T0 + 120_000).toISOString() },
      skip: 1,
      skipped: 0,
    });
    await v1(s, 'GET', '/v1/networks'); // before the window
    await s.clock.advance('1m');
    await v1(s, 'GET', '/v1/networks'); // skipped
    await expect(v1(s, 'GET', '/v1/networks')).rejects.toThrow(/503/);
    await s.clock.advance('1m');
    await v1(s, 'GET', '/v1/networks'); // after the window
    const malformed = await s.faults.add({ path: '/v1/fiat-currencies', malformed: 1, times: 1 });
    await expect(v1(s, 'GET', '/v1/fiat-currencies')).rejects.toThrow(SyntaxError);
    expect((await s.requests({ path: '/v1/fiat-currencies' }))[0]).toMatchObject({ status: 200, fault: malformed.id });
    expect(await s.faults.add({ reset: 1, truncate: 5 })).toMatchObject({ reset: 1, truncate: 5 });
    await expect(s.faults.add({ truncate: -1 })).rejects.toMatchObject({
      status: 422,
      message: 'truncate: must be a whole number of bytes (0 or more)',
    });
  });

  it('creates and updates partners', async () => {
    const s = await start();
    const p = await s.partners.create({ name: 'Acme', kyb_status: 'pending' });
    expect(p.keys.test.secret_key).toMatch(/^sk_test_/);
    expect((await s.partners.update(p.client_id, { kyb_status: 'approved' })).kyb_status).toBe('approved');
  });

  it('resets to the demo partner and the start of the clock, keeping its webhookUrl', async () => {
    const r = await receiver();
    const s = await start({ webhookUrl: r.url });
    const { reference } = await createOnramp(s);
    await s.clock.advance('1m');
    await s.faults.add({ latency_ms: 1 });
    expect(await s.reset()).toMatchObject({ demo_client_id: s.partner.clientId, clock: { now_ms: T0 } });
    await expect(s.orders.get(reference)).rejects.toMatchObject({ status: 404 });
    expect(await s.faults.list()).toEqual([]);
    expect(await s.requests()).toEqual([]);
    await createOnramp(s);
    await s.clock.advance('1s');
    expect((await s.deliveries()).map((d) => d.event)).toEqual(['order.created']);
  });

  it('runs two sandboxes at once, independent of each other', async () => {
    const [a, b] = await Promise.all([start({ seed: 1 }), start({ seed: 2 })]);
    expect(a.url).not.toBe(b.url);
    expect(a.partner.clientId).not.toBe(b.partner.clientId);
    const { reference } = await createOnramp(a);
    await a.clock.advance('10m');
    expect(b.clock.now().getTime()).toBe(T0);
    await expect(b.orders.get(reference)).rejects.toMatchObject({ status: 404 });
    expect(await b.requests()).toEqual([]);
    expect((await a.requests()).length).toBe(1);
  });

  it('sends the admin token itself when one is set', async () => {
    const s = await start({ adminToken: 'secret-token' });
    expect((await s.clock.get()).mode).toBe('manual');
    expect((await fetch(`${s.url}/sandbox/clock`)).status).toBe(401);
  });

  it('takes the virtual start as a Date, an ISO string or ms, and refuses what is none of them', async () => {
    const iso = await start({ clockStart: new Date(T0).toISOString() });
    expect(iso.clock.now().getTime()).toBe(T0);
    const date = await start({ clockStart: new Date(T0) });
    expect(date.clock.now().getTime()).toBe(T0);
    await expect(startSandbox({ clockStart: 'next tuesday' })).rejects.toMatchObject({
      status: 422,
      code: 'E_VALIDATION_ERROR',
      message: expect.stringMatching(/^clockStart: /),
    });
  });

  it('runs a realtime clock when asked', async () => {
    const s = await start({ clock: 'realtime', speed: 1000, clockStart: undefined });
    const first = s.clock.now().getTime();
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(s.clock.now().getTime()).toBeGreaterThan(first);
  });

  it('frees the port on close', async () => {
    const s = await startSandbox();
    const port = Number(new URL(s.url).port);
    expect(await canListen(port)).toBe(false);
    await s.close();
    expect(await canListen(port)).toBe(true);
    await expect(fetch(`${s.url}/health`)).rejects.toThrow();
    await expect(s.close()).resolves.toBeUndefined(); // closing twice is harmless
  });

  it('refuses a closed handle’s calls, so they never reach a sandbox started later on its port', async () => {
    const a = await startSandbox();
    const port = Number(new URL(a.url).port);
    await a.close();
    const b = await startSandbox({ port });
    try {
      const before = (await b.clock.get()).now;
      // Before: the call went to b, and moved b's clock a day.
      await expect(a.clock.advance('1d')).rejects.toMatchObject({
        name: 'SandboxError',
        status: 409,
        code: 'E_CONFLICT',
        message: 'This sandbox is closed (close() was called): start another with startSandbox()',
        route: 'POST /sandbox/clock/advance',
      });
      await expect(a.partners.create({ name: 'Stray' })).rejects.toMatchObject({ status: 409 });
      expect((await b.clock.get()).now).toBe(before);
    } finally {
      await b.close();
    }
  });

  it('refuses an option no flag could give, naming it, before it can break the sandbox (422 SandboxError)', async () => {
    // A NaN delay passed the types and made every route, /health included, answer 500 once the
    // clock moved; a seed of 1.5 gave seed 1's keys; an unknown option was ignored.
    const refused: Array<[Record<string, unknown>, string]> = [
      [{ quoteTtlMs: Number.NaN }, 'quoteTtlMs: NaN is not valid'],
      [{ lifecycleDelays: { payout: Number.NaN } }, 'lifecycleDelays.payout: NaN is not valid'],
      [{ webhookRetryScheduleMs: [5000, Number.NaN] }, 'webhookRetryScheduleMs.1: NaN is not valid'],
      [{ maxOrders: Number.NaN }, 'maxOrders: NaN is not valid'],
      [{ clock: 'fast' }, 'clock: "fast" is not valid'],
      [{ port: 'abc' }, 'port: "abc" is not valid'],
      [{ port: 70_000 }, 'port: 70000 is not valid'],
      [{ seed: 1.5 }, 'seed: 1.5 is not valid'],
      [{ logLevel: 'loud' }, 'logLevel: "loud" is not valid'],
      [{ webhookURL: 'http://127.0.0.1:9/' }, 'webhookURL: not an option of the sandbox'],
      [{ lifecycleDelays: { paymnt: 5 } }, 'lifecycleDelays.paymnt: not an option of the sandbox'],
    ];
    for (const [options, message] of refused) {
      const error = await startSandbox(options as never).then(
        async (s) => {
          await s.close();
          return undefined;
        },
        (e: unknown) => e,
      );
      expect(error, JSON.stringify(options)).toBeInstanceOf(SandboxError);
      expect(error, JSON.stringify(options)).toMatchObject({ status: 422, code: 'E_VALIDATION_ERROR', route: 'startSandbox' });
      expect((error as Error).message.startsWith(message), (error as Error).message).toBe(true);
    }
  });

  it('fails to start on a port in use, with the listen error', async () => {
    const s = await start();
    await expect(startSandbox({ port: Number(new URL(s.url).port) })).rejects.toMatchObject({ code: 'EADDRINUSE' });
  });
});
