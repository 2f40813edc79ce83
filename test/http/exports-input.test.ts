import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seeded } from '../support/property';
import { startTestServer, type TestServer } from '../support/server';

// CONTRACT §3, §19: no query of the exports, however odd, gets a 5xx; a refusal is the error envelope.
let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
  await s.signed('GET', '/v1/networks');
  await s.signed('GET', '/v1/orders/ORDNOPE');
});
afterAll(() => s.close());

const value = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.constantFrom('', 'test', 'live', '4xx', '401', '1000', '0', '-1', '1e3', '%', '%zz', '[]', 'é', 'ptr_nobody'),
);
const query = fc
  .dictionary(
    fc.constantFrom('client_id', 'environment', 'status', 'path', 'limit', 'extra', 'client_id[]', 'limit[0]'),
    fc.oneof(value, fc.array(value, { maxLength: 3 })),
    { maxKeys: 5 },
  )
  .map((params) => {
    const q = new URLSearchParams();
    for (const [key, v] of Object.entries(params)) for (const one of Array.isArray(v) ? v : [v]) q.append(key, one);
    return q.toString();
  });

describe('the exports under odd queries', () => {
  it('answer 200 with a document, or 4xx in the error envelope, never a 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('/sandbox/requests.har', '/sandbox/postman.json'), query, async (path, q) => {
        // Through the test client: every answer is also checked against the OpenAPI document.
        const res = await s.request('GET', `${path}?${q}`);
        expect(res.status).toBeLessThan(500);
        if (res.status === 200) expect(res.body).toHaveProperty(path.endsWith('.har') ? 'log.entries' : 'info.schema');
        else expect(res.body).toMatchObject({ status: false, code: expect.stringMatching(/^E_/), message: expect.any(String) });
      }),
      seeded({ numRuns: 150 }),
    );
  }, 60_000);
});
