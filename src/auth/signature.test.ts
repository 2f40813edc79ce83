import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createHmac } from 'node:crypto';
import { hmacSha256, sign, verify } from './signature';
import { seeded } from '../../test/support/property';

describe('hmacSha256', () => {
  const node = (key: string, message: string) => createHmac('sha256', key).update(message).digest('hex');

  it("equals node's createHmac for any key and any message (seeded)", () => {
    fc.assert(
      fc.property(fc.oneof(fc.string({ maxLength: 80 }), fc.string({ unit: 'grapheme', maxLength: 70 })), fc.string({ unit: 'grapheme', maxLength: 300 }), (key, message) => {
        expect(hmacSha256(key, message).toString('hex')).toBe(node(key, message));
        // the second call goes through the key's remembered pads
        expect(hmacSha256(key, message).toString('hex')).toBe(node(key, message));
      }),
      seeded({ numRuns: 3_000 }),
    );
  });

  it('equals it at the block edges and for the sandbox keys', () => {
    for (const key of ['', 'k', 'e'.repeat(63), 'e'.repeat(64), 'e'.repeat(65), 'é'.repeat(10), `enc_test_${'a1'.repeat(20)}`]) {
      for (const message of ['', 'a|b|GET|/v1/networks|', '{"naira":"₦"}', 'x'.repeat(10_000)]) {
        expect(hmacSha256(key, message).toString('hex'), `${key.length} ${message.length}`).toBe(node(key, message));
      }
    }
  });

  it('verifies what sign produces, and nothing else', () => {
    const parts = { clientId: 'cl_1', timestamp: '1790000000000', method: 'POST', path: '/v1/orders', rawBody: '{"a":1}' };
    const key = 'enc_test_0123456789abcdef';
    expect(verify(parts, key, sign(parts, key))).toBe(true);
    expect(verify({ ...parts, rawBody: '{"a":2}' }, key, sign(parts, key))).toBe(false);
    expect(verify(parts, `${key}x`, sign(parts, key))).toBe(false);
  });
});
