import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createHmac } from 'node:crypto';
import { equalHexDigest, hmacSha256Hex, sign, signingKeyOf, verify } from './signature';
import { seeded } from '../../test/support/property';

describe('sign and verify', () => {
  const node = (key: string, message: string) => createHmac('sha256', key).update(message).digest('hex');
  const parts = fc.record({
    clientId: fc.string({ maxLength: 40 }),
    timestamp: fc.stringMatching(/^\d{1,13}$/),
    method: fc.constantFrom('get', 'GET', 'POST', 'patch', 'PUT', 'DELETE'),
    path: fc.string({ unit: 'grapheme', maxLength: 80 }),
    rawBody: fc.string({ unit: 'grapheme', maxLength: 300 }),
  });

  // spec §5.2: sha256= + hex HMAC-SHA256 of clientId|timestamp|METHOD|path|rawBody
  it("signs as node's createHmac over the canonical string, for any key and parts (seeded)", () => {
    fc.assert(
      fc.property(fc.oneof(fc.string({ maxLength: 80 }), fc.string({ unit: 'grapheme', maxLength: 70 })), parts, (key, p) => {
        const canonical = `${p.clientId}|${p.timestamp}|${p.method.toUpperCase()}|${p.path}|${p.rawBody}`;
        expect(sign(p, key)).toBe(`sha256=${node(key, canonical)}`);
        expect(hmacSha256Hex(key, canonical)).toBe(node(key, canonical));
        expect(verify(p, key, sign(p, key))).toBe(true);
      }),
      seeded({ numRuns: 2_000 }),
    );
  });

  it('verifies what sign produces, and nothing else', () => {
    const p = { clientId: 'cl_1', timestamp: '1790000000000', method: 'POST', path: '/v1/orders', rawBody: '{"a":1}' };
    const key = 'enc_test_0123456789abcdef';
    expect(verify(p, key, sign(p, key))).toBe(true);
    expect(verify({ ...p, rawBody: '{"a":2}' }, key, sign(p, key))).toBe(false);
    expect(verify(p, `${key}x`, sign(p, key))).toBe(false);
    expect(verify(p, key, `sha256=${'0'.repeat(64)}`)).toBe(false);
  });

  it('refuses a signature with any one hex digit changed, or of another length (seeded)', () => {
    const p = { clientId: 'cl_1', timestamp: '1790000000000', method: 'GET', path: '/v1/networks', rawBody: '' };
    const key = 'enc_test_0123456789abcdef';
    const good = sign(p, key);
    fc.assert(
      fc.property(fc.integer({ min: 7, max: good.length - 1 }), fc.integer({ min: 1, max: 15 }), (at, delta) => {
        const digit = ((parseInt(good[at]!, 16) + delta) % 16).toString(16);
        expect(verify(p, key, good.slice(0, at) + digit + good.slice(at + 1))).toBe(false);
      }),
      seeded({ numRuns: 500 }),
    );
    expect(verify(p, key, good.slice(0, -1))).toBe(false);
    expect(verify(p, key, `${good}0`)).toBe(false);
  });

  it('signs the same with a key string and its KeyObject, for any key', () => {
    const p = { clientId: 'cl_1', timestamp: '1790000000000', method: 'GET', path: '/v1/networks', rawBody: '' };
    const canonical = 'cl_1|1790000000000|GET|/v1/networks|';
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 80 }), (key) => {
        const expected = `sha256=${node(key, canonical)}`;
        expect(sign(p, key)).toBe(expected);
        expect(sign(p, signingKeyOf(key))).toBe(expected);
        expect(verify(p, signingKeyOf(key), expected)).toBe(true);
        expect(verify({ ...p, rawBody: new Uint8Array() }, signingKeyOf(key), expected)).toBe(true);
      }),
      seeded({ numRuns: 300 }),
    );
  });
});

describe('equalHexDigest', () => {
  it('compares the digest with the rest of the string from an offset', () => {
    expect(equalHexDigest('ab12', 'sha256=ab12', 7)).toBe(true);
    expect(equalHexDigest('ab12', 'sha256=ab13', 7)).toBe(false);
    expect(equalHexDigest('ab12', 'sha256=bb12', 7)).toBe(false);
    expect(equalHexDigest('ab12', 'sha256=ab1', 7)).toBe(false);
    expect(equalHexDigest('ab12', 'sha256=ab123', 7)).toBe(false);
    expect(equalHexDigest('', 'sha256=', 7)).toBe(true);
  });
});
