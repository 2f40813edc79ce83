import { describe, expect, it } from 'vitest';
import { RequestLog, materialise, type RawRecord } from './request-log';

const raw = (i: number): RawRecord => ({
  wallMs: Date.UTC(2026, 0, 1) + i,
  virtualMs: Date.UTC(2026, 0, 2) + i,
  method: 'POST',
  path: `/v1/orders?i=${i}`,
  status: 201,
  ms: 1.23456,
  auth: 'secret',
  headers: { authorization: 'Bearer sk_test_abcdefghijkl', 'svc-signature': 'sha256=00', 'user-agent': 'x', host: 'h' },
  clientId: 'ptr_1',
  environment: 'test',
  requestBody: 'b'.repeat(5000),
  responseBody: '{}',
});

describe('RequestLog raw records', () => {
  it('reads them as the entry record() would have stored, with the same ids, newest first', () => {
    const lazy = new RequestLog(3);
    const eager = new RequestLog(3);
    for (let i = 0; i < 5; i++) {
      lazy.recordRaw(raw(i));
      eager.record(materialise(raw(i)));
    }
    expect(lazy.size).toBe(3);
    expect(lazy.list()).toEqual(eager.list());
    expect(lazy.list()[0]).toMatchObject({ id: 'req_5', at: '2026-01-01T00:00:00.004Z', duration_ms: 1.23, headers: { authorization: 'Bearer sk_test_****ijkl', 'svc-signature': 'sha256=****', 'user-agent': 'x' } });
    expect(lazy.list()[0]!.request_body).toHaveLength(4096);
    expect(lazy.get('req_3')).toEqual(eager.get('req_3'));
    expect(lazy.get('req_2')).toBeUndefined();
    expect(lazy.list({ path: 'i=3' }).map((e) => e.id)).toEqual(['req_4']);
  });

  it('hands listeners the full entry at once', () => {
    const log = new RequestLog(2);
    const seen: unknown[] = [];
    log.onRecord((e) => seen.push(e));
    log.recordRaw(raw(0));
    expect(seen).toEqual([{ ...materialise(raw(0)), id: 'req_1' }]);
  });
});
