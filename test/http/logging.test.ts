import { capturedLogger } from '../support/log-sink';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { safeEqual } from '../../src/auth';
import { redactUrl } from '../../src/http/redact';
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

  it('redacts secret-looking query parameters and keeps the rest', () => {
    expect(redactUrl('/a?x=1&token=t&y=2')).toBe('/a?x=1&token=[redacted]&y=2');
    expect(redactUrl('/a?%74oken=t')).toBe('/a?%74oken=[redacted]');
    expect(redactUrl('/a?api_key=k&%zz=1')).toBe('/a?api_key=[redacted]&%zz=1');
    expect(redactUrl('/plain')).toBe('/plain');
    // issue 22: array forms of a secret parameter were shown
    expect(redactUrl('/a?token[]=t&token%5B0%5D=u&tokens=v')).toBe('/a?token[]=[redacted]&token%5B0%5D=[redacted]&tokens=v');
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
