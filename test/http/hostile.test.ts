import { Agent, request as httpRequest } from 'node:http';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../src/shared/errors';
import { signedHeaders } from '../support/sign';
import { EVM_ADDRESS, accountName, customer, legs } from '../support/orders';
import { seeded } from '../support/property';
import { sendRaw as sendRawTo } from '../support/raw-socket';
import { startReceiver, type Receiver } from '../support/receiver';
import { startTestServer, type TestServer } from '../support/server';

/**
 * The hostile run of the hardening issue, in CI: 10,000 requests (fixed seed) mixing valid
 * signed calls of every /v1 and /sandbox route with mutated ones (bodies, headers, paths,
 * framing). No answer may be a 5xx or leave the envelope, and afterwards every stored order
 * still reads back and lists.
 */
const RUNS = 10_000;

let s: TestServer;
let receiver: Receiver;
let agent: Agent;
let recipientOfframp: Record<string, string>;
/** References the run has seen, so later requests address real orders. */
const references: string[] = [];
let seen5xx: string[] = [];
/** The state right after setup: PUT back at random (CONTRACT §13), mutated or whole. */
let earlyState: unknown;

beforeAll(async () => {
  receiver = await startReceiver();
  let n = 0;
  receiver.behave(() => (['ok', '500', 'ok', 'reset'] as const)[n++ % 4]!);
  s = await startTestServer({ webhookTimeoutMs: 500 });
  agent = new Agent({ keepAlive: true, maxSockets: 4 });
  await s.control('PATCH', `/sandbox/partners/${s.demo.clientId}`, { webhook_url: receiver.url });
  recipientOfframp = { institution_code: '058', account_number: '0123456789', account_name: await accountName(s, '058', '0123456789') };
  earlyState = (await s.control('GET', '/sandbox/state')).body.data;
});
afterAll(async () => {
  agent.destroy();
  await s.close();
  await receiver.close();
});

interface Req {
  method: string;
  path: string;
  body?: string;
  headers: Record<string, string>;
}

interface Answer {
  status: number;
  contentType: string | null;
  text: string;
}

function send(r: Req): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const headers = { ...r.headers };
    if (r.body !== undefined) headers['content-length'] = String(Buffer.byteLength(r.body));
    const req = httpRequest(s.url + r.path, { method: r.method, headers, agent }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode!, contentType: res.headers['content-type'] ?? null, text }));
    });
    req.on('error', reject);
    req.end(r.body);
  });
}

/** Raw bytes on a fresh socket; resolves with what came back (possibly nothing). */
const sendRaw = (bytes: string) => sendRawTo(s.url, bytes);

function expectEnvelope(where: string, status: number, text: string, method: string) {
  // An injected fault (CONTRACT §12) answers 5xx on purpose, marked E_SANDBOX_FAULT: not a defect.
  const injected = status >= 500 && text.includes('"code":"E_SANDBOX_FAULT"');
  if (status >= 500 && !injected) seen5xx.push(`${where} -> ${status} ${text.slice(0, 200)}`);
  if (!injected) expect(status, where).toBeLessThan(500);
  if (method === 'HEAD' || status === 204 || (method === 'OPTIONS' && status === 200)) return;
  if (status === 200 && text.startsWith('<!doctype html>')) return; // the dashboard
  if (status === 302 && text.startsWith('Redirecting to /sandbox/dashboard')) return; // GET / (CONTRACT §15)
  let body: any;
  try {
    body = JSON.parse(text);
  } catch {
    throw new Error(`${where}: ${status} answered with a body that is not JSON: ${text.slice(0, 120)}`);
  }
  // The exports answer a document of their own format, not the envelope (CONTRACT §19).
  if (status === 200 && where.includes('/sandbox/requests.har')) return void expect(body.log?.version, where).toBe('1.2');
  if (status === 200 && where.includes('/sandbox/postman.json')) return void expect(body.info?.schema, where).toMatch(/v2\.1/);
  if (status < 400) {
    expect(body.status, where).toBe(true);
    expect('data' in body, where).toBe(true);
  } else if (body.status === 'failed') {
    expect(body.data, where).toBeNull();
  } else {
    expect(Object.keys(body).sort(), where).toEqual(['code', 'message', 'status']);
    expect(ERROR_CODES, where).toContain(body.code);
  }
}

