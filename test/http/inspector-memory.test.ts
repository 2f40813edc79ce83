import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrder } from '../support/orders';
import { startTestServer, type TestServer } from '../support/server';

// CONTRACT §9 and §11, issue 22 (critical): the inspector shows the first 4 KiB of each body and
// must hold no more. A slice of a 1 MiB body kept the whole body alive in V8, so 4,093
// unauthenticated 1 MiB POSTs, or ~4,900 polls of a large order list, ended in a heap OOM.
// A soak bounded in count, judged on the heap after GC (a memory figure, not a time).
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const MiB = 1024 * 1024;

async function heapAfterGc(): Promise<number> {
  for (let i = 0; i < 3; i++) {
    gc();
    await new Promise((resolve) => setImmediate(resolve));
  }
  // The heap and the array buffers: the inspector keeps its bodies as bytes outside the heap (decision 024).
  const { heapUsed, arrayBuffers } = process.memoryUsage();
  return heapUsed + arrayBuffers;
}

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s.close());

describe('request inspector memory (issue 22)', () => {
  it('holds about the excerpts of 300 unauthenticated 1 MiB bodies, not the bodies', async () => {
    const body = JSON.stringify({ blob: 'x'.repeat(MiB - 20) });
    await s.request('POST', '/v1/orders', { headers: { 'content-type': 'application/json' }, body });
    const before = await heapAfterGc();
    for (let i = 0; i < 300; i++) {
      // A fresh string per request, as sockets deliver them.
      const res = await fetch(`${s.url}/v1/orders`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: `${body.slice(0, -2)}${i % 10}"}`,
      });
      expect(res.status).toBe(401);
      await res.arrayBuffer();
    }
    const grown = (await heapAfterGc()) - before;
    expect(s.sandbox.requests.size).toBeGreaterThanOrEqual(300);
    const [latest] = s.sandbox.requests.list({ limit: 1 });
    expect(latest!.request_body).toHaveLength(4096);
    // 300 MiB were sent; the ring keeps 300 × 4 KiB of excerpts (plus the other fields).
    expect(grown).toBeLessThan(30 * MiB);
  });

  it('holds about the excerpts of 80 polls of an 800 KB order list, not the answers', async () => {
    const metadata = { note: 'm'.repeat(8000) };
    for (let i = 0; i < 100; i++) await createOrder(s, 'onramp', { metadata });
    const first = await s.signed('GET', '/v1/orders?per_page=100');
    expect(first.text.length).toBeGreaterThan(800_000);
    const before = await heapAfterGc();
    for (let i = 0; i < 80; i++) expect((await s.signed('GET', '/v1/orders?per_page=100')).status).toBe(200);
    const grown = (await heapAfterGc()) - before;
    expect(grown).toBeLessThan(20 * MiB);
  });
});
