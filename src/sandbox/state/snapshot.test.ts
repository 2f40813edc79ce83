import { afterEach, describe, expect, it } from 'vitest';
import { fixedWallClock } from '../../clock';
import { createSandbox, VERSION, type Sandbox } from '../sandbox';
import { exportState, exportStateChunks, exportStateStream, restoreState, type StateParts } from './snapshot';
import type { StateDocument } from './state.schema';
import { refusal } from '../../../test/support/refusal';

// CONTRACT §13: the whole state as one document; a restore checks what a schema cannot (the
// references inside the document) and fully succeeds or changes nothing.

const T0 = Date.UTC(2026, 0, 15, 12, 0, 0);
const SEED = 3;
const EVM = '0x52908400098527886E0F7030069857D2E4169EE7';
const customer = { reference: 'cus_1', name: 'Ada Obi', email: 'ada@example.com' };

const open: Sandbox[] = [];
afterEach(() => {
  for (const s of open.splice(0)) s.close();
});

function sandbox(seed = SEED): Sandbox {
  // A fixed wall clock: delivery attempts note wall time, and two runs must agree on it.
  const s = createSandbox({ clockMode: 'manual', clockStart: T0, logLevel: 'silent', seed, wall: fixedWallClock(T0) });
  open.push(s);
  return s;
}

/** The parts a sandbox's snapshot reads, wired as the composition root wires them. */
const partsOf = (s: Sandbox): StateParts => ({
  seed: s.config.seed,
  version: VERSION,
  clock: s.clock,
  ids: s.ids,
  partners: s.partners,
  orders: s.orders,
  dispatcher: s.dispatcher,
  faults: s.faults,
});

/**
 * A small sandbox with something of every kind: a second partner with a rotated (revoked) key
 * set, a quote, orders waiting, cancelled and in progress (their timers), a delivery waiting
 * for its retry (the partner has no URL: no request is made) and a fault.
 */
async function populated(): Promise<Sandbox> {
  const s = sandbox();
  const partner = s.partners.create({ client_id: 'ptr_snap', name: 'Snap', ip_whitelist: ['10.0.0.0/8'] });
  s.partners.rotate('ptr_snap', 'test');
  const caller = { partner, env: 'test' as const };
  const body = (amount: number) => ({
    from: { currency: 'NGN', amount },
    to: { currency: 'USDT', network: 'base-sepolia' },
    recipient: { address: EVM },
    customer,
  });
  s.orders.quote(caller, { from: { currency: 'NGN', amount: 20_000 }, to: { currency: 'USDT', network: 'base-sepolia' } });
  s.orders.create(caller, { ...body(50_000), merchant_reference: 'm-1', metadata: { note: 'é😀' } });
  const cancelled = s.orders.create(caller, body(60_000));
  s.orders.cancel(caller, cancelled.reference, 'changed mind');
  const paid = s.orders.create(caller, body(70_000));
  s.orders.simulatePayin(paid.reference, {});
  s.dispatcher.enqueue({
    partner,
    environment: 'test',
    order: paid.reference,
    event: 'order.fiat_recieved',
    data: { reference: paid.reference },
  });
  s.faults.add({ path: '/v1/orders', error: { status: 503 }, times: 2 });
  await s.advance(90_000);
  return s;
}

