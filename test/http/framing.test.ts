import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendRaw as sendRawTo } from '../support/raw-socket';
import { startTestServer, type TestServer } from '../support/server';

const sendRaw = (bytes: string) => sendRawTo(s.url, bytes);

// CONTRACT §9: requests Node's parser refuses still get the JSON error envelope.
let s: TestServer;
let host: string;
beforeAll(async () => {
  s = await startTestServer();
  host = new URL(s.url).host;
});
afterAll(() => s.close());

function parse(answer: string) {
  const head = answer.slice(0, answer.indexOf('\r\n\r\n'));
  return {
    status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1]),
    head: head.toLowerCase(),
    body: JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)),
  };
}

const cases: Array<[string, () => string, number, RegExp]> = [
  ['a garbage request line', () => 'GARBAGE\r\n\r\n', 400, /known method/],
  ['an unknown HTTP version', () => 'GET / HTTP/9.9\r\n\r\n', 400, /version/],
  [
    'a bad chunk size',
    () => `POST /v1/orders HTTP/1.1\r\nHost: ${host}\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nabc\r\n0\r\n\r\n`,
    400,
    /chunk size/,
  ],
  [
    'a duplicate Content-Length',
    () => `POST /v1/orders HTTP/1.1\r\nHost: ${host}\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\nabcd`,
    400,
    /Content-Length/,
  ],
  [
    'Content-Length with chunked',
    () => `POST /v1/orders HTTP/1.1\r\nHost: ${host}\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n`,
    400,
    /Transfer-Encoding/,
  ],
  ['a huge URL', () => `GET /${'a'.repeat(20_000)} HTTP/1.1\r\nHost: ${host}\r\n\r\n`, 431, /larger than the server accepts/],
  [
    'huge headers',
    () => `GET /v1/networks HTTP/1.1\r\nHost: ${host}\r\nX-Big: ${'b'.repeat(20_000)}\r\n\r\n`,
    431,
    /larger than the server accepts/,
  ],
  ['a header name with spaces', () => `GET /v1/networks HTTP/1.1\r\nHost: ${host}\r\nBad Header Name: x\r\n\r\n`, 400, /header name/],
  // issue 18: the value is what is wrong, so the message says so (not the name)
  [
    'a control character in a header value',
    () => `GET /v1/networks HTTP/1.1\r\nHost: ${host}\r\nsvc-client-id: ptr\u0001x\r\n\r\n`,
    400,
    /^(?!.*header name).*a header value has a character a header value cannot have/,
  ],
  ['DEL in a header value', () => `GET /v1/networks HTTP/1.1\r\nHost: ${host}\r\nX-A: a\u007fb\r\n\r\n`, 400, /header value/],
  // Node answered these itself, a bare 400 with no body
  ['an HTTP/1.1 request without Host', () => 'GET /sandbox/clock HTTP/1.1\r\n\r\n', 400, /needs a Host header/],
  ['an HTTP/1.1 /v1 request without Host', () => 'GET /v1/networks HTTP/1.1\r\nConnection: keep-alive\r\n\r\n', 400, /needs a Host header/],
];

describe('framing errors', () => {
  it.each(cases)('answers %s in the JSON envelope and closes the connection', async (_name, bytes, status, message) => {
    const answer = await sendRaw(bytes());
    expect(answer, answer.slice(0, 200)).toMatch(/^HTTP\/1\.1 /);
    const res = parse(answer);
    expect(res.status).toBe(status);
    expect(res.head).toContain('content-type: application/json');
    expect(res.head).toContain('connection: close');
    expect(res.body).toEqual({ status: false, code: 'E_BADREQUEST', message: expect.stringMatching(/^Malformed HTTP request: /) });
    expect(res.body.message).toMatch(message);
  });

  it("answers an HTTP/1.0 request without Host (the Host header is HTTP/1.1's)", async () => {
    const res = parse(await sendRaw('GET /health HTTP/1.0\r\n\r\n').then((a) => a.replace(/^HTTP\/1\.0/, 'HTTP/1.1')));
    expect(res.status).toBe(200);
    expect(res.body.status).toBe(true);
  });

  it('keeps serving well-formed requests afterwards', async () => {
    await sendRaw('GARBAGE\r\n\r\n');
    expect((await s.request('GET', '/health')).status).toBe(200);
  });
});
