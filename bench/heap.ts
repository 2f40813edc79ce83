/**
 * Heap per completed order: 100k orders (a third of each type) taken through their whole
 * lifecycle on the manual clock, measured after a forced GC. Run with --expose-gc.
 * Prints one JSON line.
 */
import { createSandbox } from '../src/main';

const N = Number(process.argv[2] ?? 100_000);
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with node --expose-gc');

const sandbox = createSandbox({ clockMode: 'manual', logLevel: 'silent', clockStart: Date.UTC(2026, 0, 1) });
const caller = { partner: sandbox.demoPartner, env: 'test' as const };
const customer = { reference: 'c', name: 'Ada Obi', email: 'ada@example.com' };
const lookup = sandbox.reference.lookupAccount('058', '0123456789');
const bodies = [
  { from: { currency: 'NGN', amount: 50_000 }, to: { currency: 'USDT', network: 'base-sepolia' }, recipient: { address: `0x${'5'.repeat(40)}` }, customer },
  { from: { currency: 'USDT', network: 'base-sepolia', amount: 100 }, to: { currency: 'NGN' }, recipient: { institution_code: '058', account_number: '0123456789', account_name: lookup.account_name }, customer },
  { from: { currency: 'USDC', network: 'base-sepolia', amount: 100 }, to: { currency: 'ETH', network: 'base-sepolia' }, recipient: { address: `0x${'6'.repeat(40)}` }, customer },
];

gc();
const before = process.memoryUsage().heapUsed;
const started = performance.now();
const refs: string[] = [];
for (let i = 0; i < N; i++) refs.push(sandbox.orders.create(caller, bodies[i % 3]!).reference);
for (const ref of refs) sandbox.orders.simulatePayin(ref, {});
const fired = sandbox.clock.advance(2 * 3_600_000).length;
const elapsed = performance.now() - started;
refs.length = 0;
gc();
const after = process.memoryUsage().heapUsed;
const statuses = new Map<string, number>();
for (const o of sandbox.orders.store.orders.values()) statuses.set(o.status, (statuses.get(o.status) ?? 0) + 1);
process.stdout.write(
  `${JSON.stringify({
    orders: N,
    heapBytesPerOrder: Math.round((after - before) / N),
    timersFired: fired,
    pendingTimers: sandbox.clock.pending,
    statuses: Object.fromEntries(statuses),
    ordersPerSecond: Math.round(N / (elapsed / 1000)),
  })}\n`,
);
sandbox.close();
