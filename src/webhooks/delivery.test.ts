import { describe, expect, it } from 'vitest';
import { bodyOf, deliveryRecord, packBody, type Delivery } from './delivery';
import { PackedBody } from './packed-body';

const body = JSON.stringify({
  event: 'order.settled',
  data: {
    reference: 'ORDWGNUSZJESLH33',
    merchant_reference: 'm-1',
    customer_reference: 'cus_1',
    type: 'offramp',
    from: { currency: 'USDT', network: 'base-sepolia', amount: 100 },
    to: { currency: 'NGN', amount: 152547.71 },
    metadata: { note: 'ünïcödé ✓' },
    status: 'settled',
    created_at: '2026-01-15T12:00:00.000Z',
  },
});
const delivery = (): Delivery => ({
  id: 'dlv_1',
  client_id: 'ptr_1',
  environment: 'test',
  order: 'ORDWGNUSZJESLH33',
  event: 'order.settled',
  body,
  urlOverride: null,
  source: 'lifecycle',
  status: 'succeeded',
  attempts: [],
  automaticAttempts: 1,
  next_attempt_at: null,
  created_at: 0,
  inFlight: false,
  timer: null,
});

describe('finished delivery bodies (kept packed)', () => {
  it('reads back byte for byte, in a fraction of the memory, and a snapshot keeps the body as sent', () => {
    const d = delivery();
    packBody(d, new Map());
    expect(d.body).toBeInstanceOf(PackedBody);
    expect((d.body as PackedBody).size).toBeLessThan(body.length / 2);
    expect(bodyOf(d)).toBe(body);
    const packed = d.body;
    packBody(d, new Map()); // packing twice changes nothing
    expect(d.body).toBe(packed);
    expect(bodyOf(d)).toBe(body);
    expect(deliveryRecord(d)).toMatchObject({ body });
    expect(deliveryRecord(d)).not.toHaveProperty('timer');
  });

  it('keeps a finished delivery’s attempts as they were, exactly sized, a short answer shared with other deliveries’', () => {
    const attempt = (excerpt: string | null) => ({
      number: 1,
      manual: false,
      url: 'http://127.0.0.1:1/h',
      virtual_at: 5,
      wall_at: 7,
      duration_ms: 3,
      http_status: 200,
      error: null,
      response_excerpt: excerpt,
    });
    const a = { ...delivery(), attempts: [] as Delivery['attempts'] };
    const b = { ...delivery(), attempts: [] as Delivery['attempts'] };
    a.attempts.push(attempt(['o', 'k'].join('')));
    b.attempts.push(attempt(['o', 'k'].join('')), attempt(null));
    const before = structuredClone([a.attempts, b.attempts]);
    const answers = new Map<string, string>();
    packBody(a, answers);
    packBody(b, answers);
    expect([a.attempts, b.attempts]).toStrictEqual(before);
    expect(b.attempts[0]!.response_excerpt).toBe(a.attempts[0]!.response_excerpt);
    expect([...answers.keys()]).toEqual(['ok']); // the log's own table, not the process's
    expect(deliveryRecord(b).attempts).toStrictEqual(before[1]);
  });

  it('answers the body as sent while the delivery is not packed', () => {
    const d = { ...delivery(), status: 'retrying' as const };
    expect(bodyOf(d)).toBe(body);
    expect(deliveryRecord(d)).toMatchObject({ body });
  });
});
