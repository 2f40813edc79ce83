import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { advance, createOrder } from '../support/orders';
import { startReceiver, type Receiver } from '../support/receiver';
import { startTestServer, type TestServer } from '../support/server';

// CONTRACT §22 with §21: the deliveries webhook chaos causes count in an open readiness run where
// they exercise a check. With probes off, chaos alone gives `duplicates` and `out_of_order` their
// occasions; a receiver refusing a chaos duplicate fails `duplicates` as it would fail the probe.
let r: Receiver;
const servers: TestServer[] = [];
beforeAll(async () => {
  r = await startReceiver();
});
afterAll(async () => {
  for (const s of servers) await s.close();
  await r.close();
});

const chaos = { duplicate_rate: 0.5, reorder_window: '2m', delay: { min: '1s', max: '20s' } };

/** A sandbox (seed 3) whose partner has webhook chaos, a run open with probes off, and traffic that completes four orders. */
async function runWithChaos() {
  const s = await startTestServer({ seed: 3, webhookTimeoutMs: 2_000 });
  servers.push(s);
  const clientId = s.demo.clientId;
  await s.controlApi.updatePartner({ params: { client_id: clientId }, body: { webhook_url: r.url } });
  await s.controlApi.setWebhookChaos({ params: { client_id: clientId }, body: chaos });
  const opened = await s.control('POST', '/sandbox/readiness/runs', { client_id: clientId, probes: false });
  expect(opened.status, opened.text).toBe(201);
  for (let i = 0; i < 4; i++) {
    const o = await createOrder(s, 'onramp', { merchant_reference: `rdy-chaos-${i}` });
    await s.controlApi.simulatePayin({ params: { reference: o.reference }, body: {} });
    await advance(s, '30s');
  }
  await advance(s, '2h');
  for (let i = 0; i < 5; i++) {
    await s.sandbox.dispatcher.idle();
    await new Promise((resolve) => setImmediate(resolve));
  }
  const finished = await s.control('POST', `/sandbox/readiness/runs/${opened.body.data.id}/finish`);
  expect(finished.status, finished.text).toBe(200);
  const report = finished.body.data;
  const deliveries = (await s.controlApi.listDeliveries({ query: { per_page: 500 } })).data;
  return { report, deliveries, check: (id: string) => report.checks.find((c: any) => c.id === id) };
}

describe('webhook chaos in readiness runs (CONTRACT §22, §21)', () => {
  it('with probes off, chaos duplicates and reordered deliveries acknowledged pass duplicates and out_of_order; no probe was sent', async () => {
    r.behave(() => 'ok');
    const { report, deliveries, check } = await runWithChaos();
    expect(report.probes).toEqual([]);
    expect(deliveries.filter((d) => d.source === 'probe')).toEqual([]);
    const duplicateIds = new Set(deliveries.filter((d) => d.chaos?.includes('duplicate')).map((d) => d.id));
    const reorderedIds = new Set(deliveries.filter((d) => d.chaos?.includes('reordered')).map((d) => d.id));
    expect(duplicateIds.size).toBeGreaterThan(0);
    expect(reorderedIds.size).toBeGreaterThan(0);

    expect(check('duplicates')).toMatchObject({ status: 'pass' });
    // Each piece of evidence names a delivery of a chaos pair (the copy the receiver saw second).
    for (const e of check('duplicates').evidence) {
      const d = deliveries.find((x) => x.id === e.delivery_id);
      expect(d, e.delivery_id).toBeDefined();
      if (!d) continue;
      expect(duplicateIds.has(d.id) || deliveries.some((x) => x.duplicate_of === d.id), e.note).toBe(true);
      expect(e.note).toMatch(/chaos duplicate/);
    }
    expect(check('out_of_order')).toMatchObject({ status: 'pass' });
    for (const e of check('out_of_order').evidence) expect(reorderedIds.has(e.delivery_id), e.note).toBe(true);
    // The checks only probes could exercise stay so.
    expect(check('verify_signature').status).toBe('not_exercised');
    expect(check('stale_timestamp').status).toBe('not_exercised');
    expect(check('ack_fast').status).toBe('pass');
  }, 30_000);

  it('a receiver that refuses a delivery it has already handled fails duplicates on chaos evidence alone', async () => {
    const seen = new Set<string>();
    r.behave((req) => {
      const key = `${req.body?.data?.reference}:${req.body?.event}`;
      if (seen.has(key)) return '500';
      seen.add(key);
      return 'ok';
    });
    try {
      const { check } = await runWithChaos();
      expect(check('duplicates')).toMatchObject({ status: 'fail' });
      expect(
        check('duplicates')
          .evidence.map((e: any) => e.note)
          .join('\n'),
      ).toMatch(/chaos duplicate of dlv_\w+ answered 500 after the first copy was acknowledged/);
    } finally {
      r.behave(() => 'ok');
    }
  }, 30_000);
});
