import { advance, createOrder } from './orders';
import type { Caller, TestServer } from './server';

/**
 * A lifecycle run in two halves for the state tests (CONTRACT §13): the first leaves orders in
 * every kind of waiting (pay-in window, processing timers, a webhook retry scheduled, a quote
 * remembered, a fault armed); the second finishes them. Same seed and start: same outcome.
 */
export async function firstHalf(s: TestServer, webhookUrl: string): Promise<{ partner: Caller; refs: string[] }> {
  const partner = await s.createPartner({ webhook_url: webhookUrl, name: 'Stateful' });
  const refs: string[] = [];
  for (const type of ['onramp', 'offramp', 'swap'] as const) refs.push((await createOrder(s, type, {}, { as: partner })).reference);
  refs.push((await createOrder(s, 'onramp', { from: { currency: 'NGN', amount: 7777 } }, { as: partner })).reference); // magic auto pay-in
  await control(s, 'POST', `/sandbox/orders/${refs[0]}/payin`, {});
  await control(s, 'POST', `/sandbox/orders/${refs[1]}/payin`, { confirmed: false });
  await control(s, 'POST', `/sandbox/orders/${refs[2]}/payout`, { outcome: 'revert' });
  await control(s, 'POST', `/sandbox/orders/${refs[2]}/payin`, {});
  await control(s, 'POST', '/sandbox/faults', { path: '/v1/networks', error: { status: 503, rate: 0.5 }, times: 4 });
  await s.signed(
    'POST',
    '/v1/orders/quote',
    { from: { currency: 'NGN', amount: 50_000 }, to: { currency: 'USDT', network: 'base-sepolia' } },
    { as: partner },
  );
  await advance(s, '20s');
  return { partner, refs };
}

export async function secondHalf(s: TestServer, partner: Caller, refs: string[]): Promise<unknown> {
  refs.push((await createOrder(s, 'swap', {}, { as: partner })).reference);
  for (let i = 0; i < 4; i++) await s.signed('GET', '/v1/networks', undefined, { as: partner });
  await advance(s, '10m');
  await control(s, 'POST', `/sandbox/orders/${refs[4]}/payin`, {});
  await advance(s, '3h');
  return outcome(s, partner, refs);
}

/** What must match between a run that stopped and one that never did. */
export async function outcome(s: TestServer, partner: Caller, refs: string[]) {
  await s.sandbox.dispatcher.idle();
  const orders = [];
  for (const ref of refs) {
    const res = await s.signed('GET', `/v1/orders/${ref}?include=payout,timeline`, undefined, { as: partner });
    orders.push(res.body.data);
  }
  const deliveries = (await control(s, 'GET', '/sandbox/webhooks/deliveries?per_page=100')).data.map((d: any) => ({
    id: d.id,
    event: d.event,
    order: d.order,
    status: d.status,
    raw_body: d.raw_body,
    attempts: d.attempts.map((a: any) => [a.number, a.virtual_at, a.http_status]),
  }));
  const clock = (await control(s, 'GET', '/sandbox/clock')).data;
  const faults = (await control(s, 'GET', '/sandbox/faults')).data;
  const list = (await s.signed('GET', '/v1/orders?per_page=100', undefined, { as: partner })).body.data.map((o: any) => [
    o.reference,
    o.status,
  ]);
  return { orders, list, deliveries, clock: { now: clock.now, pending: clock.pending_timers, next: clock.next_timer_at }, faults };
}

async function control(s: TestServer, method: string, path: string, body?: unknown) {
  const res = await s.control(method, path, body);
  if (res.status !== 200) throw new Error(`${method} ${path}: ${res.status} ${res.text}`);
  return res.body;
}
