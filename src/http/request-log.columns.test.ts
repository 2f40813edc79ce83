import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { seeded } from '../../test/support/property';
import { materialise, RequestLog, type RawRecord, type RecordedRequest, type RequestsQuery } from './request-log';

/**
 * The ring as it was before its columns (docs/decisions/010-inspector-ring-columns.md): one
 * object per recorded request, materialised on first read. Kept here as the reference the
 * columns must answer as.
 */
class ObjectRing {
  private readonly ring: Array<RecordedRequest | { id: string; raw: RawRecord } | undefined>;
  private next = 0;
  private count = 0;
  private serial = 0;
  constructor(readonly limit: number) {
    this.ring = new Array(limit);
  }
  record(entry: Omit<RecordedRequest, 'id'>): RecordedRequest {
    const full = { ...entry, id: `req_${(++this.serial).toString(36)}` } as RecordedRequest;
    this.ring[this.next] = full;
    this.next = (this.next + 1) % this.limit;
    if (this.count < this.limit) this.count++;
    return full;
  }
  recordRaw(raw: RawRecord): void {
    this.ring[this.next] = { id: `req_${(++this.serial).toString(36)}`, raw };
    this.next = (this.next + 1) % this.limit;
    if (this.count < this.limit) this.count++;
  }
  private at(slot: number): RecordedRequest {
    const e = this.ring[slot]!;
    if (!('raw' in e)) return e;
    const full = { ...materialise(e.raw), id: e.id } as RecordedRequest;
    this.ring[slot] = full;
    return full;
  }
  list(q: Partial<RequestsQuery> = {}): RecordedRequest[] {
    const out: RecordedRequest[] = [];
    const limit = q.limit ?? 50;
    const statusClass = q.status?.endsWith('xx') ? Number(q.status[0]) : undefined;
    const status = q.status && statusClass === undefined ? Number(q.status) : undefined;
    for (let i = 1; i <= this.count && out.length < limit; i++) {
      const e = this.at((this.next - i + this.limit) % this.limit);
      if (q.client_id !== undefined && e.client_id !== q.client_id) continue;
      if (q.environment !== undefined && e.environment !== q.environment) continue;
      if (status !== undefined && e.status !== status) continue;
      if (statusClass !== undefined && Math.floor(e.status / 100) !== statusClass) continue;
      if (q.path !== undefined && !e.path.includes(q.path)) continue;
      out.push(e);
    }
    return out;
  }
  get(id: string): RecordedRequest | undefined {
    for (let i = 1; i <= this.count; i++) {
      const slot = (this.next - i + this.limit) % this.limit;
      const e = this.ring[slot]!;
      if (e.id === id) return this.at(slot);
    }
    return undefined;
  }
  get size(): number {
    return this.count;
  }
  clear(): void {
    this.ring.fill(undefined);
    this.next = 0;
    this.count = 0;
  }
}

const text = fc.oneof(fc.constantFrom('', 'x', '/v1/orders', '/v1/orders/ORDAB12', 'ptr_1', 'Bearer sk_test_****abcd'), fc.string({ maxLength: 40 }));
const rawRecord: fc.Arbitrary<RawRecord> = fc
  .record(
    {
      wallMs: fc.integer({ min: 0, max: 8e15 }),
      virtualMs: fc.integer({ min: 0, max: 8e15 }),
      method: fc.constantFrom('GET', 'POST', 'PATCH'),
      path: text,
      status: fc.constantFrom(0, 200, 201, 400, 401, 403, 404, 422, 429, 500),
      ms: fc.double({ min: 0, max: 1e6, noNaN: true }),
      auth: fc.constantFrom('public', 'secret', 'none', 'failed'),
      headers: fc.dictionary(fc.constantFrom('svc-client-id', 'svc-timestamp', 'svc-signature', 'authorization', 'content-type', 'content-length', 'x-request-id', 'user-agent'), text),
      clientId: text,
      environment: fc.constantFrom('test', 'live'),
      code: text,
      message: text,
      hint: text,
      fault: text,
      requestBody: text,
      responseBody: text,
    },
    { requiredKeys: ['wallMs', 'virtualMs', 'method', 'path', 'status', 'ms', 'auth', 'headers'] },
  )
  // Headers in the order the recorder writes them (maskedHeaders: SHOWN_HEADERS' order).
  .map((r) => ({ ...r, headers: Object.fromEntries(['svc-client-id', 'svc-timestamp', 'svc-signature', 'authorization', 'content-type', 'content-length', 'x-request-id', 'user-agent'].filter((h) => h in r.headers).map((h) => [h, r.headers[h]!])) }) as RawRecord);

const query: fc.Arbitrary<Partial<RequestsQuery>> = fc.record(
  { client_id: text, environment: fc.constantFrom('test', 'live'), status: fc.constantFrom('200', '201', '4xx', '5xx', '404'), path: text, limit: fc.integer({ min: 1, max: 8 }) },
  { requiredKeys: [] },
);

type Op = { kind: 'raw'; raw: RawRecord } | { kind: 'whole'; raw: RawRecord } | { kind: 'list'; q: Partial<RequestsQuery> } | { kind: 'get'; serial: number } | { kind: 'clear' };
const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 5, arbitrary: rawRecord.map((raw) => ({ kind: 'raw' as const, raw })) },
  { weight: 1, arbitrary: rawRecord.map((raw) => ({ kind: 'whole' as const, raw })) },
  { weight: 2, arbitrary: query.map((q) => ({ kind: 'list' as const, q })) },
  { weight: 2, arbitrary: fc.integer({ min: 1, max: 40 }).map((serial) => ({ kind: 'get' as const, serial })) },
  { weight: 1, arbitrary: fc.constant({ kind: 'clear' as const }) },
);

describe('RequestLog in columns', () => {
  it('answers every list and get as the ring of one object per request did, through any records and clears (seeded)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 6 }), fc.array(op, { maxLength: 40 }), (limit, ops) => {
        const columns = new RequestLog(limit);
        const objects = new ObjectRing(limit);
        for (const o of ops) {
          if (o.kind === 'raw') {
            columns.recordRaw(o.raw);
            objects.recordRaw(o.raw);
          } else if (o.kind === 'whole') {
            expect(columns.record(materialise(o.raw))).toEqual(objects.record(materialise(o.raw)));
          } else if (o.kind === 'list') {
            expect(columns.list(o.q)).toStrictEqual(objects.list(o.q));
          } else if (o.kind === 'get') {
            const id = `req_${o.serial.toString(36)}`;
            expect(columns.get(id)).toStrictEqual(objects.get(id));
          } else {
            columns.clear();
            objects.clear();
          }
          expect(columns.size).toBe(objects.size);
        }
        expect(columns.list({ limit: limit })).toStrictEqual(objects.list({ limit: limit }));
        // Key order too (the inspector's JSON).
        expect(JSON.stringify(columns.list())).toBe(JSON.stringify(objects.list()));
      }),
      seeded({ numRuns: 1_000 }),
    );
  });
});
