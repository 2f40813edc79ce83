import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signedHeaders } from '../support/sign';
import { startTestServer, type TestServer } from '../support/server';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s.close());

describe('HTTP shell (CONTRACT §3)', () => {
  it('answers unknown routes 404 in the error envelope, whatever the credentials', async () => {
    for (const headers of [{}, { 'svc-client-id': 'x', authorization: 'Bearer nope' }] as Record<string, string>[]) {
      const res = await s.request('GET', '/v1/does-not-exist', { headers });
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ status: false, code: 'E_NOTFOUND', message: expect.any(String) });
      expect(res.headers.get('content-type')).toMatch(/application\/json/);
    }
    expect((await s.request('GET', '/nothing-here')).status).toBe(404);
    // CONTRACT §15: / is the dashboard's address.
    const home = await s.request('GET', '/');
    expect(home.status).toBe(302);
    expect(home.headers.get('location')).toBe('/sandbox/dashboard');
    expect((await s.request('GET', '/sandbox/nope')).status).toBe(404);
  });

  it('answers a wrong method on a known path 405 E_BADREQUEST with Allow', async () => {
    for (const method of ['DELETE', 'PUT', 'PATCH']) {
      const res = await s.request(method, '/v1/networks');
      expect(res.status).toBe(405);
      expect(res.body.code).toBe('E_BADREQUEST');
      expect(res.headers.get('allow')).toMatch(/GET/);
    }
  });

  it('answers malformed JSON 400 E_BADREQUEST, after authentication', async () => {
    const body = '{"from": ';
    const path = '/v1/orders/quote';
    const ok = await s.request('POST', path, {
      headers: signedHeaders({ clientId: s.demo.clientId, keys: s.demo.keys.test, method: 'POST', path, body }),
      body,
    });
    expect(ok.status).toBe(400);
    expect(ok.body).toEqual({ status: false, code: 'E_BADREQUEST', message: expect.stringMatching(/Malformed JSON/) });
    const unauth = await s.request('POST', path, { headers: { 'content-type': 'application/json' }, body });
    expect(unauth.status).toBe(401);
  });

  it('answers a JSON scalar body 400 and a non-JSON content type 415', async () => {
    const path = '/v1/orders/quote';
    for (const [body, type, status] of [
      ['123', 'application/json', 400],
      ['{"a":1}', 'text/plain', 415],
    ] as const) {
      const headers = {
        ...signedHeaders({ clientId: s.demo.clientId, keys: s.demo.keys.test, method: 'POST', path, body }),
        'content-type': type,
      };
      const res = await s.request('POST', path, { headers, body });
      expect(res.status, `${type} ${body}`).toBe(status);
      expect(res.body.code).toBe('E_BADREQUEST');
    }
  });

  it('answers a body over 1 MiB 413 E_BADREQUEST', async () => {
    const body = JSON.stringify({ pad: 'x'.repeat(1024 * 1024 + 10) });
    const res = await s.request('POST', '/v1/orders/quote', { headers: { 'content-type': 'application/json' }, body });
    expect(res.status).toBe(413);
    expect(res.body.code).toBe('E_BADREQUEST');
    const control = await s.request('POST', '/sandbox/partners', { headers: { 'content-type': 'application/json' }, body });
    expect(control.status).toBe(413);
  });

  it('echoes or assigns x-request-id', async () => {
    const given = await s.request('GET', '/health', { headers: { 'x-request-id': 'abc-123' } });
    expect(given.headers.get('x-request-id')).toBe('abc-123');
    const assigned = await s.request('GET', '/health');
    expect(assigned.headers.get('x-request-id')).toMatch(/^req-/);
  });

  it('reports validation errors as <field.path>: <reason> naming the first failing field', async () => {
    const res = await s.control('POST', '/sandbox/partners', { keys: { test: { public_key: 1 } } });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ status: false, code: 'E_VALIDATION_ERROR', message: expect.stringMatching(/^keys\.test\.public_key: /) });
  });

  it('writes one structured log line per request with its request id', async () => {
    const { Writable } = await import('node:stream');
    const { default: pino } = await import('pino');
    const lines: any[] = [];
    const sink = new Writable({
      write(chunk, _enc, cb) {
        lines.push(JSON.parse(String(chunk)));
        cb();
      },
    });
    const c = await startTestServer({ logger: pino({ level: 'info' }, sink) });
    try {
      await c.request('GET', '/v1/networks', { headers: { 'x-request-id': 'log-me' } });
      await c.signed('GET', '/v1/networks');
      const logged = lines.filter((l) => l.msg === 'request' && l.url !== '/openapi.json');
      expect(logged[0]).toMatchObject({ reqId: 'log-me', method: 'GET', url: '/v1/networks', status: 401 });
      expect(logged[1]).toMatchObject({ status: 200, clientId: c.demo.clientId, env: 'test' });
    } finally {
      await c.close();
    }
  });
});
