import { execFile, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/server';

// Issue 6: clients generated in other languages work unchanged. openapi-python-client is on PyPI,
// which the machines running these tests cannot reach, and @openapitools/openapi-generator-cli
// downloads its jar at run time: no generator runs here. test/support/python-client.py does what
// a generated Python client does instead (operations from GET /openapi.json, array parameters
// repeated, spec §5.2 signing) with the standard library: quote, create, get with include, cancel.
const exec = promisify(execFile);
const SCRIPT = fileURLToPath(new URL('../support/python-client.py', import.meta.url));
const PYTHON = spawnSync('python3', ['--version']).status === 0;

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s?.close());

describe.skipIf(!PYTHON)('a Python client of GET /openapi.json (issue 6)', () => {
  it('quotes, creates an order from the quote, gets it with include repeated, and cancels it', async () => {
    const keys = s.demo.keys.test;
    const { stdout } = await exec('python3', [SCRIPT, s.url, s.demo.clientId, keys.secret_key, keys.encryption_key], { timeout: 60_000 });
    const lines = stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const reference = lines.at(-1).reference as string;
    expect(lines.at(-1)).toEqual({ done: true, reference: expect.stringMatching(/^ORD/) });
    expect(lines.slice(0, -1)).toEqual([
      { step: 'createQuote', method: 'POST', path: '/v1/orders/quote', status: 200, code: null },
      { step: 'createOrder', method: 'POST', path: '/v1/orders', status: 200, code: null },
      { step: 'getOrder', method: 'GET', path: `/v1/orders/${reference}?include=payout&include=timeline`, status: 200, code: null },
      { step: 'cancelOrder', method: 'PATCH', path: `/v1/orders/${reference}/cancel`, status: 200, code: null },
    ]);
    // What the sandbox saw: four secret-key requests, signed as sent.
    const seen = (await s.control('GET', `/sandbox/requests?q=${reference}`)).body.data.reverse();
    expect(seen.map((r: any) => [r.method, r.path.replace(reference, 'REF'), r.status, r.auth])).toEqual([
      ['POST', '/v1/orders', 200, 'secret'],
      ['GET', '/v1/orders/REF?include=payout&include=timeline', 200, 'secret'],
      ['PATCH', '/v1/orders/REF/cancel', 200, 'secret'],
    ]);
  }, 90_000);
});
