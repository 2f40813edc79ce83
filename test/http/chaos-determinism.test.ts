import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { customer, EVM_ADDRESS } from '../support/orders';
import { startReceiver, type Receiver } from '../support/receiver';
import { startTestServer, type Reply, type TestServer } from '../support/server';

// Issue 41, "done when": the same seed and the same traffic give the same faults, deliveries and
// rates twice in a row (CONTRACT §22 "All seeded"). One mixed session (faults with a rate, a
// window and skip; webhook chaos; --rates walk and a scripted path; quotes, market rates,
// creates, pay-ins, advances) runs in two sandboxes with the same seed, and the inspector's
// records, the delivery log, the faults and every answer are compared byte for byte once the
// wall-time fields (named in WALL_FIELDS) are taken out; a third sandbox, another seed, differs.
let r: Receiver;
const servers: TestServer[] = [];
beforeAll(async () => {
  r = await startReceiver();
});
afterAll(async () => {
  for (const s of servers) await s.close();
  await r.close();
});

/**
 * The only fields taken out, each measured on the wall clock (the machine's time and speed),
 * which no seed decides (CONTRACT §2: transport times are wall time). Their virtual
 * counterparts (`virtual_at`) stay in and must match.
 */
const WALL_FIELDS = {
  'requests[].at': 'the wall instant the inspector recorded the request',
  'requests[].duration_ms': 'the wall time the sandbox took to answer',
  "requests[].headers['svc-timestamp']": "the client signs with its wall clock (spec §5.2: within 5 minutes of the server's)",
  'deliveries[].attempts[].wall_at': 'the wall instant of a webhook attempt (transport time)',
  'deliveries[].attempts[].duration_ms': 'the wall time the receiver took to answer',
} as const;

type Session = Awaited<ReturnType<typeof session>>;

/** The session as JSON without the WALL_FIELDS (counting how many were taken out, to be sure they were there). */
function withoutWallTime(x: Session): { json: string; stripped: Record<keyof typeof WALL_FIELDS, number> } {
  const copy = structuredClone(x);
  const stripped = Object.fromEntries(Object.keys(WALL_FIELDS).map((k) => [k, 0])) as Record<keyof typeof WALL_FIELDS, number>;
  const take = (o: Record<string, unknown> | undefined, key: string, name: keyof typeof WALL_FIELDS) => {
    if (o && key in o) {
      delete o[key];
      stripped[name]++;
    }
  };
  for (const r of copy.requests as unknown as Array<Record<string, unknown>>) {
    take(r, 'at', 'requests[].at');
    take(r, 'duration_ms', 'requests[].duration_ms');
    take(r.headers as Record<string, unknown> | undefined, 'svc-timestamp', "requests[].headers['svc-timestamp']");
  }
  for (const d of copy.deliveries as unknown as Array<{ attempts: Array<Record<string, unknown>> }>) {
    for (const a of d.attempts) {
      take(a, 'wall_at', 'deliveries[].attempts[].wall_at');
      take(a, 'duration_ms', 'deliveries[].attempts[].duration_ms');
    }
  }
  return { json: JSON.stringify(copy), stripped };
}

const onramp = { from: { currency: 'NGN', amount: 150000 }, to: { currency: 'USDT', network: 'base-sepolia' } };

/** An answer as the partner saw it: its status and body. */
const seen = (res: Reply) => ({ status: res.status, body: res.body ?? res.text });

