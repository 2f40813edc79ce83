import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { PackedBody } from './packed-body';
import { seeded } from '../../test/support/property';

describe('PackedBody', () => {
  it('unpacks to exactly the text packed, whatever it holds (seeded)', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.string({ unit: 'grapheme', maxLength: 2_000 }), fc.string({ unit: 'binary', maxLength: 500 }), fc.json()),
        (text) => {
          expect(PackedBody.pack(text).unpack()).toBe(text);
        },
      ),
      seeded({ numRuns: 2_000 }),
    );
  });

  it('keeps a webhook body in a fraction of its length', () => {
    const body = JSON.stringify({
      event: 'order.created',
      data: {
        reference: 'ORDWGNUSZJESLH33',
        merchant_reference: null,
        customer_reference: 'cus_1',
        type: 'onramp',
        from: { currency: 'NGN', amount: 150000 },
        to: { currency: 'USDT', network: 'base-sepolia', amount: 98.12 },
        status: 'awaiting_user_payment',
        created_at: '2026-03-02T09:41:07.123Z',
        updated_at: '2026-03-02T09:41:07.123Z',
      },
    });
    const packed = PackedBody.pack(body);
    expect(packed.unpack()).toBe(body);
    expect(packed.size).toBeLessThan(body.length / 2);
  });
});
