import { capturedLogger } from '../support/log-sink';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { safeEqual } from '../../src/auth';
import { redactText, redactUrl } from '../../src/http/edge/redact';
import { startTestServer, type TestServer } from '../support/server';

// CONTRACT §9: the admin token is never written to logs; its comparison ignores lengths.
const { logger, lines } = capturedLogger();

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer({ adminToken: 'adm-SECRET-1234', logger });
});
afterAll(() => s.close());

describe('log redaction', () => {
  it('never writes the admin token of a query or a header, accepted or refused', async () => {
    await s.request('GET', '/sandbox/dashboard?token=adm-SECRET-1234&x=1');
    await s.request('GET', '/sandbox/clock?token=adm-SECRET-1234');
    await s.request('GET', '/sandbox/clock?TOKEN=adm-SECRET-1234');
    await s.request('GET', '/sandbox/clock', { headers: { authorization: 'Bearer adm-SECRET-1234' } });
    await s.request('GET', '/sandbox/clock', { headers: { authorization: 'Bearer adm-SECRET-12345' } });
    await s.request('GET', '/v1/networks?token=adm-SECRET-1234&signature=sha256=abc');
    const log = lines.join('');
    expect(lines.length).toBeGreaterThanOrEqual(6);
    expect(log).not.toContain('adm-SECRET');
    expect(log).not.toContain('sha256=abc');
    expect(log).toContain('/sandbox/clock?token=[redacted]');
    expect(log).toContain('/sandbox/dashboard?token=[redacted]&x=1');
  });

  // Issue item 7: under any other name, encoded or not, in the path too, the token's value is scrubbed.
  it('never writes the admin token under any query name, percent-encoded, or in a path: not in the log, the inspector or the HAR', async () => {
    await s.control('DELETE', '/sandbox/requests', undefined, { authorization: 'Bearer adm-SECRET-1234' });
    const from = lines.length;
    const sent = [
      '/sandbox/clock?t=adm-SECRET-1234',
      '/sandbox/clock?x=Bearer+adm-SECRET-1234&y=1',
      '/v1/networks?x=adm%2DSECRET%2d1234',
      '/v1/networks?x=%61dm-SECRET-1234',
      '/v1/networks?adm-SECRET-1234',
      '/v1/orders/adm-SECRET-1234?page=1',
    ];
    for (const path of sent) await s.signed('GET', path);
    const log = lines.slice(from).join('');
    expect(lines.length - from).toBe(sent.length);
    expect(log).toContain('/sandbox/clock?t=[redacted]');
    expect(log).toContain('/sandbox/clock?x=[redacted]&y=1');
    expect(log).toContain('/v1/orders/[redacted]?page=1');
    const inspector = (await s.control('GET', '/sandbox/requests', undefined, { authorization: 'Bearer adm-SECRET-1234' })).text;
    const har = (await s.control('GET', '/sandbox/requests.har', undefined, { authorization: 'Bearer adm-SECRET-1234' })).text;
    expect(JSON.parse(inspector).data).toHaveLength(4);
    expect(inspector).toContain('?x=[redacted]');
    for (const text of [log, inspector, har]) {
      expect(text).not.toMatch(/SECRET(-|%2D)1234/i);
      expect(text).not.toMatch(/%61dm/i);
    }
  });

  it('redacts secret-looking query parameters and keeps the rest', () => {
    expect(redactUrl('/a?x=1&token=t&y=2')).toBe('/a?x=1&token=[redacted]&y=2');
    expect(redactUrl('/a?%74oken=t')).toBe('/a?%74oken=[redacted]');
    expect(redactUrl('/a?api_key=k&%zz=1')).toBe('/a?api_key=[redacted]&%zz=1');
    expect(redactUrl('/plain')).toBe('/plain');
    // issue 22: array forms of a secret parameter were shown
    expect(redactUrl('/a?token[]=t&token%5B0%5D=u&tokens=v')).toBe('/a?token[]=[redacted]&token%5B0%5D=[redacted]&tokens=v');
  });
});

describe('redactUrl and redactText with the admin token', () => {
  it('scrub the token under any name, in a path, in every encoding, and leave the rest', () => {
    const t = 'tok-EN/1';
    expect(redactUrl('/a?t=tok-EN/1&b=2', t)).toBe('/a?t=[redacted]&b=2');
    expect(redactUrl('/a?x=Bearer+tok-EN%2F1', t)).toBe('/a?x=[redacted]');
    expect(redactUrl('/a?x=tok%2DEN%252F1', t)).toBe('/a?x=[redacted]'); // encoded twice
    expect(redactUrl('/a?tok-EN%2f1', t)).toBe('/a?[redacted]');
    expect(redactUrl('/v1/orders/tok-EN%2F1/cancel?%zz', t)).toBe('/v1/orders/[redacted]/cancel?%zz');
    expect(redactUrl('/a?x=1&y=tok', t)).toBe('/a?x=1&y=tok');
    expect(redactText('Order tok-EN/1 not found; prefix=cl%7Ctok-EN%2F1%7C', t)).toBe(
      'Order [redacted] not found; prefix=cl%7C[redacted]%7C',
    );
    expect(redactText('prefix=%2574ok-EN%252F1', t)).toBe('[redacted] (it held the admin token)');
    expect(redactText('nothing here', t)).toBe('nothing here');
    expect(redactText('tok-EN/1', undefined)).toBe('tok-EN/1');
  });
});

describe('safeEqual', () => {
  it('compares secrets of any lengths without throwing', () => {
    expect(safeEqual('abc', 'abc')).toBe(true);
    expect(safeEqual('abc', 'abcd')).toBe(false);
    expect(safeEqual('', 'abcd')).toBe(false);
    expect(safeEqual('é', 'e')).toBe(false);
    expect(safeEqual('x'.repeat(10_000), 'x'.repeat(10_000))).toBe(true);
  });
});