describe('state snapshot', () => {
  it('exports a document that, restored into a fresh sandbox, exports the same document', async () => {
    const s = await populated();
    const doc = exportState(partsOf(s));
    expect(doc).toMatchObject({ version: 1, sandbox_version: VERSION, seed: SEED, evicted_orders: 0 });
    expect(doc.partners.map((p) => p.client_id)).toEqual([s.demoPartner.client_id, 'ptr_snap']);
    expect(doc.revoked_keys).toHaveLength(3);
    expect(doc.quotes).toHaveLength(1);
    expect(doc.orders.map((o) => o.status)).toEqual(['awaiting_user_payment', 'cancelled', 'processing']);
    expect(doc.deliveries.map((d) => d.status)).toEqual(['retrying']);
    expect(doc.timers.map((t) => t.tag.kind).sort()).toEqual(['delivery_retry', 'order', 'order', 'quote_forget']);
    expect(doc.faults.faults).toHaveLength(1);

    const copy = sandbox();
    restoreState(partsOf(copy), structuredClone(doc));
    expect(exportState(partsOf(copy))).toEqual(doc);
    expect(JSON.stringify(exportState(partsOf(copy)))).toBe(JSON.stringify(doc));
  });

  it('restores a state that runs on as the original does: the same timers fire to the same document', async () => {
    const s = await populated();
    const copy = sandbox();
    restoreState(partsOf(copy), structuredClone(exportState(partsOf(s))));
    await s.advance(24 * 3_600_000);
    await copy.advance(24 * 3_600_000);
    const after = exportState(partsOf(s));
    expect(after.orders.map((o) => o.status)).toEqual(['expired', 'cancelled', 'completed']);
    expect(exportState(partsOf(copy))).toEqual(after);
  });

  it('writes chunks whose text is JSON.stringify of the exported document, one item of a list a line', async () => {
    const s = await populated();
    const text = exportStateChunks(partsOf(s)).join('');
    // Decision 029: a line break before each item of a list and before its end, nowhere else.
    expect(text.replaceAll('\n', '')).toBe(JSON.stringify(exportState(partsOf(s))));
    const doc = exportState(partsOf(s));
    const items = ['partners', 'revoked_keys', 'quotes', 'orders', 'timers', 'deliveries'] as const;
    expect(text.split('\n')).toHaveLength(1 + items.reduce((n, list) => n + doc[list].length + 1, 0));
    expect(exportStateChunks(partsOf(sandbox())).join('').replaceAll('\n', '')).toBe(JSON.stringify(exportState(partsOf(sandbox()))));
  });

  it('streams the same text as UTF-8 bytes in slices, a new chunk only when one is full (a slow reader holds the document, not a chunk per slice)', async () => {
    const s = await populated();
    // Every piece a slice of its own (the slice's time is always spent).
    let t = 0;
    const slicing = { now: () => (t += 1), sliceMs: 1, yield: () => Promise.resolve() };
    const views: Buffer[] = [];
    for await (const view of exportStateStream(partsOf(s), { slicing })) views.push(view);
    const text = exportStateChunks(partsOf(s)).join('');
    expect(Buffer.concat(views).toString('utf8')).toBe(text);
    expect(views.length).toBeGreaterThan(10);
    // Views of the same chunk never overlap, and the chunks' memory is the document's, rounded up.
    const chunks = new Set(views.map((v) => v.buffer));
    expect(chunks.size).toBe(1);
    const ends = views.map((v) => [v.byteOffset, v.byteOffset + v.length]);
    for (let i = 1; i < ends.length; i++) expect(ends[i]![0]).toBe(ends[i - 1]![1]);
  });

  it('refuses a document saved with another seed, naming the seed to start with', async () => {
    const s = await populated();
    const other = sandbox(SEED + 1);
    const before = JSON.stringify(exportState(partsOf(other)));
    const error = refusal(() => restoreState(partsOf(other), exportState(partsOf(s))));
    expect(error.code).toBe('E_VALIDATION_ERROR');
    expect(error.status).toBe(422);
    expect(error.message).toBe(
      `seed: the state was saved with seed ${SEED}; start the sandbox with --seed ${SEED} to load it (this one runs seed ${SEED + 1})`,
    );
    expect(JSON.stringify(exportState(partsOf(other)))).toBe(before);
  });

  it('refuses a document whose references do not resolve with a 422 naming the field, changing nothing', async () => {
    const s = await populated();
    const doc = exportState(partsOf(s));
    const target = sandbox();
    target.orders.create(
      { partner: target.demoPartner, env: 'test' },
      {
        from: { currency: 'NGN', amount: 1_000 },
        to: { currency: 'USDT', network: 'base-sepolia' },
        recipient: { address: EVM },
        customer,
      },
    );
    const before = JSON.stringify(exportState(partsOf(target)));
    const orderTimer = doc.timers.findIndex((t) => t.tag.kind === 'order');
    const retryTimer = doc.timers.findIndex((t) => t.tag.kind === 'delivery_retry');
    const quoteTimer = doc.timers.findIndex((t) => t.tag.kind === 'quote_forget');
    const broken: Array<[string, (d: StateDocument) => void, string]> = [
      [
        'an order of an unknown partner',
        (d) => (d.orders[1]!.clientId = 'ptr_nobody'),
        'orders.1.clientId: partner ptr_nobody is not in partners',
      ],
      [
        'a quote of an unknown partner',
        (d) => (d.quotes[0]!.clientId = 'ptr_nobody'),
        'quotes.0.clientId: partner ptr_nobody is not in partners',
      ],
      [
        'a delivery of an unknown partner',
        (d) => (d.deliveries[0]!.client_id = 'ptr_nobody'),
        'deliveries.0.client_id: partner ptr_nobody is not in partners',
      ],
      [
        'a delivery for an unknown order',
        (d) => (d.deliveries[0]!.order = 'ORDGONE'),
        'deliveries.0.order: order ORDGONE is not in orders',
      ],
      [
        'a revoked key of an unknown partner',
        (d) => (d.revoked_keys[2]!.client_id = 'ptr_nobody'),
        'revoked_keys.2.client_id: partner ptr_nobody is not in partners',
      ],
      [
        'a timer for an unknown order',
        (d) => ((d.timers[orderTimer]!.tag as { reference: string }).reference = 'ORDGONE'),
        `timers.${orderTimer}.tag.reference: order ORDGONE is not in orders`,
      ],
      [
        'a retry of an unknown delivery',
        (d) => ((d.timers[retryTimer]!.tag as { id: string }).id = 'dlv_gone'),
        `timers.${retryTimer}.tag.id: delivery dlv_gone is not in deliveries`,
      ],
      [
        'a timer for an unknown quote',
        (d) => ((d.timers[quoteTimer]!.tag as { quote_id: string }).quote_id = 'qt_gone'),
        `timers.${quoteTimer}.tag.quote_id: quote qt_gone is not in quotes`,
      ],
      ['an order twice', (d) => d.orders.push(structuredClone(d.orders[0]!)), `orders.3: ${doc.orders[0]!.reference} appears twice`],
      ['a partner twice', (d) => d.partners.push(structuredClone(d.partners[1]!)), 'partners.2: ptr_snap appears twice'],
      [
        'a key two partners share',
        (d) => (d.partners[1]!.keys.live.secret_key = d.partners[0]!.keys.live.secret_key),
        `partners.1.keys.live.secret_key: is already a key of partner ${s.demoPartner.client_id}`,
      ],
      [
        'a revoked key a partner still holds',
        (d) => (d.revoked_keys[0]!.key = d.partners[1]!.keys.test.public_key),
        'revoked_keys.0.key: is already a key of this partner',
      ],
      ['a clock before its start', (d) => (d.clock.start_ms = d.clock.now_ms + 1), 'clock.now_ms: is before clock.start_ms'],
    ];
    for (const [what, breakIt, message] of broken) {
      const bad = structuredClone(doc);
      breakIt(bad);
      const error = refusal(() => restoreState(partsOf(target), bad));
      expect([what, error.code, error.message]).toEqual([what, 'E_VALIDATION_ERROR', message]);
      expect(JSON.stringify(exportState(partsOf(target))), what).toBe(before);
    }
  });

  it('puts the previous state back when a part fails while being replaced', async () => {
    const s = await populated();
    const target = await populated();
    await target.advance(3_600_000); // differs from s: later clock, other statuses
    const before = JSON.stringify(exportState(partsOf(target)));
    const pending = target.clock.pending;
    const doc = exportState(partsOf(s));
    // A tag that passes the reference checks but that no module takes (a schema would refuse it).
    const i = doc.timers.findIndex((t) => t.tag.kind === 'order');
    (doc.timers[i]!.tag as { id: unknown }).id = 42;
    const error = refusal(() => restoreState(partsOf(target), doc));
    expect(error.message).toMatch(new RegExp(`^timers\\.${i}\\.tag: names nothing in this document`));
    expect(JSON.stringify(exportState(partsOf(target)))).toBe(before);
    expect(target.clock.pending).toBe(pending);
  });
});
