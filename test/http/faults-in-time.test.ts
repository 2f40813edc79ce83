import { connect } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { signedHeaders } from '../support/sign';
import { customer, EVM_ADDRESS, legs } from '../support/orders';
import { startTestServer, type TestServer } from '../support/server';

// CONTRACT §22: faults in time (window, skip) and the kinds reset, truncate and malformed,
// read as bytes on a raw socket, and seeded.
let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s.close());
beforeEach(async () => {
  await s.control('DELETE', '/sandbox/faults');
});

const addFault = async (body: Record<string, unknown>) => {
  const res = await s.control('POST', '/sandbox/faults', body);
  expect(res.status, res.text).toBe(200);
  return res.body.data;
};

/** What the server sent on one raw connection, and how the connection ended. */
interface RawReply {
  bytes: Buffer;
  /** The socket error's code (ECONNRESET for a reset), or undefined for a clean close. */
  error: string | undefined;
  /** The whole answer its Content-Length promised came, and the connection was still open. */
  whole: boolean;
}

/** A GET with the demo partner's public key, written as bytes on a new connection, read to its end. */
function rawGet(server: TestServer, path: string): Promise<RawReply> {
  const { port } = new URL(server.url);
  const head = [
    `GET ${path} HTTP/1.1`,
    `Host: 127.0.0.1:${port}`,
    `svc-client-id: ${server.demo.clientId}`,
    `authorization: Bearer ${server.demo.keys.test.public_key}`,
    // keep-alive: a close after the answer would be the server's ordinary behaviour, not the fault's
    'Connection: keep-alive',
    '',
    '',
  ].join('\r\n');
  return new Promise((resolve) => {
    const socket = connect(Number(port), '127.0.0.1');
    const chunks: Buffer[] = [];
    let error: string | undefined;
    let whole = false;
    socket.on('data', (c: Buffer) => {
      chunks.push(c);
      // A whole keep-alive answer leaves the connection open: the reader ends it itself.
      const bytes = Buffer.concat(chunks);
      const end = bytes.indexOf('\r\n\r\n');
      const length = /\r\ncontent-length: *(\d+)/i.exec(bytes.subarray(0, end).toString('latin1'))?.[1];
      if (end > 0 && length !== undefined && bytes.length - end - 4 >= Number(length)) {
        whole = true;
        socket.destroy();
      }
    });
    socket.on('error', (e: NodeJS.ErrnoException) => (error = e.code));
    socket.on('close', () => resolve({ bytes: Buffer.concat(chunks), error, whole }));
    socket.setTimeout(5000, () => socket.destroy(new Error('no answer in 5 s')));
    socket.write(head, 'latin1');
  });
}

/** Splits a raw HTTP/1.1 answer into status line, headers (lower-cased names) and body bytes. */
function parseRaw(bytes: Buffer) {
  const end = bytes.indexOf('\r\n\r\n');
  expect(end, `no end of head in ${JSON.stringify(bytes.toString('latin1'))}`).toBeGreaterThan(0);
  const [statusLine, ...lines] = bytes.subarray(0, end).toString('latin1').split('\r\n');
  const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
  return { statusLine, headers, body: bytes.subarray(end + 4) };
}