// ---- what a valid request of each route looks like ------------------------------------------

const ref = () => references[Math.floor(references.length / 2)] ?? 'ORD_NONE';
const lastRef = () => references.at(-1) ?? 'ORD_NONE';
type Route = { method: string; path: () => string; body?: () => unknown; v1?: 'public' | 'secret' };
const ROUTES: Route[] = [
  { method: 'GET', path: () => '/v1/networks', v1: 'public' },
  { method: 'GET', path: () => '/v1/networks/base-sepolia', v1: 'secret' },
  { method: 'GET', path: () => '/v1/networks/base-sepolia/crypto-currencies', v1: 'public' },
  { method: 'GET', path: () => '/v1/crypto-currencies', v1: 'secret' },
  { method: 'GET', path: () => '/v1/crypto-currencies/USDT', v1: 'public' },
  { method: 'GET', path: () => '/v1/crypto-currencies/USDT/networks', v1: 'secret' },
  { method: 'GET', path: () => '/v1/fiat-currencies', v1: 'public' },
  { method: 'GET', path: () => '/v1/institutions?fiat=NGN', v1: 'secret' },
  { method: 'GET', path: () => '/v1/account-lookup?account_number=0123456789&bank_code=058', v1: 'public' },
  { method: 'GET', path: () => '/v1/market-rates/NGN_USDT', v1: 'secret' },
  { method: 'GET', path: () => '/v1/exchange-rate?from=NGN&to=USDT', v1: 'public' },
  { method: 'GET', path: () => '/v1/health' },
  { method: 'GET', path: () => '/health' },
  {
    method: 'POST',
    path: () => '/v1/orders/quote',
    body: () => ({ from: { currency: 'NGN', amount: 25_000 }, to: legs.onramp.to }),
    v1: 'secret',
  },
  {
    method: 'POST',
    path: () => '/v1/orders',
    body: () => ({ ...legs.onramp, recipient: { address: EVM_ADDRESS }, customer, metadata: { run: references.length } }),
    v1: 'secret',
  },
  {
    method: 'POST',
    path: () => '/v1/orders',
    body: () => ({ ...legs.offramp, recipient: recipientOfframp, customer, merchant_reference: `m-${references.length % 50}` }),
    v1: 'secret',
  },
  { method: 'POST', path: () => '/v1/orders', body: () => ({ ...legs.swap, recipient: { address: EVM_ADDRESS }, customer }), v1: 'secret' },
  { method: 'GET', path: () => '/v1/orders?per_page=5&page=1', v1: 'secret' },
  { method: 'GET', path: () => `/v1/orders/${ref()}?include=payout,timeline`, v1: 'secret' },
  { method: 'PATCH', path: () => `/v1/orders/${lastRef()}/cancel`, body: () => ({ reason: 'fuzz' }), v1: 'secret' },
  { method: 'POST', path: () => `/v1/orders/${ref()}/fulfill`, body: () => ({ tx_hash: `0x${'ab'.repeat(32)}` }), v1: 'secret' },
  { method: 'POST', path: () => '/sandbox/partners', body: () => ({ name: 'Fuzz', webhook_url: receiver.url }) },
  { method: 'GET', path: () => `/sandbox/partners/${s.demo.clientId}` },
  {
    method: 'PATCH',
    path: () => `/sandbox/partners/${s.demo.clientId}`,
    body: () => ({ webhook_url: receiver.url, kyb_status: 'approved' }),
  },
  { method: 'POST', path: () => '/sandbox/partners/ptr_throwaway/keys', body: () => ({ environment: 'test' }) },
  { method: 'GET', path: () => '/sandbox/clock' },
  { method: 'POST', path: () => '/sandbox/clock', body: () => ({ mode: 'manual' }) },
  { method: 'POST', path: () => '/sandbox/clock/advance', body: () => ({ duration: '7m' }) },
  { method: 'GET', path: () => `/sandbox/orders/${ref()}` },
  { method: 'POST', path: () => `/sandbox/orders/${lastRef()}/payin`, body: () => ({}) },
  { method: 'POST', path: () => `/sandbox/orders/${ref()}/payout`, body: () => ({ outcome: 'success' }) },
  { method: 'POST', path: () => `/sandbox/orders/${lastRef()}/expire`, body: () => ({}) },
  { method: 'POST', path: () => `/sandbox/orders/${ref()}/simulate`, body: () => ({ status: 'completed', reason: 'fuzz' }) },
  { method: 'GET', path: () => '/sandbox/requests.har?limit=5' },
  { method: 'GET', path: () => '/sandbox/webhooks/vectors' },
  { method: 'POST', path: () => '/sandbox/listen/attempts/dlv_none.1', body: () => ({ status: 200, body: 'ok', duration_ms: 3 }) },
  { method: 'GET', path: () => `/sandbox/postman.json?client_id=${s.demo.clientId}&environment=test` },
  { method: 'GET', path: () => '/sandbox/webhooks/deliveries?per_page=5' },
  { method: 'POST', path: () => '/sandbox/webhooks/deliveries/dlv_none/retry', body: () => ({}) },
  {
    method: 'POST',
    path: () => '/sandbox/webhooks/send',
    body: () => ({ client_id: s.demo.clientId, event: 'order.created', order: ref() }),
  },
  { method: 'GET', path: () => '/sandbox/dashboard' },
  { method: 'GET', path: () => '/sandbox/orders?per_page=5&status=completed&type=onramp' },
  { method: 'POST', path: () => '/sandbox/orders', body: () => ({ client_id: s.demo.clientId, environment: 'test', type: 'swap' }) },
  { method: 'GET', path: () => `/sandbox/orders/${ref()}/lifecycle` },
  { method: 'POST', path: () => `/sandbox/orders/${lastRef()}/cancel`, body: () => ({ reason: 'fuzz' }) },
  { method: 'POST', path: () => `/sandbox/orders/${ref()}/fulfil`, body: () => ({ tx_hash: `0x${'cd'.repeat(32)}` }) },
  { method: 'GET', path: () => '/sandbox/requests?limit=5&status=401' },
  { method: 'GET', path: () => '/sandbox/requests/req_1' },
  { method: 'DELETE', path: () => '/sandbox/requests' },
  // Faults that end after one use, on a path the run barely calls: the rest of the run stays clean.
  { method: 'POST', path: () => '/sandbox/faults', body: () => ({ path: '/v1/market-rates/*', error: { status: 503 }, times: 1 }) },
  { method: 'GET', path: () => '/sandbox/faults' },
  { method: 'DELETE', path: () => '/sandbox/faults/flt_1' },
  { method: 'DELETE', path: () => '/sandbox/faults' },
  { method: 'GET', path: () => '/sandbox/state' },
  { method: 'PUT', path: () => '/sandbox/state', body: () => earlyState },
  { method: 'POST', path: () => '/sandbox/state/save', body: () => ({}) },
];

