import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seeded } from '../support/property';
import { createOrder } from '../support/orders';
import { startReceiver, type Receiver } from '../support/receiver';
import { firstHalf } from '../support/state-script';
import { startTestServer, type Caller, type TestServer } from '../support/server';
import { MAX_DRAWS } from '../../src/shared/ids';

// CONTRACT §13, issue 22: a state document, however it was edited, is refused with a 422 and
// nothing changed, or restored so that afterwards no route answers 5xx, nothing hangs and no
// stored order is changed by what follows (a create once overwrote a stored order). Seeded
// mutations of a real exported document: hostile values at any place, and the edits a careless
// hand makes (an earlier snapshot's id counter, shared keys, duplicated records).

let r: Receiver;
let s: TestServer;
let partner: Caller;
let original: any;

beforeAll(async () => {
  r = await startReceiver();
  r.behave((req) => (req.body?.event === 'order.created' ? '500' : 'ok'));
  s = await startTestServer({ seed: 5, webhookTimeoutMs: 1_000 });
  ({ partner } = await firstHalf(s, r.url));
  await s.sandbox.dispatcher.idle();
  original = (await s.control('GET', '/sandbox/state')).body.data;
}, 60_000);
afterAll(async () => {
  await s?.close();
  await r?.close();
});

/** Every place in the document, as a path of keys and indexes (arrays: their first three items). */
function places(doc: unknown, path: Array<string | number> = [], out: Array<Array<string | number>> = []) {
  out.push(path);
  if (Array.isArray(doc)) for (const [i, v] of doc.slice(0, 3).entries()) places(v, [...path, i], out);
  else if (doc && typeof doc === 'object') for (const [k, v] of Object.entries(doc)) places(v, [...path, k], out);
  return out;
}

function setAt(doc: any, path: Array<string | number>, value: unknown): any {
  if (path.length === 0) return value;
  let node = doc;
  for (const key of path.slice(0, -1)) node = node[key];
  node[path.at(-1)!] = value;
  return doc;
}

const HOSTILE: unknown[] = [
  null,
  true,
  0,
  -1,
  1.5,
  2 ** 53 - 1,
  -(2 ** 53),
  1e308,
  8.64e15,
  8.64e15 + 1,
  999,
  42,
  '',
  'x'.repeat(5000),
  '*'.repeat(40),
  '/v1/orders/*A*A*A*A*A*A*A*A*A*A*A*A*B',
  'ORD',
  '💥',
  '2099-13-45T99:99:99Z',
  {},
  [],
  [null],
  { type: 'BOGUS' },
  'not-a-key',
  'javascript:alert(1)',
];

/** Edits a careless hand makes to a document, each a function of the original. */
const EDITS: Array<[string, (d: any) => void]> = [
  ["an earlier snapshot's id counter", (d) => (d.ids.draws = Math.max(0, d.ids.draws - 40))],
  ['id counter at zero', (d) => (d.ids.draws = 0)],
  ["a second partner with the demo partner's keys", (d) => (d.partners[1].keys.test = structuredClone(d.partners[0].keys.test))],
  [
    'a revoked key that is also active',
    (d) =>
      d.revoked_keys.push({
        key: d.partners[0].keys.live.secret_key,
        client_id: d.partners[0].client_id,
        environment: 'live',
        kind: 'secret',
      }),
  ],
  ['keys of the wrong environment', (d) => (d.partners[0].keys.test.secret_key = d.partners[0].keys.live.secret_key)],
  ['a delivery of an unknown order', (d) => d.deliveries[0] && (d.deliveries[0].order = 'ORDUNKNOWN')],
  ['an order of an unknown partner', (d) => (d.orders[0].clientId = 'ptr_nobody')],
  ['two orders with one reference', (d) => (d.orders[1].reference = d.orders[0].reference)],
  ["a timer far past the clock's range", (d) => d.timers[0] && (d.timers[0].due = 8.64e15)],
  ["speed beyond the route's cap", (d) => (d.clock.speed = 1e12)],
  ['a realtime clock at full speed', (d) => Object.assign(d.clock, { mode: 'realtime', speed: 1_000_000 })],
  ['clock at the ceiling', (d) => (d.clock.now_ms = 8.64e15 - 1)],
  ['fault status 999', (d) => d.faults.faults[0] && (d.faults.faults[0].error = { status: 999, rate: 1 })],
  ['fault status 42', (d) => d.faults.faults[0] && (d.faults.faults[0].error = { status: 42, rate: 1 })],
  ['a 5 KB fault path', (d) => d.faults.faults[0] && (d.faults.faults[0].path = `/v1/${'a'.repeat(5000)}`)],
  ['fault serial behind its ids', (d) => (d.faults.serial = 0)],
  ['a delivery body that is not JSON', (d) => d.deliveries[0] && (d.deliveries[0].body = '{not json')],
  ['an order paid ten times over', (d) => (d.orders[0].context.paid = d.orders[0].context.due * 10)],
  [
    'an order timer with an unknown event',
    (d) => {
      const t = d.timers.find((x: any) => x.tag.kind === 'order');
      if (t) t.tag.event = { type: 'BOGUS' };
    },
  ],
  ['a quote of an unknown partner', (d) => d.quotes[0] && (d.quotes[0].clientId = 'ptr_nobody')],
  ['an unknown currency on an order', (d) => (d.orders[0].from.currency = 'XXX')],
  ['an order in a status its type never reaches', (d) => (d.orders[0].status = 'awaiting_lp_payment')],
];

