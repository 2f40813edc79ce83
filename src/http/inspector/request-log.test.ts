import { describe, expect, it } from 'vitest';
import { RequestLog } from './request-log';
import { materialise, maskedHeaders, ownExcerpt, type RawRecord } from './request-log.record';

const raw = (i: number): RawRecord => ({
  wallMs: Date.UTC(2026, 0, 1) + i,
  virtualMs: Date.UTC(2026, 0, 2) + i,
  method: 'POST',
  path: `/v1/orders?i=${i}`,
  status: 201,
  ms: 1.23456,
  auth: 'secret',
  headers: maskedHeaders({ authorization: 'Bearer sk_test_abcdefghijkl', 'svc-signature': 'sha256=00', 'user-agent': 'x', host: 'h' }),
  clientId: 'ptr_1',
  environment: 'test',
  requestBody: ownExcerpt('b'.repeat(5000), 4096),
  responseBody: '{}',
});

describe('RequestLog raw records', () => {
  it('reads them as the entries they record, with ids in order, newest first, the oldest let go', () => {
    const log = new RequestLog(3);
    for (let i = 0; i < 5; i++) expect(log.recordRaw(raw(i))).toBe(`req_${i + 1}`);
    const entry = (i: number) => ({ ...materialise(raw(i)), id: `req_${i + 1}` });
    expect(log.size).toBe(3);
    expect(log.list()).toEqual([entry(4), entry(3), entry(2)]);
    expect(log.list()[0]).toMatchObject({
      id: 'req_5',
      at: '2026-01-01T00:00:00.004Z',
      duration_ms: 1.23,
      headers: { authorization: 'Bearer sk_test_****ijkl', 'svc-signature': 'sha256=****', 'user-agent': 'x' },
    });
    expect(log.list()[0]!.request_body).toHaveLength(4096);
    expect(log.get('req_3')).toEqual(entry(2));
    expect(log.get('req_2')).toBeUndefined();
    expect(log.list({ path: 'i=3' }).map((e) => e.id)).toEqual(['req_4']);
  });
});

describe('masking and excerpts', () => {
  it('shows the last four characters of a partner key only, never of another token', () => {
    expect(maskedHeaders({ authorization: 'Bearer sk_live_abcdefghijklmnop' }).authorization).toBe('Bearer sk_live_****mnop');
    // issue 22: an admin token sent to /v1 as a bearer showed its last four characters
    expect(maskedHeaders({ authorization: 'Bearer my-admin-token-1234' }).authorization).toBe('Bearer ****');
    expect(maskedHeaders({ authorization: 'Basic dXNlcjpwYXNz' }).authorization).toBe('****');
  });

  it('cuts a long text to a copy of its own and keeps a short one as it is', () => {
    const long = 'x'.repeat(10_000);
    const cut = ownExcerpt(long, 4096);
    expect(cut).toBe(long.slice(0, 4096));
    const short = 'y'.repeat(100);
    expect(ownExcerpt(short, 4096)).toBe(short);
    // a surrogate pair at the cut is left out whole, never split (issue item 9) ...
    const emoji = `${'a'.repeat(4095)}😀`;
    expect(ownExcerpt(emoji, 4096)).toBe('a'.repeat(4095));
    // ... and a lone surrogate already in the text survives the copy exactly
    const lone = `${'a'.repeat(4094)}\ud83d${'b'.repeat(10)}`;
    expect(ownExcerpt(lone, 4095)).toBe(lone.slice(0, 4095));
  });
});