// ---- mutations -------------------------------------------------------------------------------

const deep = (n: number) => `${'{"a":'.repeat(n)}1${'}'.repeat(n)}`;
/** Stands for a value nested this deep, spliced into the body as text. */
const DEEP = '__deep_value__';
const junk = fc.oneof(
  fc.anything({ maxDepth: 2 }),
  fc.constantFrom(null, '', -1, 0, 1e308, 2.385, 0.1 + 0.2, 'x'.repeat(300), [], {}, true),
  fc.constant(DEEP),
);
type Mutation =
  | { kind: 'none' }
  | { kind: 'field'; key: number; value: unknown }
  | { kind: 'drop'; key: string }
  | { kind: 'rawBody'; text: string }
  | { kind: 'header'; name: string; value: string | null }
  | { kind: 'resign' }
  | { kind: 'path'; suffix: string }
  | { kind: 'method'; method: string }
  | { kind: 'framing'; bytes: (host: string) => string };

const framings: Array<(host: string) => string> = [
  () => 'GARBAGE\r\n\r\n',
  () => 'GET / HTTP/9.9\r\n\r\n',
  (h) => `POST /v1/orders HTTP/1.1\r\nHost: ${h}\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nabc\r\n0\r\n\r\n`,
  (h) => `POST /v1/orders HTTP/1.1\r\nHost: ${h}\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\nabcd`,
  (h) => `POST /v1/orders HTTP/1.1\r\nHost: ${h}\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n`,
  (h) => `GET /${'a'.repeat(20_000)} HTTP/1.1\r\nHost: ${h}\r\n\r\n`,
  (h) => `GET /v1/networks HTTP/1.1\r\nHost: ${h}\r\nX-Big: ${'b'.repeat(20_000)}\r\n\r\n`,
  (h) => `GET /v1/networks HTTP/1.1\r\nHost: ${h}\r\nBad Header Name: x\r\n\r\n`,
  (h) => `POST /sandbox/clock/advance HTTP/1.1\r\nHost: ${h}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"dur`,
];