describe('the new fault kinds, read as bytes on a raw socket (CONTRACT §22)', () => {
  it('reset: the connection is reset once the request is read: ECONNRESET, not one byte of an answer', async () => {
    const fault = await addFault({ path: '/v1/networks', reset: 1, times: 1 });
    const reply = await rawGet(s, '/v1/networks');
    expect(reply.bytes.length).toBe(0);
    expect(reply.error).toBe('ECONNRESET');
    const [entry] = (await s.control('GET', '/sandbox/requests?path=/v1/networks')).body.data;
    expect(entry).toMatchObject({ status: 0, fault: fault.id, message: 'connection reset without an answer (injected fault)' });
    // times: 1, so the next one is answered
    expect((await s.pub('GET', '/v1/networks')).status).toBe(200);
  });

  it('truncate: the status line and the Content-Length of the whole body, exactly N body bytes, then the connection closes', async () => {
    const whole = await s.pub('GET', '/v1/networks');
    const length = Buffer.byteLength(whole.text);
    expect(length).toBeGreaterThan(40);
    const fault = await addFault({ path: '/v1/networks', truncate: 25 });
    const reply = await rawGet(s, '/v1/networks');
    expect(reply).toMatchObject({ error: undefined, whole: false });
    const { statusLine, headers, body } = parseRaw(reply.bytes);
    expect(statusLine).toBe('HTTP/1.1 200 OK');
    expect(headers['content-length']).toBe(String(length));
    expect(headers['content-type']).toMatch(/^application\/json/);
    expect(body.length).toBe(25);
    expect(body.toString()).toBe(whole.text.slice(0, 25));
    const [entry] = (await s.control('GET', '/sandbox/requests?path=/v1/networks')).body.data;
    expect(entry).toMatchObject({
      status: 200,
      fault: fault.id,
      message: `answer cut after 25 of ${length} bytes, then the connection closed (injected fault)`,
    });
  });

  it('truncate: 0 sends the head alone; with an injected error, the error envelope is what is cut', async () => {
    await addFault({ path: '/v1/networks', truncate: 0, times: 1 });
    const head = parseRaw((await rawGet(s, '/v1/networks')).bytes);
    expect(head.statusLine).toBe('HTTP/1.1 200 OK');
    expect(Number(head.headers['content-length'])).toBeGreaterThan(0);
    expect(head.body.length).toBe(0);
    const fault = await addFault({ path: '/v1/networks', error: { status: 503 }, truncate: 12 });
    const cut = parseRaw((await rawGet(s, '/v1/networks')).bytes);
    const envelope = JSON.stringify({ status: false, code: 'E_SANDBOX_FAULT', message: `injected fault ${fault.id}` });
    expect(cut.statusLine).toBe('HTTP/1.1 503 Service Unavailable');
    expect(cut.headers['content-length']).toBe(String(Buffer.byteLength(envelope)));
    expect(cut.body.toString()).toBe(envelope.slice(0, 12));
    const [entry] = (await s.control('GET', '/sandbox/requests?path=/v1/networks')).body.data;
    expect(entry).toMatchObject({
      status: 503,
      fault: fault.id,
      code: 'E_SANDBOX_FAULT',
      message: `answer cut after 12 of ${Buffer.byteLength(envelope)} bytes, then the connection closed (injected fault)`,
    });
  });

  it('malformed: a 200 under a JSON content-type whose body is not JSON', async () => {
    const fault = await addFault({ path: '/v1/networks', malformed: 1, times: 1 });
    const reply = await rawGet(s, '/v1/networks');
    expect(reply.whole).toBe(true);
    const { statusLine, headers, body } = parseRaw(reply.bytes);
    expect(statusLine).toBe('HTTP/1.1 200 OK');
    expect(headers['content-type']).toBe('application/json; charset=utf-8');
    expect(Number(headers['content-length'])).toBe(body.length);
    expect(body.toString()).toBe(`<html><body><h1>200 OK</h1><p>injected fault ${fault.id}: this answer is not JSON</p></body></html>\n`);
    expect(() => JSON.parse(body.toString())).toThrow();
    const [entry] = (await s.control('GET', '/sandbox/requests?path=/v1/networks')).body.data;
    expect(entry).toMatchObject({ status: 200, fault: fault.id });
  });
});