async function session(seed: number) {
  const s = await startTestServer({ seed, rates: 'walk', rateVolatility: 5, webhookTimeoutMs: 10_000 });
  servers.push(s);
  const clientId = s.demo.clientId;
  await s.controlApi.updatePartner({ params: { client_id: clientId }, body: { webhook_url: r.url } });
  await s.controlApi.setWebhookChaos({
    params: { client_id: clientId },
    body: { duplicate_rate: 0.5, reorder_window: '2m', delay: { min: '1s', max: '20s' } },
  });
  const script = await s.control('POST', '/sandbox/rates', {
    pair: 'NGN_USDT',
    path: [
      { at: '10m', rate: 1600 },
      { at: '25m', rate: 1580 },
    ],
  });
  expect(script.status, script.text).toBe(200);
  const faults = [
    { method: 'GET', path: '/v1/market-rates/*', error: { status: 503, rate: 0.5 } },
    { method: 'POST', path: '/v1/orders', error: { status: 503 }, window: { from: '6m', to: '12m' } },
    { method: 'GET', path: '/v1/orders/*', error: { status: 502 }, skip: 2, times: 2 },
    { method: 'POST', path: '/v1/orders/quote', phase: 'after', error: { status: 500, rate: 0.3 }, times: 3 },
  ];
  for (const f of faults) {
    const res = await s.control('POST', '/sandbox/faults', f);
    expect(res.status, res.text).toBe(200);
  }

  const answers: unknown[] = [];
  for (let i = 0; i < 8; i++) {
    answers.push(seen(await s.pub('GET', '/v1/market-rates/NGN_USDT')));
    answers.push(seen(await s.pub('GET', '/v1/market-rates/NGN_ETH'))); // the walk, unscripted
    const quote = await s.signed('POST', '/v1/orders/quote', onramp);
    answers.push(seen(quote));
    const body = quote.status === 200 ? { quote_id: quote.body.data.quote_id } : onramp;
    const created = await s.signed('POST', '/v1/orders', {
      ...body,
      merchant_reference: `det-${i}`,
      recipient: { address: EVM_ADDRESS },
      customer,
    });
    answers.push(seen(created));
    if (created.status === 200) {
      const reference = created.body.data.reference;
      answers.push(seen(await s.signed('GET', `/v1/orders/${reference}`)));
      await s.controlApi.simulatePayin({ params: { reference }, body: {} });
    }
    answers.push(seen(await s.control('POST', '/sandbox/clock/advance', { duration: '2m' })));
  }
  await s.control('POST', '/sandbox/clock/advance', { duration: '2h' });
  await s.sandbox.dispatcher.idle();

  const requests = (await s.controlApi.listRequests({ query: { limit: 1000 } })).data;
  const deliveries = (await s.controlApi.listDeliveries({ query: { per_page: 500 } })).data;
  const faultList = await s.controlApi.listFaults();
  return { answers, requests, deliveries, faults: faultList };
}

describe('chaos is a function of the seed and the traffic (CONTRACT §22)', () => {
  it('gives the same faults, deliveries, rates and quotes twice in a row, byte for byte once wall-time fields are out; another seed differs', async () => {
    const a = await session(11);
    const b = await session(11);
    const other = await session(12);
    const first = withoutWallTime(a);
    const second = withoutWallTime(b);
    // Every wall-time field named was there to take out, and only those were.
    for (const [field, count] of Object.entries(first.stripped)) expect(count, field).toBeGreaterThan(0);
    expect(second.json).toBe(first.json);
    expect(withoutWallTime(other).json).not.toBe(first.json);

    // The session exercised what it claims: every fault applied (or skipped), chaos marked
    // deliveries, pay-ins made orders move, and the market moved (walk and script).
    for (const f of a.faults) expect(f.applied + f.skipped, f.id).toBeGreaterThan(0);
    for (const mark of ['duplicate', 'reordered', 'delayed'] as const)
      expect(
        a.deliveries.some((d) => d.chaos?.includes(mark)),
        mark,
      ).toBe(true);
    expect(a.deliveries.some((d) => d.event === 'order.settled')).toBe(true);
    const rates = (pair: string) => new Set(a.answers.flatMap((x: any) => (x.body?.data?.pair === pair ? [x.body.data.buy_rate] : [])));
    expect(rates('NGN_ETH').size).toBeGreaterThan(1);
    expect(rates('NGN_USDT').size).toBeGreaterThan(1);
    // The other seed drew other faults, not only other ids.
    const statuses = (x: Session) => x.answers.map((y: any) => y.status).join();
    expect(statuses(other)).not.toBe(statuses(a));
  }, 60_000);
});
