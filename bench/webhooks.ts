/**
 * Webhook delivery throughput and latency: orders in a sandbox (manual clock) emit events to a
 * receiver on 127.0.0.1, 50 orders at a time; measures deliveries per second and the wall
 * time from the state change to the request reaching the receiver.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createSandbox } from '../src/sandbox/sandbox';

export async function benchWebhooks(orders = 1000, concurrency = 50) {
  const arrivals = new Map<string, number>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      arrivals.set(`${body.data.reference}|${body.event}`, performance.now());
      res.end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;

  const sandbox = createSandbox({ clockMode: 'manual', logLevel: 'silent' });
  const partner = sandbox.partners.create({ webhook_url: url });
  const emitted = new Map<string, number>();
  sandbox.bus.on('order.emitted', ({ event, order }) => {
    emitted.set(`${order.reference}|${event}`, performance.now());
  });
  const caller = { partner, env: 'test' as const };
  const body = {
    from: { currency: 'NGN', amount: 50_000 },
    to: { currency: 'USDT', network: 'base-sepolia' },
    recipient: { address: `0x${'5'.repeat(40)}` },
    customer: { reference: 'c', name: 'Ada Obi', email: 'ada@example.com' },
  };

  const started = performance.now();
  for (let done = 0; done < orders; done += concurrency) {
    const batch = Math.min(concurrency, orders - done);
    const refs: string[] = [];
    for (let i = 0; i < batch; i++) refs.push(sandbox.orders.create(caller, body).reference);
    for (const ref of refs) sandbox.orders.simulatePayin(ref, {});
    await sandbox.advance(3_600_000);
    await sandbox.dispatcher.idle();
  }
  const elapsed = (performance.now() - started) / 1000;
  const deliveries = sandbox.dispatcher.list();
  const latencies = [...emitted]
    .map(([key, at]) => (arrivals.get(key) ?? Number.NaN) - at)
    .filter(Number.isFinite)
    .sort((a, b) => a - b);
  const pick = (q: number) => Math.round(latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]! * 10) / 10;
  server.close();
  sandbox.close();
  return {
    orders,
    concurrency,
    deliveries: deliveries.length,
    succeeded: deliveries.filter((d) => d.status === 'succeeded').length,
    deliveriesPerSecond: Math.round(deliveries.length / elapsed),
    latencyMs: { p50: pick(0.5), p99: pick(0.99), max: pick(1) },
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  benchWebhooks().then((r) => process.stdout.write(`${JSON.stringify(r)}\n`));
}
