import { describe, expect, it } from 'vitest';
import { bodyOf, deliveryRecord, packBody, type Delivery } from './delivery';
import { PackedBody } from './packed-body';

const body = JSON.stringify({
  event: 'order.settled',
  data: { reference: 'ORDWGNUSZJESLH33', merchant_reference: 'm-1', customer_reference: 'cus_1', type: 'offramp', from: { currency: 'USDT', network: 'base-sepolia', amount: 100 }, to: { currency: 'NGN', amount: 152547.71 }, metadata: { note: 'ünïcödé ✓' }, status: 'settled', created_at: '2026-01-15T12:00:00.000Z' },
});
const delivery = (): Delivery => ({
  id: 'dlv_1', client_id: 'ptr_1', environment: 'test', order: 'ORDWGNUSZJESLH33', event: 'order.settled', body, urlOverride: null, source: 'lifecycle',
  status: 'succeeded', attempts: [], automaticAttempts: 1, next_attempt_at: null, created_at: 0, inFlight: false, timer: null,
});

describe('finished delivery bodies (kept packed)', () => {
  it('reads back byte for byte, in a fraction of the memory, and a snapshot keeps the body as sent', () => {
    const d = delivery();
    packBody(d);
    expect(d.body).toBeInstanceOf(PackedBody);
    expect((d.body as PackedBody).size).toBeLessThan(body.length / 2);
    expect(bodyOf(d)).toBe(body);
    const packed = d.body;
    packBody(d); // packing twice changes nothing
    expect(d.body).toBe(packed);
    expect(bodyOf(d)).toBe(body);
    expect(deliveryRecord(d)).toMatchObject({ body });
    expect(deliveryRecord(d)).not.toHaveProperty('timer');
  });

  it('answers the body as sent while the delivery is not packed', () => {
    const d = { ...delivery(), status: 'retrying' as const };
    expect(bodyOf(d)).toBe(body);
    expect(deliveryRecord(d)).toMatchObject({ body });
  });
});
