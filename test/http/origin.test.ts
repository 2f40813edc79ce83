/**
 * CONTRACT §4: /sandbox refuses what a web page elsewhere could send: a foreign `Host` (DNS
 * rebinding, without an admin token), a foreign `Origin` or `Sec-Fetch-Site: cross-site` or `same-site`
 * (cross-site requests). Node's fetch will not send a forged Host, so those requests go
 * through node:http.
 */
import { request, type IncomingHttpHeaders } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exposureWarning, isLoopbackHost, ownHostNames } from '../../src/http/edge/admin';
import { createOrder } from '../support/orders';
import { startTestServer, type TestServer } from '../support/server';

interface RawReply {
  status: number;
  headers: IncomingHttpHeaders;
  body: any;
  text: string;
}

/** One request to `url`'s port on 127.0.0.1 with exactly these headers (a `host` one replaces the real Host). */
function raw(url: string, method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<RawReply> {
  const { port } = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method,
        path,
        agent: false,
        headers: { ...(body === undefined ? {} : { 'content-length': String(Buffer.byteLength(body)) }), ...headers },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk) => (text += chunk));
        res.on('end', () => {
          let json: any;
          try {
            json = JSON.parse(text);
          } catch {
            json = undefined;
          }
          resolve({ status: res.statusCode!, headers: res.headers, body: json, text });
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** A 403 `E_FORBIDDEN` in the error envelope whose message matches `message`. */
function expectForbidden(res: RawReply, message: RegExp) {
  expect(res.status, res.text).toBe(403);
  expect(res.body).toMatchObject({ status: false, code: 'E_FORBIDDEN' });
  expect(res.body.message).toMatch(message);
}

let s: TestServer;
let own: string; // the Host the sandbox is reached by: 127.0.0.1:<port>
beforeAll(async () => {
  s = await startTestServer();
  own = new URL(s.url).host;
});
afterAll(() => s.close());

const keyMaterial = () => [
  s.demo.keys.test.secret_key,
  s.demo.keys.test.encryption_key,
  s.demo.keys.live.secret_key,
  s.demo.keys.live.encryption_key,
];

describe('cross-origin requests to /sandbox (CONTRACT §4)', () => {
  it('refuses a cross-origin POST /sandbox/reset (a page on another localhost port) and resets nothing', async () => {
    const order = await createOrder(s, 'onramp');
    const partner = await s.createPartner();
    const res = await raw(s.url, 'POST', '/sandbox/reset', { origin: 'http://127.0.0.1:9999' });
    expectForbidden(res, /Origin http:\/\/127\.0\.0\.1:9999 is not this sandbox's/);
    expect(res.body.message).toContain(`http://${own}/sandbox/dashboard`);
    expect((await s.signed('GET', `/v1/orders/${order.reference}`)).status).toBe(200);
    expect((await s.control('GET', `/sandbox/partners/${partner.clientId}`)).status).toBe(200);
  });

  it('refuses Sec-Fetch-Site: cross-site, whatever the method', async () => {
    const order = await createOrder(s, 'onramp');
    expectForbidden(await raw(s.url, 'POST', '/sandbox/reset', { 'sec-fetch-site': 'cross-site' }), /Sec-Fetch-Site: cross-site/);
    expectForbidden(await raw(s.url, 'GET', '/sandbox/state', { 'sec-fetch-site': 'Cross-Site' }), /Sec-Fetch-Site: cross-site/);
    expect((await s.signed('GET', `/v1/orders/${order.reference}`)).status).toBe(200);
  });

  it('refuses Sec-Fetch-Site: same-site (a page on another port of this host), a GET in a frame included', async () => {
    // A page served on 127.0.0.1:3000 framed GET /sandbox/listen: a GET sends no Origin, and the
    // hidden listener took every delivery of the partner while the page was open.
    const framed = { 'sec-fetch-site': 'same-site', 'sec-fetch-mode': 'navigate', 'sec-fetch-dest': 'iframe' };
    const listen = await raw(s.url, 'GET', `/sandbox/listen?client_id=${s.demo.clientId}`, framed);
    expectForbidden(listen, /^Request from another page refused \(Sec-Fetch-Site: same-site\)/);
    expectForbidden(await raw(s.url, 'GET', '/sandbox/clock', { 'sec-fetch-site': 'same-site' }), /Sec-Fetch-Site: same-site/);
    expectForbidden(await raw(s.url, 'POST', '/sandbox/reset', { 'sec-fetch-site': 'Same-Site' }), /Sec-Fetch-Site: same-site/);
    // the page itself opens from a link on that page, in a tab, and not in a frame
    const link = { 'sec-fetch-site': 'same-site', 'sec-fetch-mode': 'navigate', 'sec-fetch-dest': 'document' };
    expect((await raw(s.url, 'GET', '/sandbox/dashboard', link)).status).toBe(200);
    expectForbidden(await raw(s.url, 'GET', '/sandbox/dashboard', framed), /Sec-Fetch-Site: same-site/);
  });

  it('tells a browser no page may frame the dashboard (clickjacking)', async () => {
    for (const path of ['/sandbox/dashboard', '/sandbox/dashboard/assets/app.js']) {
      const res = await raw(s.url, 'GET', path);
      expect(res.status).toBe(200);
      expect(res.headers['content-security-policy']).toBe("frame-ancestors 'none'");
      expect(res.headers['x-frame-options']).toBe('DENY');
    }
  });

  it('refuses form-encoded and text/plain (no-cors) cross-origin POSTs before reading their body', async () => {
    const order = await createOrder(s, 'onramp');
    const before = (await s.control('GET', '/sandbox/partners')).body.meta;
    const form = await raw(
      s.url,
      'POST',
      '/sandbox/partners',
      { origin: 'http://localhost:3000', 'content-type': 'application/x-www-form-urlencoded' },
      'name=evil',
    );
    expectForbidden(form, /Cross-origin request refused/);
    const payin = await raw(
      s.url,
      'POST',
      `/sandbox/orders/${order.reference}/payin`,
      { origin: 'http://evil.example', 'content-type': 'text/plain' },
      '{}',
    );
    expectForbidden(payin, /Origin http:\/\/evil\.example/);
    expect((await s.control('GET', '/sandbox/partners')).body.meta).toEqual(before);
    expect((await s.signed('GET', `/v1/orders/${order.reference}`)).body.data.status).toBe(order.status);
  });

  it('refuses Origin: null, an https Origin and an Origin on the right host but another port', async () => {
    expectForbidden(await raw(s.url, 'POST', '/sandbox/clock/advance', { origin: 'null' }), /Origin null/);
    expectForbidden(await raw(s.url, 'GET', '/sandbox/clock', { origin: `https://${own}` }), /is not this sandbox's/);
    const port = Number(new URL(s.url).port);
    expectForbidden(
      await raw(s.url, 'GET', '/sandbox/clock', { origin: `http://127.0.0.1:${port === 1 ? 2 : port - 1}` }),
      /is not this sandbox's/,
    );
  });

  it("answers the sandbox's own page: Origin equal to the Host, Sec-Fetch-Site same-origin", async () => {
    const headers = { origin: s.url, 'sec-fetch-site': 'same-origin', 'content-type': 'application/json' };
    const advanced = await s.request('POST', '/sandbox/clock/advance', { headers, body: JSON.stringify({ duration: '1s' }) });
    expect(advanced.status, advanced.text).toBe(200);
    // another own name, as the browser sends it: Host and Origin agree (case aside)
    const port = new URL(s.url).port;
    const byName = await raw(s.url, 'GET', '/sandbox/clock', {
      host: `localhost:${port}`,
      origin: `http://LOCALHOST:${port}`,
      'sec-fetch-site': 'same-origin',
    });
    expect(byName.status, byName.text).toBe(200);
    // a typed address or a bookmark
    const none = await raw(s.url, 'GET', '/sandbox/dashboard', { 'sec-fetch-site': 'none', 'sec-fetch-mode': 'navigate' });
    expect(none.status).toBe(200);
  });

  it('answers callers that send no Origin (curl, the CLI, tests) as before', async () => {
    const order = await createOrder(s, 'onramp');
    const reset = await s.control('POST', '/sandbox/reset');
    expect(reset.status).toBe(200);
    expect((await s.signed('GET', `/v1/orders/${order.reference}`)).status).toBe(404);
    const curl = await raw(s.url, 'GET', '/sandbox/clock', { 'user-agent': 'curl/8.5.0', accept: '*/*' });
    expect(curl.status).toBe(200);
  });

  it('leaves /v1, /health and /openapi.json alone, whatever the Origin or Host', async () => {
    const foreign = { origin: 'http://evil.example', 'sec-fetch-site': 'cross-site' };
    expect((await s.signed('GET', '/v1/networks', undefined, { headers: foreign })).status).toBe(200);
    expect((await raw(s.url, 'GET', '/health', { ...foreign, host: 'evil.example' })).status).toBe(200);
    expect((await raw(s.url, 'GET', '/openapi.json', { ...foreign, host: 'evil.example' })).status).toBe(200);
  });
});

describe('a foreign Host on /sandbox (DNS rebinding, CONTRACT §4)', () => {
  it('refuses GET /sandbox/state with Host evil.example, with no key material in the answer', async () => {
    const res = await raw(s.url, 'GET', '/sandbox/state', { host: 'evil.example' });
    expectForbidden(res, /^Host evil\.example is not this sandbox's .*--allowed-host evil\.example/);
    for (const key of keyMaterial()) expect(res.text).not.toContain(key);
    expect(res.text).not.toMatch(/(?:sk|enc)_(?:test|live)_/);
    const withPort = await raw(s.url, 'GET', `/sandbox/partners/${s.demo.clientId}`, { host: `EVIL.example:${new URL(s.url).port}` });
    expectForbidden(withPort, /^Host evil\.example is not/);
  });

  it('refuses the dashboard page, its assets and the event stream on a foreign Host', async () => {
    expect((await raw(s.url, 'GET', '/sandbox/dashboard')).status).toBe(200);
    expectForbidden(await raw(s.url, 'GET', '/sandbox/dashboard', { host: 'evil.example:4010' }), /--allowed-host evil\.example/);
    expectForbidden(await raw(s.url, 'GET', '/sandbox/dashboard/assets/app.js', { host: 'evil.example' }), /evil\.example/);
    expectForbidden(await raw(s.url, 'GET', '/sandbox/events', { host: 'evil.example', accept: 'text/event-stream' }), /evil\.example/);
  });

  it('answers its own names on any port: localhost, 127.0.0.1, [::1]', async () => {
    for (const host of ['localhost', 'LocalHost:1', '127.0.0.1:80', '[::1]', '[::1]:4010']) {
      const res = await raw(s.url, 'GET', '/sandbox/clock', { host });
      expect(res.status, `${host}: ${res.text}`).toBe(200);
    }
    expectForbidden(await raw(s.url, 'GET', '/sandbox/clock', { host: 'localhost.evil.example' }), /is not this sandbox's/);
    expectForbidden(await raw(s.url, 'GET', '/sandbox/clock', { host: '127.0.0.1.nip.io' }), /is not this sandbox's/);
  });

  it('answers an IP address as the Host (no name to rebind: --host 0.0.0.0 reached at its LAN address)', async () => {
    for (const host of ['192.168.1.5:4010', '10.0.0.2', '[fe80::1]:4010']) {
      const res = await raw(s.url, 'GET', '/sandbox/clock', { host });
      expect(res.status, `${host}: ${res.text}`).toBe(200);
    }
  });

  it('opens the dashboard page from a link on another site, and refuses anything else cross-site', async () => {
    const link = { 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'navigate', 'sec-fetch-dest': 'document' };
    expect((await raw(s.url, 'GET', '/sandbox/dashboard', link)).status).toBe(200);
    // in another site's frame: refused (and the answer says no page may frame it)
    expectForbidden(await raw(s.url, 'GET', '/sandbox/dashboard', { ...link, 'sec-fetch-dest': 'iframe' }), /Sec-Fetch-Site: cross-site/);
    expectForbidden(await raw(s.url, 'GET', '/sandbox/state', link), /Sec-Fetch-Site: cross-site/);
    expectForbidden(
      await raw(s.url, 'GET', '/sandbox/dashboard', { 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'no-cors' }),
      /Sec-Fetch-Site: cross-site/,
    );
  });

  it('answers the names given with --allowed-host (any case, any port) and still refuses others', async () => {
    const c = await startTestServer({ allowedHosts: ['sandbox.test', 'Other.Test'] });
    try {
      expect((await raw(c.url, 'GET', '/sandbox/clock', { host: 'sandbox.test:8080' })).status).toBe(200);
      expect((await raw(c.url, 'GET', '/sandbox/clock', { host: 'OTHER.test' })).status).toBe(200);
      const page = await raw(
        c.url,
        'POST',
        '/sandbox/clock/advance',
        { host: 'sandbox.test:8080', origin: 'http://sandbox.test:8080', 'content-type': 'application/json' },
        '{"duration":"1s"}',
      );
      expect(page.status, page.text).toBe(200);
      expectForbidden(
        await raw(c.url, 'GET', '/sandbox/clock', { host: 'sandbox.test.evil.example' }),
        /--allowed-host sandbox\.test\.evil\.example/,
      );
      // an allowed Host does not make another origin's page the sandbox's
      expectForbidden(await raw(c.url, 'GET', '/sandbox/clock', { host: 'sandbox.test', origin: 'http://other.test' }), /Cross-origin/);
    } finally {
      await c.close();
    }
  });

  it('with an admin token, the bearer check guards a foreign Host; a foreign Origin is still refused', async () => {
    const c = await startTestServer({ adminToken: 'tok' });
    try {
      const bearer = { authorization: 'Bearer tok' };
      expect((await raw(c.url, 'GET', '/sandbox/clock', { host: 'evil.example' })).status).toBe(401);
      expect((await raw(c.url, 'GET', '/sandbox/clock', { host: 'lan-box.example:4010', ...bearer })).status).toBe(200);
      expect(
        (await raw(c.url, 'GET', '/sandbox/clock', { host: 'lan-box.example:4010', origin: 'http://lan-box.example:4010', ...bearer }))
          .status,
      ).toBe(200);
      expectForbidden(await raw(c.url, 'GET', '/sandbox/clock', { origin: 'http://evil.example', ...bearer }), /Cross-origin/);
      expectForbidden(await raw(c.url, 'GET', '/sandbox/dashboard', { 'sec-fetch-site': 'cross-site' }), /cross-site/);
    } finally {
      await c.close();
    }
  });
});

describe('host names (CONTRACT §4)', () => {
  it("takes the --host given as the sandbox's own, unless it is a wildcard", () => {
    expect([...ownHostNames({})]).toEqual(['localhost', '127.0.0.1', '[::1]']);
    expect(ownHostNames({ host: '10.0.0.5' }).has('10.0.0.5')).toBe(true);
    expect(ownHostNames({ host: 'Box.Local' }).has('box.local')).toBe(true);
    expect(ownHostNames({ host: 'fd00::1' }).has('[fd00::1]')).toBe(true);
    expect(ownHostNames({ host: '0.0.0.0' }).size).toBe(3);
    expect(ownHostNames({ host: '::' }).size).toBe(3);
    expect(ownHostNames({ allowedHosts: ['a.test', 'B.test:99'] })).toEqual(
      new Set(['localhost', '127.0.0.1', '[::1]', 'a.test', 'b.test']),
    );
  });

  it('tells loopback listen addresses from the others, and warns only for the others without a token', () => {
    for (const host of ['127.0.0.1', '127.1.2.3', 'localhost', '::1', '[::1]', '::ffff:127.0.0.1'])
      expect(isLoopbackHost(host), host).toBe(true);
    for (const host of ['0.0.0.0', '::', '192.168.1.5', 'box.local', 'fd00::1']) expect(isLoopbackHost(host), host).toBe(false);
    expect(exposureWarning({ host: '127.0.0.1', adminToken: undefined })).toBeUndefined();
    expect(exposureWarning({ host: '0.0.0.0', adminToken: 't' })).toBeUndefined();
    expect(exposureWarning({ host: '0.0.0.0', adminToken: undefined })).toMatch(
      /anyone who can reach this port controls the sandbox .*reads every partner's keys.*--admin-token/,
    );
  });
});