const mutationArb: fc.Arbitrary<Mutation> = fc.oneof(
  { weight: 8, arbitrary: fc.constant<Mutation>({ kind: 'none' }) },
  // One of the route's own fields (by index) replaced with junk.
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('field' as const), key: fc.nat(), value: junk }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('drop' as const),
      key: fc.constantFrom('from', 'to', 'recipient', 'customer', 'outcome', 'duration', 'client_id', 'event', 'environment'),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('rawBody' as const),
      text: fc.oneof(
        fc.string({ maxLength: 40 }),
        fc.constantFrom(
          '{',
          '[1,',
          'null',
          '12',
          '"s"',
          '\u0000',
          deep(2000),
          `[${deep(70)}]`,
          `{"metadata":${deep(65)}}`,
          '{"a":1}'.padEnd(2_000, ' '),
        ),
      ),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('header' as const),
      name: fc.constantFrom(
        'content-type',
        'authorization',
        'svc-client-id',
        'svc-timestamp',
        'svc-signature',
        'x-request-id',
        'accept',
        'content-encoding',
      ),
      value: fc.oneof(
        fc.constant(null),
        fc.constantFrom('text/plain', 'application/json; charset=latin1', 'Bearer x', 'sha256=00', '1', 'gzip', 'x'.repeat(100), '../../'),
        fc.string({ unit: 'grapheme-ascii', maxLength: 30 }).filter((v) => /^[\x20-\x7e]*$/.test(v)),
      ),
    }),
  },
  { weight: 1, arbitrary: fc.constant<Mutation>({ kind: 'resign' }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('path' as const),
      suffix: fc.constantFrom(
        '/',
        '//x',
        '/%',
        '/%E0%A4%A',
        '?a=%ZZ',
        '?include=x',
        '?page=-1&per_page=1000',
        '/..',
        '%00',
        '?status=nope',
        '/extra/segments',
      ),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('method' as const),
      method: fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD'),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('framing' as const), bytes: fc.constantFrom(...framings) }) },
);

function build(route: Route, m: Mutation, env: 'test' | 'live'): Req {
  let method = route.method;
  let path = route.path();
  let body: string | undefined;
  const value = route.body?.() as Record<string, unknown> | undefined;
  if (value !== undefined) {
    const v: Record<string, unknown> = { ...value };
    const keys = Object.keys(v);
    if (m.kind === 'field') v[keys.length > 0 ? keys[m.key % keys.length]! : 'x'] = m.value;
    if (m.kind === 'drop') delete v[m.key];
    body = (JSON.stringify(v) ?? '{}').replace(`"${DEEP}"`, deep(5000));
  }
  if (m.kind === 'rawBody') body = m.text;
  if (m.kind === 'path') path += m.suffix;
  if (m.kind === 'method') method = m.method;
  if (method === 'GET' || method === 'HEAD') body = undefined;
  let headers: Record<string, string> = {};
  const keys = s.demo.keys[env];
  if (route.v1 === 'public') headers = { 'svc-client-id': s.demo.clientId, authorization: `Bearer ${keys.public_key}` };
  if (route.v1 === 'secret') {
    headers = signedHeaders({
      clientId: s.demo.clientId,
      keys,
      method,
      path,
      body,
      signedBody: m.kind === 'resign' ? `${body ?? ''} ` : undefined,
    });
  }
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (m.kind === 'header') {
    if (m.value === null) delete headers[m.name];
    else headers[m.name] = m.value;
  }
  return { method, path, body, headers };
}

describe('a hostile run (hardening issue: fuzz of every route)', () => {
  it(`answers ${RUNS} valid and mutated requests without a 5xx, always in the envelope`, { timeout: 300_000 }, async () => {
    seen5xx = [];
    const host = new URL(s.url).host;
    const checker = await s.openapi();
    await fc.assert(
      fc.asyncProperty(
        fc.nat(ROUTES.length - 1),
        mutationArb,
        fc.constantFrom<'test' | 'live'>('test', 'test', 'live'),
        async (i, m, env) => {
          const route = ROUTES[i]!;
          if (m.kind === 'framing') {
            const answer = await sendRaw(m.bytes(host));
            if (answer === '') return; // the socket did not allow an answer
            const statusLine = /^HTTP\/1\.1 (\d{3})/.exec(answer);
            expect(statusLine, answer.slice(0, 80)).not.toBeNull();
            const status = Number(statusLine![1]);
            const text = answer.slice(answer.indexOf('\r\n\r\n') + 4);
            expectEnvelope(`framing ${answer.slice(0, 40)}`, status, text, 'RAW');
            return;
          }
          const r = build(route, m, env);
          const res = await send(r);
          expectEnvelope(`${r.method} ${r.path} (${m.kind})`, res.status, res.text, r.method);
          const sent = new URL(s.url + r.path); // what went on the wire: the URL parser folds /.. away
          checker.check(r.method, sent.pathname + sent.search, res.status, res.contentType, res.text); // CONTRACT §10
          if (res.status === 200 && r.method === 'POST' && r.path === '/v1/orders') references.push(JSON.parse(res.text).data.reference);
        },
      ),
      seeded({ numRuns: RUNS, endOnFailure: true }),
    );
    expect(seen5xx).toEqual([]);
    expect(references.length).toBeGreaterThan(100);

    // Afterwards every stored order reads back through /v1 and lists, for its own environment; a
    // valid create first, since the run may have ended with a reset or a restore.
    const create = ROUTES.find((r) => r.method === 'POST' && r.path() === '/v1/orders')!;
    const made = await send(build(create, { kind: 'none' }, 'test'));
    expect(made.status, made.text).toBe(200);
    const stored = [...s.sandbox.orders.store.orders.values()];
    expect(stored.length).toBeGreaterThan(0);
    for (const env of ['test', 'live'] as const) {
      const mine = stored.filter((o) => o.env === env && o.clientId === s.demo.clientId);
      const listed = new Set<string>();
      for (let page = 1; ; page++) {
        const res = await s.signed('GET', `/v1/orders?per_page=100&page=${page}`, undefined, { env });
        expect(res.status).toBe(200);
        for (const o of res.body.data) listed.add(o.reference);
        if (page >= res.body.meta.last_page) break;
      }
      expect(listed.size).toBe(mine.length);
      for (const o of mine) {
        expect(listed.has(o.reference)).toBe(true);
        const res = await s.signed('GET', `/v1/orders/${o.reference}?include=payout,timeline`, undefined, { env });
        expect(res.status, o.reference).toBe(200);
        expect(res.body.data.status).toBe(o.status);
      }
    }
  });
});
