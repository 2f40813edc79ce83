import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { seeded } from '../../../test/support/property';
import { RequestLog } from './request-log';
import { materialise, type RawRecord } from './request-log.record';
import type { RecordedRequest, RequestsQuery } from './request-log.schemas';

/**
 * The ring as it was before its columns (docs/decisions/010-inspector-ring-columns.md): one
 * object per recorded request, materialised on first read, filtered on what it was recorded
 * with. Kept here as the reference the columns must answer as.
 */
class ObjectRing {
  private readonly ring: Array<RecordedRequest | { id: string; raw: RawRecord } | undefined>;
  private next = 0;
  private count = 0;
  private serial = 0;
  constructor(readonly limit: number) {
    this.ring = new Array(limit);
  }
  recordRaw(raw: RawRecord): string {
    const id = `req_${(++this.serial).toString(36)}`;
    this.ring[this.next] = { id, raw };
    this.next = (this.next + 1) % this.limit;
    if (this.count < this.limit) this.count++;
    return id;
  }
  private at(slot: number): RecordedRequest {
    const e = this.ring[slot]!;
    if (!('raw' in e)) return e;
    const full = { ...materialise(e.raw), id: e.id } as RecordedRequest;
    this.ring[slot] = full;
    return full;
  }
  page(q: Partial<RequestsQuery> = {}): { items: RecordedRequest[]; total: number } {
    const perPage = q.per_page ?? q.limit ?? 50;
    const first = ((q.page ?? 1) - 1) * perPage;
    const statusClass = q.status?.endsWith('xx') ? Number(q.status[0]) : undefined;
    const status = q.status && statusClass === undefined ? Number(q.status) : undefined;
    const needle = q.q?.trim().toLowerCase() || undefined;
    const items: RecordedRequest[] = [];
    let total = 0;
    for (let i = 1; i <= this.count; i++) {
      const slot = (this.next - i + this.limit) % this.limit;
      const e = fieldsOf(this.ring[slot]!);
      if (q.client_id !== undefined && e.clientId !== q.client_id) continue;
      if (q.environment !== undefined && e.environment !== q.environment) continue;
      if (status !== undefined && e.status !== status) continue;
      if (statusClass !== undefined && Math.floor(e.status / 100) !== statusClass) continue;
      if (q.path !== undefined && !e.path.includes(q.path)) continue;
      if (
        needle !== undefined &&
        !(e.id === needle || [e.path, e.requestBody, e.responseBody].some((t) => t?.toLowerCase().includes(needle)))
      )
        continue;
      if (total >= first && items.length < perPage) items.push(this.at(slot));
      total++;
    }
    return { items, total };
  }
  get(id: string): RecordedRequest | undefined {
    for (let i = 1; i <= this.count; i++) {
      const slot = (this.next - i + this.limit) % this.limit;
      if (this.ring[slot]!.id === id) return this.at(slot);
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

function fieldsOf(e: RecordedRequest | { id: string; raw: RawRecord }) {
  if ('raw' in e) {
    const { raw } = e;
    return {
      id: e.id,
      clientId: raw.clientId || undefined,
      environment: raw.environment,
      status: raw.status,
      path: raw.path,
      requestBody: raw.requestBody,
      responseBody: raw.responseBody,
    };
  }
  return {
    id: e.id,
    clientId: e.client_id,
    environment: e.environment,
    status: e.status,
    path: e.path,
    requestBody: e.request_body,
    responseBody: e.response_body,
  };
}

const SHOWN = [
  'svc-client-id',
  'svc-timestamp',
  'svc-signature',
  'authorization',
  'content-type',
  'content-length',
  'x-request-id',
  'user-agent',
];
const SHOWN_RESPONSE = ['content-type', 'content-length', 'retry-after', 'allow', 'location', 'x-request-id', 'svc-sandbox-hint'];
/** A headers object as the recorder makes it: the shown names present, in their order. */
const inOrder = (names: string[], h: Record<string, string>) => Object.fromEntries(names.filter((n) => n in h).map((n) => [n, h[n]!]));

const text = fc.oneof(
  fc.constantFrom('', 'x', 'ORD', '/v1/orders', '/v1/orders/ORDAB12', 'ptr_1', 'Bearer sk_test_****abcd', 'req_3'),
  fc.string({ maxLength: 40 }),
);
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
      headers: fc.dictionary(fc.constantFrom(...SHOWN), text),
      responseHeaders: fc.dictionary(fc.constantFrom(...SHOWN_RESPONSE), text, { minKeys: 1 }),
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
  .map((r) => {
    const out = { ...r, headers: inOrder(SHOWN, r.headers) } as RawRecord;
    if (r.responseHeaders) out.responseHeaders = inOrder(SHOWN_RESPONSE, r.responseHeaders);
    return out;
  });

const query: fc.Arbitrary<Partial<RequestsQuery>> = fc.record(
  {
    client_id: text,
    environment: fc.constantFrom('test', 'live'),
    status: fc.constantFrom('200', '201', '4xx', '5xx', '404'),
    path: text,
    q: text,
    page: fc.integer({ min: 1, max: 4 }),
    per_page: fc.integer({ min: 1, max: 5 }),
    limit: fc.integer({ min: 1, max: 8 }),
  },
  { requiredKeys: [] },
);

type Op =
  | { kind: 'raw'; raw: RawRecord }
  | { kind: 'page'; q: Partial<RequestsQuery> }
  | { kind: 'get'; serial: number }
  | { kind: 'clear' };
const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 5, arbitrary: rawRecord.map((raw) => ({ kind: 'raw' as const, raw })) },
  { weight: 2, arbitrary: query.map((q) => ({ kind: 'page' as const, q })) },
  { weight: 2, arbitrary: fc.integer({ min: 1, max: 40 }).map((serial) => ({ kind: 'get' as const, serial })) },
  { weight: 1, arbitrary: fc.constant({ kind: 'clear' as const }) },
);

describe('RequestLog in columns', () => {
  it('answers every page, list and get as the ring of one object per request did, through any records and clears (seeded)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 6 }), fc.array(op, { maxLength: 40 }), (limit, ops) => {
        const columns = new RequestLog(limit);
        const objects = new ObjectRing(limit);
        for (const o of ops) {
          if (o.kind === 'raw') {
            expect(columns.recordRaw(o.raw)).toBe(objects.recordRaw(o.raw));
          } else if (o.kind === 'page') {
            expect(columns.page(o.q)).toStrictEqual(objects.page(o.q));
          } else if (o.kind === 'get') {
            const id = `req_${o.serial.toString(36)}`;
            expect(columns.get(id)).toStrictEqual(objects.get(id));
          } else {
            columns.clear();
            objects.clear();
          }
          expect(columns.size).toBe(objects.size);
        }
        expect(columns.list({ limit })).toStrictEqual(objects.page({ limit }).items);
        // Key order too (the inspector's JSON).
        expect(JSON.stringify(columns.list())).toBe(JSON.stringify(objects.page().items));
      }),
      seeded({ numRuns: 1_000 }),
    );
  });
});
