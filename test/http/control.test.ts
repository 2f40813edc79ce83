import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signedHeaders } from '../support/sign';
import { startTestServer, T0, type TestServer } from '../support/server';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s.close());

const key = (prefix: string, fill = 'a') => `${prefix}${fill.repeat(24)}`;
const keySet = (env: string, fill: string) => ({
  public_key: key(`pk_${env}_`, fill),
  secret_key: key(`sk_${env}_`, fill),
  encryption_key: key(`enc_${env}_`, fill),
});

describe('partners (CONTRACT §4)', () => {
  it('creates a partner with generated keys of the right prefixes', async () => {
    const res = await s.control('POST', '/sandbox/partners', { name: 'Acme', webhook_url: 'http://127.0.0.1:9/hook' });
    expect(res.status).toBe(200);
    const d = res.body.data;
    expect(d).toMatchObject({ name: 'Acme', kyb_status: 'approved', webhook_url: 'http://127.0.0.1:9/hook', ip_whitelist: [] });
    expect(d.events).toHaveLength(10);
    for (const env of ['test', 'live']) {
      expect(d.keys[env].public_key).toMatch(new RegExp(`^pk_${env}_[A-Za-z0-9_]{16,128}$`));
      expect(d.keys[env].secret_key).toMatch(new RegExp(`^sk_${env}_[A-Za-z0-9_]{16,128}$`));
      expect(d.keys[env].encryption_key).toMatch(new RegExp(`^enc_${env}_[A-Za-z0-9_]{16,128}$`));
    }
  });

  it('creates a partner with a caller-given client id and keys that then sign requests', async () => {
    const body = { client_id: 'acme_ci', keys: { test: keySet('test', 'q'), live: keySet('live', 'r') } };
    const res = await s.control('POST', '/sandbox/partners', body);
    expect(res.status).toBe(200);
    expect(res.body.data.keys).toEqual(body.keys);
    const h = signedHeaders({ clientId: 'acme_ci', keys: body.keys.test, method: 'GET', path: '/v1/networks' });
    expect((await s.request('GET', '/v1/networks', { headers: h })).status).toBe(200);
    const again = await s.control('POST', '/sandbox/partners', { client_id: 'acme_ci' });
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('E_CONFLICT');
  });

  it('rejects caller-given keys with a wrong prefix or body, naming the field', async () => {
    for (const [keys, field] of [
      [{ test: { ...keySet('test', 'b'), secret_key: key('sk_live_', 'b') } }, 'keys.test.secret_key'],
      [{ live: { ...keySet('live', 'c'), public_key: 'pk_live_short' } }, 'keys.live.public_key'],
      [{ test: { ...keySet('test', 'd'), encryption_key: 'enc_test_has-dash-not-allowed-here' } }, 'keys.test.encryption_key'],
    ] as const) {
      const res = await s.control('POST', '/sandbox/partners', { keys });
      expect(res.status).toBe(422);
      expect(res.body.message).toMatch(new RegExp(`^${field.replace(/\./g, '\\.')}: `));
    }
  });

  it('rejects keys already used by another partner with 409', async () => {
    const res = await s.control('POST', '/sandbox/partners', { keys: { test: s.demo.keys.test } });
    expect(res.status).toBe(409);
  });

  it('shows settings with keys masked except the public key', async () => {
    const p = await s.createPartner();
    const res = await s.control('GET', `/sandbox/partners/${p.clientId}`);
    expect(res.status).toBe(200);
    const keys = res.body.data.keys.test;
    expect(keys.public_key).toBe(p.keys.test.public_key);
    expect(keys.secret_key).toMatch(/^sk_test_\*{4}.{4}$/);
    expect(keys.encryption_key).toMatch(/^enc_test_\*{4}.{4}$/);
    expect(JSON.stringify(res.body)).not.toContain(p.keys.test.secret_key);
    expect((await s.control('GET', '/sandbox/partners/nope')).status).toBe(404);
  });

  it('patches settings and validates them', async () => {
    const p = await s.createPartner();
    const res = await s.control('PATCH', `/sandbox/partners/${p.clientId}`, {
      kyb_status: 'pending',
      events: ['order.created', 'order.settled'],
      webhook_url: null,
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ kyb_status: 'pending', events: ['order.created', 'order.settled'], webhook_url: null });
    const bad = await s.control('PATCH', `/sandbox/partners/${p.clientId}`, { events: ['order.nope'] });
    expect(bad.status).toBe(422);
    expect(bad.body.message).toMatch(/^events\.0: /);
    const badUrl = await s.control('PATCH', `/sandbox/partners/${p.clientId}`, { webhook_url: 'ftp://x' });
    expect(badUrl.status).toBe(422);
    expect(badUrl.body.message).toMatch(/^webhook_url: /);
  });

  it('rotates only the named environment and answers 422 for a bad one', async () => {
    const p = await s.createPartner();
    const bad = await s.control('POST', `/sandbox/partners/${p.clientId}/keys`, { environment: 'prod' });
    expect(bad.status).toBe(422);
    const res = await s.control('POST', `/sandbox/partners/${p.clientId}/keys`, { environment: 'live' });
    expect(res.body.data.keys.secret_key).toMatch(/^sk_live_/);
    expect(res.body.data.keys.secret_key).not.toBe(p.keys.live.secret_key);
  });
});