describe('faults in virtual time (CONTRACT §22)', () => {
  it('a window opens and closes on clock advances, without a wall-clock wait', async () => {
    const fault = await addFault({ path: '/v1/networks', error: { status: 503 }, window: { from: '5m', to: '10m' } });
    const now = Date.parse((await s.control('GET', '/sandbox/clock')).body.data.now);
    expect(fault.window).toEqual({ from: new Date(now + 5 * 60_000).toISOString(), to: new Date(now + 10 * 60_000).toISOString() });
    const status = async () => (await s.pub('GET', '/v1/networks')).status;
    const advance = async (duration: string) => expect((await s.control('POST', '/sandbox/clock/advance', { duration })).status).toBe(200);
    expect(await status()).toBe(200);
    await advance('4m59s');
    expect(await status()).toBe(200);
    await advance('1s'); // from is inclusive
    expect(await status()).toBe(503);
    await advance('4m59s');
    expect(await status()).toBe(503);
    await advance('1s'); // to is exclusive
    expect(await status()).toBe(200);
    // still listed (it never applies again), with what it did
    expect((await s.control('GET', '/sandbox/faults')).body.data).toEqual([expect.objectContaining({ id: fault.id, applied: 2 })]);
  });

  it('a window given as instants, and one with only an end', async () => {
    const now = Date.parse((await s.control('GET', '/sandbox/clock')).body.data.now);
    const from = new Date(now + 60_000).toISOString();
    await addFault({ path: '/v1/networks', error: { status: 502 }, window: { from } });
    await addFault({ path: '/v1/fiat-currencies', error: { status: 504 }, window: { to: '1m' } });
    expect((await s.pub('GET', '/v1/networks')).status).toBe(200);
    expect((await s.pub('GET', '/v1/fiat-currencies')).status).toBe(504);
    await s.control('POST', '/sandbox/clock/advance', { duration: '1m' });
    expect((await s.pub('GET', '/v1/networks')).status).toBe(502);
    expect((await s.pub('GET', '/v1/fiat-currencies')).status).toBe(200);
  });

  it('a window from before 1970 (year 0000 at +01:00) is open from 1970, and the state saved with it loads again', async () => {
    // It was stored as year -1 ("-000001-12-31T23:00:00.000Z"): the answers failed the document's
    // date-time, and PUT /sandbox/state (or a --state restart) refused the sandbox's own state.
    const fault = await addFault({ path: '/v1/networks', error: { status: 503 }, window: { from: '0000-01-01T00:00:00+01:00', to: '1h' } });
    expect(fault.window.from).toBe('1970-01-01T00:00:00.000Z');
    expect((await s.pub('GET', '/v1/networks')).status).toBe(503);
    const state = await s.control('GET', '/sandbox/state');
    const put = await s.control('PUT', '/sandbox/state', state.body.data);
    expect(put.status, put.text).toBe(200);
    expect((await s.control('GET', '/sandbox/faults')).body.data[0].window.from).toBe('1970-01-01T00:00:00.000Z');
  });

  it('skip lets the first N matching requests through, then times counts', async () => {
    const fault = await addFault({ path: '/v1/networks', error: { status: 500 }, skip: 2, times: 1 });
    expect(fault).toMatchObject({ skip: 2, skipped: 0, remaining: 1 });
    expect((await s.pub('GET', '/v1/fiat-currencies')).status).toBe(200); // not matching: not counted
    expect((await s.pub('GET', '/v1/networks')).status).toBe(200);
    expect((await s.control('GET', '/sandbox/faults')).body.data[0]).toMatchObject({ skipped: 1, applied: 0 });
    expect((await s.pub('GET', '/v1/networks')).status).toBe(200);
    expect((await s.pub('GET', '/v1/networks')).status).toBe(500);
    expect((await s.pub('GET', '/v1/networks')).status).toBe(200);
    expect((await s.control('GET', '/sandbox/faults')).body.data).toEqual([]);
  });

  it('skip counts only requests inside the window', async () => {
    await addFault({ path: '/v1/networks', error: { status: 503 }, window: { from: '1m' }, skip: 1 });
    expect((await s.pub('GET', '/v1/networks')).status).toBe(200);
    await s.control('POST', '/sandbox/clock/advance', { duration: '1m' });
    expect((await s.pub('GET', '/v1/networks')).status).toBe(200); // the one skipped
    expect((await s.pub('GET', '/v1/networks')).status).toBe(503);
  });
});

describe('phase and state with the new fields', () => {
  it('reset with phase "after": the order is created, the partner sees ECONNRESET', async () => {
    await addFault({ method: 'POST', path: '/v1/orders', reset: 1, phase: 'after', times: 1 });
    const before = (await s.control('GET', '/sandbox/orders?per_page=1')).body.meta.total;
    const body = JSON.stringify({ ...legs.onramp, recipient: { address: EVM_ADDRESS }, customer, merchant_reference: 'reset-after' });
    const headers = {
      ...signedHeaders({ clientId: s.demo.clientId, keys: s.demo.keys.test, method: 'POST', path: '/v1/orders', body }),
      'content-type': 'application/json',
    };
    await expect(fetch(`${s.url}/v1/orders`, { method: 'POST', headers, body })).rejects.toMatchObject({ cause: { code: 'ECONNRESET' } });
    expect((await s.control('GET', '/sandbox/orders?per_page=1')).body.meta.total).toBe(before + 1);
  });

  it('keeps window, skip and skipped across a state snapshot, and refuses a restored window out of order', async () => {
    const fault = await addFault({ path: '/v1/networks', truncate: 3, window: { from: '1m', to: '2m' }, skip: 3 });
    const doc = (await s.control('GET', '/sandbox/state')).body.data;
    expect(doc.faults.faults).toEqual([expect.objectContaining({ id: fault.id, window: fault.window, skip: 3, skipped: 0, truncate: 3 })]);
    await s.control('DELETE', '/sandbox/faults');
    expect((await s.control('PUT', '/sandbox/state', doc)).status).toBe(200);
    expect((await s.control('GET', '/sandbox/faults')).body.data).toEqual([fault]);
    const bad = structuredClone(doc);
    bad.faults.faults[0].window = { from: fault.window.to, to: fault.window.from };
    const refused = await s.control('PUT', '/sandbox/state', bad);
    expect(refused.status).toBe(422);
    expect(refused.body.message).toBe('faults.faults.0.window.to: must be after from (the window would be empty)');
    const overSkipped = structuredClone(doc);
    overSkipped.faults.faults[0].skipped = 4;
    expect((await s.control('PUT', '/sandbox/state', overSkipped)).body.message).toBe('faults.faults.0.skipped: must not exceed skip');
  });
});

