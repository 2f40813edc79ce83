import { mkdtempSync, readFileSync } from 'node:fs';
import { get, type IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/server';

// CONTRACT §13 "stream it", §9 "nothing blocks for long" (the reliability issue: saving 200,000
// orders held every request for 6-9 s). The save and GET /sandbox/state are made in slices that
// let the event loop run: reads are answered meanwhile, changes wait, and the document is the
// state of one instant. The slices are injected: 0 ms of work each, and the first pause is held
// by the test until it has seen what it wants, so nothing depends on timing.
const servers: TestServer[] = [];
afterAll(async () => {
  for (const s of servers) await s.close();
});

/** Slicing whose first pause lasts until `resume()`; the others are one turn of the event loop. */
function heldSlicing() {
  let pauses = 0;
  let paused!: () => void;
  let resume!: () => void;
  const firstPause = new Promise<void>((r) => (paused = r));
  const resumed = new Promise<void>((r) => (resume = r));
  return {
    slicing: {
      sliceMs: 0,
      yield: () => {
        pauses++;
        if (pauses === 1) {
          paused();
          return resumed;
        }
        return new Promise<void>((r) => setImmediate(r));
      },
    },
    firstPause,
    resume,
    pauses: () => pauses,
  };
}

/** Waits, turn by turn of the event loop, until `ready()` (a condition, not a delay). */
async function until(ready: () => boolean, what: string): Promise<void> {
  for (let turns = 0; !ready(); turns++) {
    if (turns > 100_000) throw new Error(`never: ${what}`);
    await new Promise<void>((r) => setImmediate(r));
  }
}

async function someOrders(s: TestServer, n: number): Promise<void> {
  const partner = s.sandbox.partners.create({ name: 'Stream', webhook_url: null });
  const caller = { partner, env: 'test' as const };
  for (let i = 0; i < n; i++) {
    await s.sandbox.orders.create(caller, {
      from: { currency: 'NGN', amount: 5000 + i },
      to: { currency: 'USDT', network: 'base-sepolia' },
      recipient: { address: '0x52908400098527886E0F7030069857D2E4169EE7' },
      customer: { reference: `c${i}`, name: 'Ada', email: 'ada@example.com' },
    } as never);
  }
}

describe('a streamed state', () => {
  it('answers reads during a save, holds changes until it ends, and saves the document of one instant', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'state-stream-')), 'sandbox.json');
    const held = heldSlicing();
    const s = await startTestServer({ seed: 5, statePath: file, stateSlicing: held.slicing });
    servers.push(s);
    await someOrders(s, 300);
    const expected = s.sandbox.exportStateChunks().join('');

    let saved = false;
    const saving = s.control('POST', '/sandbox/state/save').then((res) => {
      saved = true;
      return res;
    });
    await Promise.race([held.firstPause, saving]);
    // Before: the document was made in one synchronous pass, and the save ended without a pause.
    expect(held.pauses(), 'the save paused for the event loop').toBe(1);
    expect(saved).toBe(false);

    // Reads are answered while the save is paused: /health, and the whole document again.
    const health = await s.control('GET', '/health');
    expect(health.status).toBe(200);
    const read = await s.control('GET', '/sandbox/state');
    expect(read.status).toBe(200);
    // (the document's line breaks, one item a line (decision 029), are whitespace inside the envelope)
    expect(JSON.stringify(read.body.data)).toBe(expected.replaceAll('\n', ''));
    expect(saved).toBe(false);

    // A change waits for the save: it reaches the gate and stays there.
    let created = false;
    const creating = s
      .control('POST', '/sandbox/orders', {
        client_id: s.demo.clientId,
        from: { currency: 'NGN', amount: 7000 },
        to: { currency: 'USDT', network: 'base-sepolia' },
      })
      .then((res) => {
        created = true;
        return res;
      });
    await until(() => s.sandbox.changes.waiting === 1, 'the create waits for the save');
    expect(created).toBe(false);
    expect(s.sandbox.orders.store.orders.size).toBe(300);

    held.resume();
    const res = await saving;
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.bytes).toBe(Buffer.byteLength(expected));
    expect(res.body.data.summary.orders).toBe(300);
    const made = await creating;
    expect(made.status, made.text).toBe(200);
    expect(s.sandbox.orders.store.orders.size).toBe(301);

    // The file is the document of the instant the save began (the create is not in it), and loads.
    const text = readFileSync(file, 'utf8');
    expect(text).toBe(expected);
    expect(text).not.toContain(made.body.data.reference);
    const restored = await s.control('PUT', '/sandbox/state', JSON.parse(text));
    expect(restored.status, restored.text).toBe(200);
    expect(restored.body.data.orders).toBe(300);
  });

  it('holds the timers while the document streams, and fires what fell due once it ends', async () => {
    const held = heldSlicing();
    const s = await startTestServer({ seed: 5, stateSlicing: held.slicing });
    servers.push(s);
    await someOrders(s, 20);
    const reading = s.control('GET', '/sandbox/state');
    await Promise.race([held.firstPause, reading]);
    expect(held.pauses(), 'the export paused for the event loop').toBe(1);
    // An advance past every pay-in window starts, and waits for the stream before firing anything.
    let advanced = false;
    const advancing = s.sandbox.advance(3_600_000).then((fired) => {
      advanced = true;
      return fired;
    });
    await until(() => s.sandbox.clock.pending > 0 && !advanced, 'the advance is under way');
    const before = s.sandbox.clock.pending;
    for (let i = 0; i < 50; i++) await new Promise<void>((r) => setImmediate(r));
    expect(advanced).toBe(false);
    expect(s.sandbox.clock.pending).toBe(before);
    held.resume();
    const doc = (await reading).body.data;
    expect(doc.timers).toHaveLength(before);
    expect((await advancing).length).toBeGreaterThanOrEqual(20);
  });

  it('never lets a reader of GET /sandbox/state that stopped reading hold the changes', async () => {
    const s = await startTestServer({ seed: 5 });
    servers.push(s);
    await someOrders(s, 3000); // a document of several MB: more than the socket's buffers take
    const res = await new Promise<IncomingMessage>((resolve, reject) => get(`${s.url}/sandbox/state`, resolve).on('error', reject));
    res.pause(); // and never read again
    try {
      expect(res.statusCode).toBe(200);
      const made = await s.control('POST', '/sandbox/orders', {
        client_id: s.demo.clientId,
        from: { currency: 'NGN', amount: 7000 },
        to: { currency: 'USDT', network: 'base-sepolia' },
      });
      expect(made.status, made.text).toBe(200);
      expect(s.sandbox.changes.closed).toBe(false);
    } finally {
      res.destroy();
    }
  });
});
