import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { firstHalf, outcome, secondHalf } from '../support/state-script';
import { startReceiver, type Receiver } from '../support/receiver';
import { startTestServer, type TestServer } from '../support/server';
import { tmpfsForBlock } from '../support/tmpfs';
import { createOrder } from '../support/orders';
import { MAX_INSTANT } from '../../src/shared/schemas';
import { MAX_DRAWS } from '../../src/shared/ids';

// CONTRACT §13: GET/PUT /sandbox/state. A restored sandbox behaves as if it had never stopped.
let r: Receiver;
const servers: TestServer[] = [];
beforeAll(async () => {
  r = await startReceiver();
  // Every order.created is refused twice: a retry is pending when the state is taken.
  r.behave((req) => (['1', '2'].includes(String(req.headers['svc-attempt'])) && req.body?.event === 'order.created' ? '500' : 'ok'));
});
afterAll(async () => {
  for (const s of servers) await s.close();
  await r.close();
});
async function server(seed = 5) {
  const s = await startTestServer({ seed, webhookTimeoutMs: 2_000 });
  servers.push(s);
  return s;
}

describe('snapshot and restore', () => {
  it('continues a restored run exactly as the run that never stopped: references, statuses, timers, webhook bodies', async () => {
    const a = await server();
    const { partner, refs } = await firstHalf(a, r.url);
    await a.sandbox.dispatcher.idle();
    const doc = (await a.control('GET', '/sandbox/state')).body.data;
    expect(doc.version).toBe(1);
    expect(doc.orders).toHaveLength(4);
    expect(doc.timers.map((t: any) => t.tag.kind)).toEqual(expect.arrayContaining(['order', 'quote_forget', 'delivery_retry']));
    expect(JSON.stringify(doc)).not.toContain('"timers":[["'); // no live timer handles inside orders

    const b = await server();
    const put = await b.control('PUT', '/sandbox/state', doc);
    expect(put.status, put.text).toBe(200);
    expect(put.body.data).toMatchObject({ orders: 4, partners: 2, timers: doc.timers.length });
    const restored = await b.control('GET', '/sandbox/state');
    expect(restored.body.data).toEqual(doc);
    // Saved back byte for byte, keys in the same order (a document kept in git diffs clean).
    expect(JSON.stringify(restored.body.data)).toBe(JSON.stringify(doc));

    const [fromA, fromB] = [await secondHalf(a, partner, [...refs]), await secondHalf(b, partner, [...refs])];
    expect(fromB).toEqual(fromA);
    const statuses = (fromA as any).orders.map((o: any) => o.status);
    expect(statuses).toEqual(['completed', 'pending', 'refunded', 'completed', 'completed']); // the unconfirmed pay-in waits for fulfil
  });

  it('refuses a document that does not validate with 422, and changes nothing', async () => {
    const s = await server();
    await firstHalf(s, r.url);
    const before = (await s.control('GET', '/sandbox/state')).body.data;
    const bad = (mutate: (d: any) => void) => {
      const d = structuredClone(before);
      mutate(d);
      return d;
    };
    const cases: Array<[any, RegExp]> = [
      [{ version: 1 }, /^sandbox_version: /],
      [bad((d) => (d.version = 2)), /^version: /],
      [bad((d) => (d.orders[0].status = 'teleported')), /^orders\.0\.status: /],
      [bad((d) => (d.seed = 99)), /^seed: the state was saved with seed 99/],
      [bad((d) => d.orders.push(d.orders[0])), /^orders\.4: ORD\w+ appears twice/],
      [
        bad((d) => (d.timers[0].tag = { kind: 'order', reference: 'ORDNOPE', id: 'x', event: { type: 'EXPIRE' } })),
        /^timers\.0\.tag\.reference: order ORDNOPE is not in orders/,
      ],
      [bad((d) => (d.clock.now_ms = -1)), /^clock\.now_ms: /],
      // CONTRACT §13's meaning, by the routes' rules: pricing never makes a leg of 0 or less, and
      // an order's status moves only with its timeline (a status edited alone is one never reached).
      [bad((d) => (d.orders[1].from.amount = 0)), /^orders\.1\.from\.amount: .*>0/],
      [bad((d) => (d.orders[2].to.amount = -5)), /^orders\.2\.to\.amount: .*>0/],
      [bad((d) => (d.quotes[0].from.amount = -1)), /^quotes\.0\.from\.amount: .*>0/],
      // A settled share and a payout's percentage are what the routes make (0..1, 0..100): past
      // them, amounts derived later (what is refunded) leave the bounds the document keeps.
      [bad((d) => (d.orders[0].context.ratio = 1.5)), /^orders\.0\.context\.ratio: /],
      [bad((d) => (d.orders[0].context.percentage = 1e18)), /^orders\.0\.context\.percentage: /],
      // What is due is above 0 (ratios divide by it); pay-ins and refunds are not below 0; a magic
      // amount's automatic pay-in is a fraction of what is due, as the magic amounts make it.
      [bad((d) => (d.orders[0].context.due = 0)), /^orders\.0\.context\.due: /],
      [bad((d) => (d.orders[0].context.paid = -1)), /^orders\.0\.context\.paid: /],
      [bad((d) => (d.orders[0].context.autoPayin = { fraction: 1e18, confirmed: true })), /^orders\.0\.context\.autoPayin\.fraction: /],
      [bad((d) => (d.quotes[0].magic = { kind: 'auto_payin', fraction: 0, confirmed: true })), /^quotes\.0\.magic\.fraction: /],
      // Text the routes trim is stored trimmed and not blank; a memo and metadata as POST /v1/orders takes them.
      [
        bad((d) => (d.partners[1].name = '   ')),
        /^partners\.1\.name: must not be blank or start or end with white space \(its route trims it\)$/,
      ],
      [bad((d) => (d.partners[1].name = ' padded ')), /^partners\.1\.name: must not be blank/],
      [bad((d) => (d.orders[0].merchant_reference = ' inv-1')), /^orders\.0\.merchant_reference: must not be blank/],
      [bad((d) => (d.orders[0].memo = 'm'.repeat(501))), /^orders\.0\.memo: /],
      [
        bad((d) => (d.orders[0].metadata = Array.from({ length: 63 }).reduce((inner) => ({ a: inner }), {}))),
        /^orders\.0\.metadata: nested deeper than 64 levels in its create's body \(POST \/v1\/orders refuses it\)$/,
      ],
      // A delivery's attempts as the dispatcher logs them: whole milliseconds, and each automatic one logged.
      [bad((d) => (d.deliveries[0].attempts[0].duration_ms = 1.5)), /^deliveries\.0\.attempts\.0\.duration_ms: /],
      [
        bad((d) => (d.deliveries[0].automaticAttempts = d.deliveries[0].attempts.length + 1)),
        /^deliveries\.0\.automaticAttempts: is more than the \d+ attempts logged$/,
      ],
      // Each part has the side its type gives it (spec §4.1): otherwise /v1 answers a body its own
      // OpenAPI document does not describe (CONTRACT §10).
      [
        bad((d) => (d.orders[0].type = 'swap')),
        /^orders\.0\.from\.network: must be a crypto leg \(with its network\) for a swap \(swap is crypto → crypto\)$/,
      ],
      [bad((d) => (d.orders[1].payin = d.orders[0].payin)), /^orders\.1\.payin\.kind: must be crypto for an? \w+ /],
      [bad((d) => (d.orders[0].recipient = d.orders[1].recipient)), /^orders\.0\.recipient\.kind: must be /],
      [bad((d) => (d.quotes[0].type = d.quotes[0].type === 'onramp' ? 'offramp' : 'onramp')), /^quotes\.0\.(from|to)\.network: must be a /],
      [
        bad((d) => (d.orders[0].status = d.orders[0].status === 'failed' ? 'completed' : 'failed')),
        /^orders\.0\.status: is not the last status on the order's timeline \(to move an order, use POST \/sandbox\/orders\/\{reference\}\/simulate\)$/,
      ],
    ];
    for (const [doc, message] of cases) {
      const res = await s.control('PUT', '/sandbox/state', doc);
      expect(res.status, res.text).toBe(422);
      expect(res.body.code).toBe('E_VALIDATION_ERROR');
      expect(res.body.message).toMatch(message);
      expect((await s.control('GET', '/sandbox/state')).body.data).toEqual(before);
    }
    // What the routes keep loads: a name with an emoji and inner spaces, as a partner route stores it.
    const named = bad((d) => (d.partners[1].name = 'Acme  Pay 😀'));
    expect((await s.control('PUT', '/sandbox/state', named)).status).toBe(200);
    expect((await s.control('GET', '/sandbox/state')).body.data.partners[1].name).toBe('Acme  Pay 😀');
  });

  it('loads again what it saves after any write: a version at the largest exact integer, pay-ins up to the bound', async () => {
    const s = await server();
    const { reference } = await createOrder(s, 'onramp');
    const doc = (await s.control('GET', '/sandbox/state')).body.data;
    const order = doc.orders.find((o: any) => o.reference === reference);
    order.version = Number.MAX_SAFE_INTEGER;
    order.context.unconfirmed = 1e18 - 1e6; // (1e18 is exact to 128)
    expect((await s.control('PUT', '/sandbox/state', doc)).status).toBe(200);

    // A pay-in past the most simulated pay-ins add up to is refused, and changes nothing.
    const before = (await s.control('GET', '/sandbox/state')).body.data;
    const over = await s.control('POST', `/sandbox/orders/${reference}/payin`, { amount: 2e6 });
    expect(over.status, over.text).toBe(422);
    expect(over.body.message).toMatch(
      /^amount: would take the pay-ins of order ORD\w+ past 1000000000000000000, the most simulated pay-ins add up to$/,
    );
    expect((await s.control('GET', '/sandbox/state')).body.data).toEqual(before);

    // One that fits is taken; the order's version wraps, and the sandbox's own document loads.
    expect((await s.control('POST', `/sandbox/orders/${reference}/payin`, { amount: order.context.due })).status).toBe(200);
    const after = (await s.control('GET', '/sandbox/state')).body.data;
    expect(after.orders.find((o: any) => o.reference === reference).version).toBeLessThan(Number.MAX_SAFE_INTEGER);
    const fresh = await server();
    const put = await fresh.control('PUT', '/sandbox/state', after);
    expect(put.status, put.text).toBe(200);
  });

  it('loads again what it saves with its counters at their ceilings: ids drawn, orders evicted', async () => {
    const s = await startTestServer({ seed: 5, maxOrders: 2 });
    servers.push(s);
    const first = await createOrder(s, 'onramp');
    expect((await s.control('POST', `/sandbox/orders/${first.reference}/simulate`, { status: 'completed' })).status).toBe(200);
    await createOrder(s, 'onramp');
    const doc = (await s.control('GET', '/sandbox/state')).body.data;
    doc.ids.draws = MAX_DRAWS;
    doc.evicted_orders = Number.MAX_SAFE_INTEGER;
    expect((await s.control('PUT', '/sandbox/state', doc)).status).toBe(200);
    await createOrder(s, 'onramp'); // draws ids past the ceiling, and evicts the completed order
    const saved = (await s.control('GET', '/sandbox/state')).body.data;
    expect(saved.orders).toHaveLength(2);
    expect(saved.ids.draws).toBeLessThan(MAX_DRAWS);
    expect(saved.evicted_orders).toBe(Number.MAX_SAFE_INTEGER);
    const fresh = await startTestServer({ seed: 5, maxOrders: 2 });
    servers.push(fresh);
    const put = await fresh.control('PUT', '/sandbox/state', saved);
    expect(put.status, put.text).toBe(200);
  });

  it('answers a failed save with 507 naming the cause, keeping no temporary file (issue 22)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'state-save-'));
    const file = join(dir, 'sandbox.json');
    const s = await startTestServer({ seed: 5, statePath: file });
    servers.push(s);
    expect((await s.control('POST', '/sandbox/state/save')).status).toBe(200);
    rmSync(dir, { recursive: true, force: true });
    const res = await s.control('POST', '/sandbox/state/save');
    expect(res.status).toBe(507);
    expect(res.body).toMatchObject({ status: false, code: 'E_STATE_NOT_SAVED' });
    expect(res.body.message).toMatch(/sandbox\.json: no such file or folder/);
    expect(existsSync(dir)).toBe(false);
  });

  // Issue: on a nearly full disk a short write was taken as a full one: 200 "State saved" and a
  // truncated file in place of the good one.
  describe('on a disk that fills up (a 1 MiB tmpfs)', () => {
    const mounted = tmpfsForBlock(1024 * 1024);
    it('answers 507 naming ENOSPC and keeps the previous file whole', async (ctx) => {
      const disk = mounted();
      if (typeof disk === 'string') return ctx.skip(disk);
      const { dir, fill } = disk;
      const file = join(dir, 'sandbox.json');
      const s = await startTestServer({ seed: 5, statePath: file });
      servers.push(s);
      expect((await s.control('POST', '/sandbox/state/save')).status).toBe(200);
      const before = readFileSync(file, 'utf8');
      for (let i = 0; i < 30; i++)
        expect((await s.control('POST', '/sandbox/partners', { name: `Partner ${i}`, webhook_url: null })).status).toBe(200);
      // Room for a part of the new document only: its first write is short, the next one fails.
      fill(4096);
      const res = await s.control('POST', '/sandbox/state/save');
      expect(res.status, res.text).toBe(507);
      expect(res.body).toMatchObject({ status: false, code: 'E_STATE_NOT_SAVED' });
      expect(res.body.message).toMatch(/sandbox\.json: no space left on the device \(ENOSPC\); the previous file, if any, is unchanged/);
      expect(readFileSync(file, 'utf8')).toBe(before);
      expect(readdirSync(dir).sort()).toEqual(['filler', 'sandbox.json']);
    });
  });

  // Issue: an order made near the clock's ceiling has its pay-in window (and its timers) past
  // it: the document the sandbox saved was refused when loaded again.
  it("loads again what it saved at the clock's ceiling: orders, quotes and timers due past it", async () => {
    const s = await startTestServer({ seed: 5, clockStart: MAX_INSTANT - 60_000, webhookTimeoutMs: 2_000 });
    servers.push(s);
    await createOrder(s, 'onramp');
    await createOrder(s, 'offramp');
    const quote = await s.signed('POST', '/v1/orders/quote', {
      from: { currency: 'NGN', amount: 5000 },
      to: { currency: 'USDT', network: 'base-sepolia' },
    });
    expect(quote.status, quote.text).toBe(200);
    for (const step of ['before', 'at'] as const) {
      if (step === 'at')
        expect((await s.control('POST', '/sandbox/clock/advance', { to: new Date(MAX_INSTANT).toISOString() })).status).toBe(200);
      const doc = (await s.control('GET', '/sandbox/state')).body.data;
      expect(
        doc.timers.some((t: { due: number }) => t.due > MAX_INSTANT),
        step,
      ).toBe(true);
      const res = await s.control('PUT', '/sandbox/state', doc);
      expect(res.status, `${step}: ${res.text}`).toBe(200);
      expect((await s.control('GET', '/sandbox/state')).body.data, step).toEqual(doc);
    }
  });

  it("says the state route's own size limit when a PUT is too large, and where a larger state goes", async () => {
    const s = await server();
    const res = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = httpRequest(
        `${s.url}/sandbox/state`,
        { method: 'PUT', headers: { 'content-type': 'application/json', 'content-length': String(300 * 1024 * 1024) } },
        (r) => {
          let body = '';
          r.on('data', (c) => (body += c));
          r.on('end', () => resolve({ status: r.statusCode!, body }));
        },
      );
      req.on('error', reject);
      req.write('{');
    });
    expect(res.status).toBe(413);
    expect(JSON.parse(res.body).message).toMatch(/256 MiB limit of PUT \/sandbox\/state; .*--state FILE/);
  });

  it('answers POST /sandbox/state/save with 400 when no --state FILE is set', async () => {
    const s = await server();
    const res = await s.control('POST', '/sandbox/state/save');
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/--state FILE/);
  });

  it('sends again, once the clock moves, a webhook attempt that was in flight when the state was taken', async () => {
    const hung = await startReceiver();
    try {
      hung.behave(() => 'hang');
      const a = await startTestServer({ seed: 5, webhookTimeoutMs: 60_000 });
      servers.push(a);
      const partner = await a.createPartner({ webhook_url: hung.url, name: 'Hung' });
      await createOrder(a, 'onramp', {}, { as: partner });
      while (hung.received.length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
      const doc = (await a.control('GET', '/sandbox/state')).body.data;
      expect(doc.deliveries.map((d: any) => [d.event, d.inFlight])).toEqual([['order.created', true]]);
      const id = doc.deliveries[0].id;

      hung.behave(() => 'ok');
      const b = await server();
      expect((await b.control('PUT', '/sandbox/state', doc)).status).toBe(200);
      expect((await b.control('GET', '/sandbox/state')).body.data.timers.map((t: any) => t.tag)).toContainEqual({
        kind: 'delivery_retry',
        id,
      });
      await b.control('POST', '/sandbox/clock/advance', { duration: '1s' });
      await b.sandbox.dispatcher.idle();
      expect(hung.received.filter((q) => q.headers['svc-delivery-id'] === id)).toHaveLength(2);
      expect((await b.control('GET', `/sandbox/webhooks/deliveries/${id}`)).body.data.status).toBe('succeeded');
    } finally {
      await hung.close();
    }
  });

  it('restores into a sandbox that has its own orders, replacing them, and reset still works after', async () => {
    const a = await server();
    const { partner, refs } = await firstHalf(a, r.url);
    const doc = (await a.control('GET', '/sandbox/state')).body.data;
    const b = await server();
    await firstHalf(b, r.url); // other orders (same seed, so same references: replaced, not merged)
    await b.control('POST', '/sandbox/clock/advance', { duration: '5h' });
    expect((await b.control('PUT', '/sandbox/state', doc)).status).toBe(200);
    const got = await outcome(b, partner, refs);
    expect((got as any).orders.map((o: any) => o.reference)).toEqual(refs);
    expect((await b.control('POST', '/sandbox/reset')).status).toBe(200);
    expect((await b.control('GET', '/sandbox/state')).body.data.orders).toEqual([]);
  });
});