describe('the new fields are checked (CONTRACT §22: 422 in the documented envelope)', () => {
  it('refuses a window out of order or over, a negative skip, a bad truncate, an unknown kind', async () => {
    const now = Date.parse((await s.control('GET', '/sandbox/clock')).body.data.now);
    const iso = (ms: number) => new Date(ms).toISOString();
    const cases: Array<[Record<string, unknown>, string | RegExp]> = [
      [{ error: { status: 503 }, window: { from: '10m', to: '5m' } }, 'window.to: must be after from (the window would be empty)'],
      [
        { error: { status: 503 }, window: { from: iso(now + 120_000), to: iso(now + 60_000) } },
        'window.to: must be after from (the window would be empty)',
      ],
      [
        { error: { status: 503 }, window: { from: iso(now + 600_000), to: '5m' } },
        /^window\.to: must be after from \(.* is not after .*: the window would be empty\)$/,
      ],
      [{ error: { status: 503 }, window: { to: iso(now - 1) } }, /^window\.to: is already past /],
      [{ error: { status: 503 }, window: {} }, 'window.from: give from, to or both'],
      [{ error: { status: 503 }, window: { from: 'soon' } }, /^window\.from: must be an instant \(ISO 8601/],
      [{ error: { status: 503 }, window: { from: '1m', until: '2m' } }, /^window: /],
      [{ error: { status: 503 }, skip: -1 }, 'skip: must be a whole number of requests (0 or more)'],
      [{ error: { status: 503 }, skip: 1.5 }, 'skip: must be a whole number of requests (0 or more)'],
      [{ truncate: -1 }, 'truncate: must be a whole number of bytes (0 or more)'],
      [{ truncate: 2.5 }, 'truncate: must be a whole number of bytes (0 or more)'],
      [{ truncate: '10' }, 'truncate: must be a whole number of bytes (0 or more)'],
      [{ reset: 2 }, /^reset: /],
      [{ malformed: true }, /^malformed: /],
      [
        { kind: 'explode' },
        'body: unknown field "kind" (a fault\'s kinds: latency_ms, error, drop, reset, truncate, malformed; its other fields: client_id, environment, method, path, window, skip, times, phase)',
      ],
      [{ path: '/v1/x' }, 'error: give at least one of latency_ms, error, drop, reset, truncate or malformed'],
    ];
    for (const [body, message] of cases) {
      const res = await s.control('POST', '/sandbox/faults', body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body).toMatchObject({ status: false, code: 'E_VALIDATION_ERROR' });
      if (typeof message === 'string') expect(res.body.message, JSON.stringify(body)).toBe(message);
      else expect(res.body.message, JSON.stringify(body)).toMatch(message);
    }
    expect((await s.control('GET', '/sandbox/faults')).body.data).toEqual([]);
  });
});

describe('seeded: the same seed and the same traffic give the same faults (CONTRACT §22)', () => {
  /** Rate-based faults of every kind that needs no answer read, and the decisions as the inspector recorded them. */
  async function decisions(seed: number): Promise<string> {
    const server = await startTestServer({ seed });
    try {
      for (const body of [
        { path: '/v1/networks', error: { status: 503, rate: 0.3 }, malformed: 0.3 },
        { path: '/v1/fiat-currencies', error: { status: 500, rate: 0.5 }, skip: 3, latency_ms: { min: 0, max: 2 } },
        { path: '/v1/networks/*', reset: 0.3, drop: 0.2, error: { status: 502, rate: 0.5 } },
      ]) {
        expect((await server.control('POST', '/sandbox/faults', body)).status).toBe(200);
      }
      for (let i = 0; i < 30; i++) {
        for (const path of ['/v1/networks', '/v1/fiat-currencies', '/v1/networks/base-sepolia']) {
          // a reset or a drop ends the connection: only what the inspector recorded counts
          await rawGet(server, path);
        }
      }
      const records = (await server.control('GET', '/sandbox/requests?per_page=1000')).body.data as Array<Record<string, unknown>>;
      expect(records).toHaveLength(90);
      return JSON.stringify(records.map((r) => [r.method, r.path, r.status, r.fault ?? null, r.code ?? null, r.message ?? null]));
    } finally {
      await server.close();
    }
  }

  it('two sandboxes with the same seed give byte-identical fault decisions; another seed differs', async () => {
    const a = await decisions(7);
    const b = await decisions(7);
    const c = await decisions(8);
    expect(b).toBe(a);
    expect(c).not.toBe(a);
    // every kind showed up, so the comparison compares something
    for (const text of ['connection reset', 'connection closed', 'E_SANDBOX_FAULT', ',200,"flt_1"']) expect(a).toContain(text);
  });
});
