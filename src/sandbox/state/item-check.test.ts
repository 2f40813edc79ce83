import { afterAll, describe, expect, it } from 'vitest';
import { fixedWallClock } from '../../clock';
import { createSandbox } from '../sandbox';
import { compileInPlace } from './item-check';
import { STATE_ITEM_SCHEMAS, STATE_LISTS, type StateDocument } from './state.schema';

// Decision 029: a state's items are checked in place by their schema compiled; what that check
// accepts, zod accepts with an output that is the value itself (its keys in the document's
// order). Held here on every field of real records, broken in every way a hand edit breaks one.

const T0 = Date.UTC(2026, 0, 15, 12, 0, 0);
const sandbox = createSandbox({ clockMode: 'manual', clockStart: T0, logLevel: 'silent', seed: 5, wall: fixedWallClock(T0) });
afterAll(() => sandbox.close());

async function documentOfEveryKind(): Promise<StateDocument> {
  const partner = sandbox.partners.create({ client_id: 'ptr_check', name: 'Check', webhook_url: null });
  sandbox.partners.rotate('ptr_check', 'test');
  const caller = { partner, env: 'test' as const };
  const onramp = { from: { currency: 'NGN', amount: 50_000 }, to: { currency: 'USDT', network: 'base-sepolia' }, recipient: { address: `0x${'5'.repeat(40)}` }, customer: { reference: 'c1', name: 'Ada Obi', email: 'ada@example.com' } };
  const account = sandbox.reference.lookupAccount('058', '0123456789').account_name;
  const offramp = { from: { currency: 'USDT', network: 'base-sepolia', amount: 100 }, to: { currency: 'NGN' }, recipient: { institution_code: '058', account_number: '0123456789', account_name: account }, customer: { reference: 'c2', name: 'Ada Obi', email: 'ada@example.com' } };
  const cancelled = sandbox.orders.create(caller, onramp as never);
  sandbox.orders.cancel(caller, cancelled.reference, 'changed mind');
  for (const body of [onramp, offramp]) sandbox.orders.simulatePayin(sandbox.orders.create(caller, body as never).reference, {});
  await sandbox.advance(2 * 3_600_000);
  // Waiting ones (their timers pending), and a quote not yet forgotten.
  sandbox.orders.quote(caller, { from: { currency: 'NGN', amount: 20_000 }, to: { currency: 'USDT', network: 'base-sepolia' } });
  sandbox.orders.create(caller, { ...onramp, merchant_reference: 'm-1', metadata: { note: 'é😀', deep: { a: [1, { b: null }] } } } as never);
  sandbox.dispatcher.enqueue({ partner, environment: 'test', order: cancelled.reference, event: 'order.cancelled', data: { reference: cancelled.reference } });
  sandbox.faults.add({ path: '/v1/orders', error: { status: 503 }, times: 2 });
  return JSON.parse(JSON.stringify(sandbox.exportState())) as StateDocument;
}

/** Every place in `value` (a path of keys) that holds something. */
function paths(value: unknown, at: Array<string | number> = []): Array<Array<string | number>> {
  if (typeof value !== 'object' || value === null) return [at];
  const keys = Array.isArray(value) ? value.map((_, i) => i) : Object.keys(value);
  return [at, ...keys.flatMap((k) => paths((value as Record<string | number, unknown>)[k], [...at, k]))];
}

const REPLACEMENTS: unknown[] = [null, '', 'x', 'completed', 'status', 'crypto', 'fiat', 'test', -1, 0, 1.5, 1e30, 2 ** 53, true, {}, [], [1], { kind: 'fiat' }];

/** The item broken at `path`: replaced by `value`, its key removed, an unknown key added, two keys swapped. */
function variants(item: unknown, path: Array<string | number>): unknown[] {
  const out: unknown[] = [];
  const edit = (change: (parent: Record<string | number, unknown>, key: string | number) => void) => {
    const copy = structuredClone(item) as Record<string | number, unknown>;
    if (path.length === 0) return;
    const parent = path.slice(0, -1).reduce<Record<string | number, unknown>>((node, k) => node[k] as Record<string | number, unknown>, copy);
    change(parent, path.at(-1)!);
    out.push(copy);
  };
  for (const value of REPLACEMENTS) edit((parent, key) => (parent[key] = structuredClone(value)));
  edit((parent, key) => {
    if (Array.isArray(parent)) parent.splice(Number(key), 1);
    else delete parent[key];
  });
  const node = path.reduce<unknown>((n, k) => (n as Record<string | number, unknown>)[k], item);
  if (typeof node === 'object' && node !== null && !Array.isArray(node)) {
    const keys = Object.keys(node);
    edit((parent, key) => ((parent[key] as Record<string, unknown>).zz_unknown = 1));
    if (keys.length >= 2) {
      edit((parent, key) => {
        const o = parent[key] as Record<string, unknown>;
        parent[key] = Object.fromEntries([[keys[1]!, o[keys[1]!]], [keys[0]!, o[keys[0]!]], ...keys.slice(2).map((k) => [k, o[k]])]);
      });
    }
  }
  return out;
}

describe('a state item checked in place', () => {
  it('accepts only what zod accepts, and then zod makes the same value of it (every field of every kind, broken every way)', async () => {
    const doc = await documentOfEveryKind();
    let tried = 0;
    let accepted = 0;
    for (const list of STATE_LISTS) {
      const schema = STATE_ITEM_SCHEMAS[list];
      const check = compileInPlace(schema);
      expect(doc[list].length, list).toBeGreaterThan(0);
      for (const item of doc[list]) {
        for (const path of paths(item)) {
          for (const variant of [item, ...variants(item, path)]) {
            const zod = schema.safeParse(structuredClone(variant));
            const box = { item: structuredClone(variant) };
            tried++;
            if (!check(box.item, box, 'item')) continue;
            accepted++;
            expect(zod.success, `${list} ${path.join('.')}: ${JSON.stringify(variant).slice(0, 200)}`).toBe(true);
            expect(box.item).toStrictEqual(zod.data); // the same, but for the keys' order
          }
        }
      }
    }
    expect(tried).toBeGreaterThan(10_000);
    expect(accepted).toBeGreaterThan(0);
  });

  it('takes a saved order, quote and partner as they are (the fast path is the one taken)', async () => {
    const doc = JSON.parse(JSON.stringify(sandbox.exportState())) as StateDocument;
    for (const list of ['orders', 'quotes', 'partners'] as const) {
      const check = compileInPlace(STATE_ITEM_SCHEMAS[list]);
      for (const item of doc[list]) {
        const box = { item };
        expect(check(item, box, 'item'), list).toBe(true);
        expect(box.item).toBe(item); // not copied
      }
    }
  });

  it("refuses a status entry whose event is no status (the timeline's refinement)", () => {
    const doc = JSON.parse(JSON.stringify(sandbox.exportState())) as StateDocument;
    const order = doc.orders[0]!;
    const entry = order.timeline.find((t) => t.group === 'status')!;
    entry.event = 'nearly_done';
    expect(compileInPlace(STATE_ITEM_SCHEMAS.orders)(order, { order }, 'order')).toBe(false);
    expect(STATE_ITEM_SCHEMAS.orders.safeParse(order).success).toBe(false);
  });
});
