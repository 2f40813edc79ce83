import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createHmac } from 'node:crypto';
import { hmacSha256, sign, verify } from './signature';
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
        expect(hmacSha256(key, canonical).toString('hex')).toBe(node(key, canonical));
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
});
