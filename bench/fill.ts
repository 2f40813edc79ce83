import type { RunningSandbox } from '../src/sandbox/server';

/**
 * `n` orders (a third each of onramp, offramp with the account lookup, swap) created in the
 * running sandbox, paid in and taken to a final status on its manual clock. Each body is
 * parsed from JSON text with its own customer reference, as a request's would be, so no
 * string is shared between orders that would not be in a real run. With `webhookUrl`, the
 * orders belong to a partner subscribed to every event there, and each batch waits for its
 * deliveries.
 */
export async function fill(running: RunningSandbox, n: number, webhookUrl?: string) {
  const { sandbox } = running;
  const partner = webhookUrl ? sandbox.partners.create({ webhook_url: webhookUrl }) : sandbox.demoPartner;
  const caller = { partner, env: 'test' as const };
  const accountName = sandbox.reference.lookupAccount('058', '0123456789').account_name;
  const texts = [
    (i: number) =>
      `{"from":{"currency":"NGN","amount":50000},"to":{"currency":"USDT","network":"base-sepolia"},"recipient":{"address":"0x${'5'.repeat(40)}"},"customer":{"reference":"cus-${i}","name":"Ada Obi","email":"ada@example.com"}}`,
    (i: number) =>
      `{"from":{"currency":"USDT","network":"base-sepolia","amount":100},"to":{"currency":"NGN"},"recipient":{"institution_code":"058","account_number":"0123456789","account_name":"${accountName}"},"customer":{"reference":"cus-${i}","name":"Ada Obi","email":"ada@example.com"}}`,
    (i: number) =>
      `{"from":{"currency":"USDC","network":"base-sepolia","amount":100},"to":{"currency":"ETH","network":"base-sepolia"},"recipient":{"address":"0x${'6'.repeat(40)}"},"customer":{"reference":"cus-${i}","name":"Ada Obi","email":"ada@example.com"}}`,
  ];
  const started = performance.now();
  const batch = webhookUrl ? 500 : 10_000;
  for (let done = 0; done < n; done += batch) {
    const refs: string[] = [];
    for (let i = done; i < Math.min(n, done + batch); i++) refs.push(sandbox.orders.create(caller, JSON.parse(texts[i % 3]!(i))).reference);
    for (const ref of refs) sandbox.orders.simulatePayin(ref, {});
    await sandbox.advance(2 * 3_600_000);
    if (webhookUrl) await sandbox.dispatcher.idle();
  }
  const statuses: Record<string, number> = {};
  for (const o of sandbox.orders.store.orders.values()) statuses[o.status] = (statuses[o.status] ?? 0) + 1;
  const deliveries = webhookUrl ? sandbox.dispatcher.list() : [];
  return {
    orders: n,
    seconds: Math.round((performance.now() - started) / 100) / 10,
    kept: sandbox.orders.store.orders.size,
    evicted: sandbox.orders.evictedCount,
    pendingTimers: sandbox.clock.pending,
    statuses,
    deliveries: deliveries.length,
    delivered: deliveries.filter((d) => d.status === 'succeeded').length,
  };
}