const mutation = fc.oneof(
  fc.record({ kind: fc.constant('value' as const), place: fc.nat(), value: fc.constantFrom(...HOSTILE) }),
  fc.record({ kind: fc.constant('edit' as const), edit: fc.nat({ max: EDITS.length - 1 }) }),
);

/** What must not change about a stored order when another is created: who and what it is. */
const identity = (o: any) => [o.reference, o.clientId, o.env, o.type, o.created_at, o.from, o.to, o.recipient];

/** The probe after a restore: every route answers below 500 and a create keeps the others. */
async function probe(what: string): Promise<void> {
  const calls: Array<[string, string, unknown?]> = [
    ['GET', '/sandbox/clock'],
    ['GET', '/sandbox/orders?per_page=100'],
    ['GET', '/sandbox/webhooks/deliveries?per_page=100'],
    ['GET', '/sandbox/partners'],
    ['GET', '/sandbox/faults'],
    ['GET', '/sandbox/requests'],
    ['GET', '/health'],
  ];
  for (const [method, path, body] of calls) {
    const res = await s.control(method, path, body);
    expect(res.status, `${what}: ${method} ${path} ${res.text.slice(0, 300)}`).toBeLessThan(500);
  }
  const state = (await s.control('GET', '/sandbox/state')).body.data;
  for (const o of state.orders.slice(0, 6)) {
    for (const path of [`/sandbox/orders/${o.reference}`, `/sandbox/orders/${o.reference}/lifecycle`]) {
      const res = await s.control('GET', path);
      expect(res.status, `${what}: GET ${path} ${res.text.slice(0, 300)}`).toBeLessThan(500);
    }
  }
  for (const d of state.deliveries.slice(0, 3)) {
    const res = await s.control('GET', `/sandbox/webhooks/deliveries/${d.id}`);
    expect(res.status, `${what}: delivery ${res.text.slice(0, 300)}`).toBeLessThan(500);
  }
  // Creates through /v1 (the demo partner, if its keys survived) and the control API.
  const before = new Map(state.orders.map((o: any) => [o.reference, identity(o)]));
  const demo = state.partners.find((p: any) => p.client_id === s.demo.clientId);
  if (demo) {
    const as: Caller = { clientId: demo.client_id, keys: demo.keys };
    const res = await s.signed(
      'POST',
      '/v1/orders/quote',
      { from: { currency: 'NGN', amount: 5000 }, to: { currency: 'USDT', network: 'base-sepolia' } },
      { as },
    );
    expect(res.status, `${what}: quote ${res.text.slice(0, 300)}`).toBeLessThan(500);
    await createOrder(s, 'onramp', {}, { as }).catch((error: Error) => expect(error.message, what).not.toMatch(/: 5\d\d /));
  }
  const made = await s.control('POST', '/sandbox/orders', {
    client_id: state.partners[0]?.client_id ?? s.demo.clientId,
    from: { currency: 'NGN', amount: 5000 },
    to: { currency: 'USDT', network: 'base-sepolia' },
  });
  expect(made.status, `${what}: control create ${made.text.slice(0, 300)}`).toBeLessThan(500);
  const adv = await s.control('POST', '/sandbox/clock/advance', { duration: '2h' });
  expect(adv.status, `${what}: advance ${adv.text.slice(0, 300)}`).toBeLessThan(500);
  const after = (await s.control('GET', '/sandbox/state')).body.data;
  expect(after, `${what}: state after`).toBeTruthy();
  const kept = new Map(after.orders.map((o: any) => [o.reference, identity(o)]));
  for (const [ref, id] of before) expect(kept.get(ref), `${what}: order ${ref} after the creates`).toEqual(id);
}

