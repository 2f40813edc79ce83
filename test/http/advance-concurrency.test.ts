import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createOrder } from '../support/orders';
import { startReceiver } from '../support/receiver';
import { startTestServer, T0, type TestServer } from '../support/server';

// CONTRACT §9: a reset stops an advance under way; attempts due at one instant run concurrently.
const cleanup: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

async function server(timeoutMs: number): Promise<TestServer> {
  const s = await startTestServer({ webhookTimeoutMs: timeoutMs });
  cleanup.push(() => s.close());
  return s;
}

describe('reset during an advance (nothing from before the reset survives)', () => {
  it('stops the advance, keeps the clock at its start and lets no old retry fire', async () => {
    const s = await server(1_000);
    const r = await startReceiver();
    cleanup.push(() => r.close());
    // The first attempt fails, so retry 2 is due inside the advance; it hangs until the timeout.
    r.behave((_, i) => (i === 0 ? '500' : 'hang'));
    const p = await s.createPartner({ webhook_url: r.url, events: ['order.created'] });
    await createOrder(s, 'onramp', {}, { as: p });
    await s.sandbox.dispatcher.idle();

    const advancing = s.control('POST', '/sandbox/clock/advance', { duration: '28h' });
    while (r.received.length < 2) await new Promise((res) => setTimeout(res, 10)); // mid-advance: retry 2 hangs
    const reset = await s.control('POST', '/sandbox/reset');
    expect(reset.status).toBe(200);

    const advanced = await advancing;
    expect(advanced.status, advanced.text).toBe(409);
    expect(advanced.body.message).toMatch(/stopped by POST \/sandbox\/reset/);
    const clock = (await s.control('GET', '/sandbox/clock')).body.data;
    expect(clock.now).toBe(new Date(T0).toISOString());
    expect(clock.pending_timers).toBe(0);
    expect((await s.control('GET', '/sandbox/webhooks/deliveries')).body.data).toEqual([]);

    // The clock is free again and nothing from before fires on the next advance.
    const again = await s.control('POST', '/sandbox/clock/advance', { duration: '28h' });
    expect(again.status, again.text).toBe(200);
    expect(again.body.data.fired_count).toBe(0);
    expect(r.received).toHaveLength(2);
    expect((await s.control('GET', '/sandbox/webhooks/deliveries')).body.data).toEqual([]);
  });

  it('answers 409 to a second advance while one is under way, naming the cause', async () => {
    const s = await server(2_000);
    const r = await startReceiver();
    cleanup.push(() => r.close());
    r.behave((_, i) => (i === 0 ? '500' : 'slow'));
    const p = await s.createPartner({ webhook_url: r.url, events: ['order.created'] });
    await createOrder(s, 'onramp', {}, { as: p });
    await s.sandbox.dispatcher.idle();
    const first = s.control('POST', '/sandbox/clock/advance', { duration: '1m' });
    while (r.received.length < 2) await new Promise((res) => setTimeout(res, 5));
    const second = await s.control('POST', '/sandbox/clock/advance', { duration: '1m' });
    expect(second.status).toBe(409);
    expect(second.body.message).toMatch(/already being advanced/);
    expect((await first).status).toBe(200);
  });
});

describe('attempts due at the same instant run concurrently', () => {
  it('sends the retries of three dead receivers together, not one timeout after another', async () => {
    // A receiver that holds every request until three are open at once, then answers all 500.
    // Sent one after another, the first would time out waiting for the others.
    const open: ServerResponse[] = [];
    const seen: number[] = [];
    const barrier = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        seen.push(Number(req.headers['svc-attempt']));
        open.push(res);
        if (open.length === 3) for (const o of open.splice(0)) o.writeHead(500).end('down');
      });
    });
    await new Promise<void>((res) => barrier.listen(0, '127.0.0.1', res));
    cleanup.push(() => new Promise((res) => { barrier.closeAllConnections(); barrier.close(res); }));
    const url = `http://127.0.0.1:${(barrier.address() as AddressInfo).port}/hook`;

    const s = await server(3_000);
    for (let i = 0; i < 3; i++) {
      const p = await s.createPartner({ webhook_url: url, events: ['order.created'] });
      await createOrder(s, 'onramp', {}, { as: p });
    }
    await s.sandbox.dispatcher.idle();
    const res = await s.control('POST', '/sandbox/clock/advance', { duration: '28h' });
    expect(res.status, res.text).toBe(200);

    const log = (await s.control('GET', '/sandbox/webhooks/deliveries?event=order.created')).body.data;
    expect(log).toHaveLength(3);
    for (const d of log) {
      expect(d.status).toBe('failed');
      expect(d.attempts.map((a: any) => a.http_status)).toEqual(Array(8).fill(500));
    }
    expect(seen).toHaveLength(24);
  });
});