describe('clock (CONTRACT §2, §4)', () => {
  it('reports the manual clock and advances by ms, duration and to', async () => {
    const c = await startTestServer();
    try {
      const start = await c.control('GET', '/sandbox/clock');
      expect(start.body.data).toMatchObject({ now: new Date(T0).toISOString(), now_ms: T0, mode: 'manual', speed: 1, pending_timers: 0 });
      const byMs = await c.control('POST', '/sandbox/clock/advance', { ms: 1500 });
      expect(byMs.body.data.clock.now_ms).toBe(T0 + 1500);
      const byDuration = await c.control('POST', '/sandbox/clock/advance', { duration: '5m' });
      expect(byDuration.body.data.clock.now_ms).toBe(T0 + 1500 + 300_000);
      const to = new Date(T0 + 86_400_000).toISOString();
      const byTo = await c.control('POST', '/sandbox/clock/advance', { to });
      expect(byTo.body.data.clock.now).toBe(to);
      expect(byTo.body.data.fired_count).toBe(0);
    } finally {
      await c.close();
    }
  });

  it('fires due timers on advance and lists them', async () => {
    const c = await startTestServer();
    try {
      c.sandbox.clock.setTimer(T0 + 60_000, () => {}, 'test timer');
      expect((await c.control('GET', '/sandbox/clock')).body.data.pending_timers).toBe(1);
      const res = await c.control('POST', '/sandbox/clock/advance', { duration: '90s' });
      expect(res.body.data.fired).toEqual([{ at: new Date(T0 + 60_000).toISOString(), label: 'test timer' }]);
      expect(res.body.data.clock.pending_timers).toBe(0);
    } finally {
      await c.close();
    }
  });

  it('never goes back and validates the body', async () => {
    const past = await s.control('POST', '/sandbox/clock/advance', { to: new Date(T0 - 1000).toISOString() });
    expect(past.status).toBe(400);
    expect(past.body.code).toBe('E_BADREQUEST');
    for (const body of [{}, { ms: -5 }, { duration: '5 minutes' }, { ms: 1, duration: '1s' }, { to: 'tomorrow' }]) {
      const res = await s.control('POST', '/sandbox/clock/advance', body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body.code).toBe('E_VALIDATION_ERROR');
    }
  });

  it('switches mode and speed', async () => {
    const c = await startTestServer();
    try {
      const res = await c.control('POST', '/sandbox/clock', { mode: 'realtime', speed: 3600 });
      expect(res.body.data).toMatchObject({ mode: 'realtime', speed: 3600 });
      await new Promise((r) => setTimeout(r, 50));
      const later = await c.control('GET', '/sandbox/clock');
      expect(later.body.data.now_ms).toBeGreaterThan(T0 + 60_000);
      expect((await c.control('POST', '/sandbox/clock', { speed: 0 })).status).toBe(422);
    } finally {
      await c.close();
    }
  });
});

describe('reset and admin token', () => {
  it('drops partners but the demo partner, and puts the clock back', async () => {
    const c = await startTestServer();
    try {
      const p = await c.createPartner();
      await c.control('POST', '/sandbox/clock/advance', { duration: '1h' });
      const res = await c.control('POST', '/sandbox/reset');
      expect(res.status).toBe(200);
      expect(res.body.data.clock.now_ms).toBe(T0);
      expect((await c.control('GET', `/sandbox/partners/${p.clientId}`)).status).toBe(404);
      expect((await c.control('GET', `/sandbox/partners/${c.demo.clientId}`)).status).toBe(200);
      expect((await c.signed('GET', '/v1/networks')).status).toBe(200);
      // same seed, same sequence: the first partner after a reset gets the same client id
      const again = await c.createPartner();
      expect(again.clientId).toBe(p.clientId);
    } finally {
      await c.close();
    }
  });

  it('requires the admin token on /sandbox when set; partner keys never work there, nor the token on /v1', async () => {
    const c = await startTestServer({ adminToken: 'let-me-in' });
    try {
      expect((await c.control('GET', '/sandbox/clock')).status).toBe(401);
      expect((await c.control('GET', '/sandbox/clock', undefined, { authorization: 'Bearer wrong' })).status).toBe(401);
      expect((await c.control('GET', '/sandbox/clock', undefined, { authorization: `Bearer ${c.demo.keys.test.secret_key}` })).status).toBe(
        401,
      );
      expect((await c.control('GET', '/sandbox/clock', undefined, { authorization: 'Bearer let-me-in' })).status).toBe(200);
      const v1 = await c.request('GET', '/v1/networks', {
        headers: { authorization: 'Bearer let-me-in', 'svc-client-id': c.demo.clientId },
      });
      expect(v1.status).toBe(401);
      // Each route's own auth is its guard: every control route asks for the token, the page and
      // its assets do not, and a path under /sandbox that is no route is a 404 whatever the
      // credentials (CONTRACT §8), not a 401 from a guard laid over the whole prefix.
      for (const [method, path] of [
        ['GET', '/sandbox/partners'],
        ['POST', '/sandbox/reset'],
        ['GET', '/sandbox/state'],
        ['GET', '/sandbox/events'],
      ] as const) {
        expect((await c.request(method, path)).status, `${method} ${path}`).toBe(401);
      }
      expect((await c.request('GET', '/sandbox/dashboard')).status).toBe(200);
      expect((await c.request('GET', '/sandbox/no-such-route')).status).toBe(404);
      expect((await c.request('GET', '/sandbox/no-such-route', { headers: { authorization: 'Bearer let-me-in' } })).status).toBe(404);
    } finally {
      await c.close();
    }
  });
});