describe('hostile state documents (issue 22)', () => {
  it('refuses each with 422 and nothing changed, or restores it so that nothing answers 5xx and no stored order changes', async () => {
    const spots = places(original);
    await fc.assert(
      fc.asyncProperty(mutation, async (m) => {
        const doc = structuredClone(original);
        let what: string;
        let mutated: any = doc;
        if (m.kind === 'value') {
          const place = spots[m.place % spots.length]!;
          what = `${place.join('.') || '(root)'} = ${JSON.stringify(m.value)?.slice(0, 40)}`;
          mutated = setAt(doc, place, structuredClone(m.value));
        } else {
          const [name, edit] = EDITS[m.edit]!;
          what = name;
          edit(doc);
        }
        expect((await s.control('PUT', '/sandbox/state', original)).status).toBe(200);
        const before = (await s.control('GET', '/sandbox/state')).text;
        const res = await s.control('PUT', '/sandbox/state', mutated);
        // 400: a root that is not an object is not a JSON body the API takes at all.
        expect([200, 400, 422], `${what}: ${res.status} ${res.text.slice(0, 300)}`).toContain(res.status);
        if (res.status !== 200) {
          expect(res.body.code).toBe(res.status === 422 ? 'E_VALIDATION_ERROR' : 'E_BADREQUEST');
          expect((await s.control('GET', '/sandbox/state')).text, `${what}: changed on 422`).toBe(before);
          return;
        }
        await probe(what);
      }),
      seeded({ numRuns: Number(process.env.FC_RUNS ?? 160) }),
    );
  }, 300_000);

  it('refuses the edits that once hung, overwrote or broke it, naming the field', async () => {
    const cases: Array<[string, (d: any) => void, RegExp]> = [
      ['ids.draws of 2^53-1', (d) => (d.ids.draws = 2 ** 53 - 1), /^ids\.draws: must be at most/],
      ['speed 1e12', (d) => (d.clock.speed = 1e12), /^clock\.speed: /],
      ['clock past the ceiling', (d) => (d.clock.now_ms = 8.64e15), /^clock\.now_ms: must be an instant the clock can hold/],
      ['an order dated past the largest Date', (d) => (d.orders[0].updated_at = 8.7e15), /^orders\.0\.updated_at: /],
      [
        'shared keys',
        (d) => (d.partners[1].keys.test = structuredClone(d.partners[0].keys.test)),
        /^partners\.1\.keys\.test\.public_key: is already a key of partner /,
      ],
      [
        'a wrong key prefix',
        (d) => (d.partners[0].keys.test.secret_key = `pk_test_${'a'.repeat(32)}`),
        /^partners\.0\.keys\.test\.secret_key: must start with sk_test_/,
      ],
      [
        'a quote timer for no quote',
        (d) => d.timers.push({ due: d.clock.now_ms, label: 'x', tag: { kind: 'quote_forget', quote_id: 'qt_none' } }),
        /^timers\.\d+\.tag\.quote_id: quote qt_none is not in quotes/,
      ],
    ];
    for (const [name, edit, message] of cases) {
      const doc = structuredClone(original);
      edit(doc);
      const res = await s.control('PUT', '/sandbox/state', doc);
      expect(res.status, `${name}: ${res.text}`).toBe(422);
      expect(res.body.message, name).toMatch(message);
    }
  });

  it('never overwrites a stored order when the document stands behind its own id counter', async () => {
    const doc = structuredClone(original);
    doc.ids.draws = 0;
    expect((await s.control('PUT', '/sandbox/state', doc)).status).toBe(200);
    const refs = new Set(doc.orders.map((o: any) => o.reference));
    for (let i = 0; i < 6; i++) {
      const order = await createOrder(s, 'onramp', {}, { as: partner });
      expect(refs.has(order.reference)).toBe(false);
      refs.add(order.reference);
    }
    const after = (await s.control('GET', '/sandbox/state')).body.data;
    for (const o of doc.orders) expect(after.orders.find((x: any) => x.reference === o.reference)?.created_at).toBe(o.created_at);
  });

  // The reliability issue: a restore replayed every draw (the largest count allowed then, 200
  // million, held every request for 4.6 s), and a sandbox that evicts as it goes draws without
  // end. Now any count a document may hold restores at once (one epoch's draws at most).
  it('restores a document whose id counter is as large as a document may say, and creates after it', async () => {
    for (const draws of [MAX_DRAWS, 250_000_000]) {
      const doc = structuredClone(original);
      doc.ids.draws = draws;
      const res = await s.control('PUT', '/sandbox/state', doc);
      expect(res.status, res.text).toBe(200);
      expect((await s.control('GET', '/sandbox/state')).body.data.ids).toEqual({ seed: doc.ids.seed, draws });
      const refs = new Set(doc.orders.map((o: any) => o.reference));
      const order = await createOrder(s, 'onramp', {}, { as: partner });
      expect(refs.has(order.reference)).toBe(false);
    }
    const res = await s.control('PUT', '/sandbox/state', { ...structuredClone(original), ids: { ...original.ids, draws: MAX_DRAWS + 1 } });
    expect(res.status).toBe(422);
    expect(res.body.message).toMatch(/^ids\.draws: must be at most 4503599627370496/);
  });
});
