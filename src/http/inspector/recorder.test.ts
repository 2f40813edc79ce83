import type { Context } from 'koa';
import { describe, expect, it, vi } from 'vitest';
import { RequestLog } from './request-log';
import { recordRequests } from './recorder';

/** An answered request as the recorder reads it (Koa's context, the fields it uses). */
function answered(path: string, status: number, body: string): Context {
  return {
    path,
    originalUrl: path,
    method: 'GET',
    state: {},
    respond: true,
    status,
    body,
    req: { headers: { 'user-agent': 'test' } },
    res: { getHeader: (name: string) => (name === 'content-type' ? 'application/json; charset=utf-8' : undefined) },
    request: { rawBody: undefined },
  } as unknown as Context;
}

// The recorder writes a request when it is answered (decision 025 keeps it warm; decision 023's
// batch of its own is gone): the record is the request as it was answered, at that time.
describe('recordRequests', () => {
  it('records each answer when it is answered, with its times', () => {
    let virtual = Date.UTC(2026, 0, 1);
    let wall = Date.UTC(2026, 5, 1);
    const log = new RequestLog(10);
    const observe = recordRequests(log, { now: () => virtual }, { now: () => wall });
    const recorded = () => log.list().map((e) => e.path);
    observe(answered('/v1/networks', 200, '{"status":true}'), { ms: 1.5 });
    expect(recorded()).toEqual(['/v1/networks']);
    virtual += 3_600_000;
    wall += 1000;
    observe(answered('/v1/orders/ord_x', 404, '{"status":false}'), { ms: 0.5 });
    expect(recorded()).toEqual(['/v1/orders/ord_x', '/v1/networks']);
    const [second, first] = log.list();
    expect(first).toMatchObject({
      id: 'req_1',
      path: '/v1/networks',
      status: 200,
      virtual_at: '2026-01-01T00:00:00.000Z',
      at: '2026-06-01T00:00:00.000Z',
      duration_ms: 1.5,
      response_body: '{"status":true}',
    });
    expect(first!.response_headers).toEqual({ 'content-type': 'application/json; charset=utf-8' });
    expect(second).toMatchObject({
      id: 'req_2',
      path: '/v1/orders/ord_x',
      status: 404,
      virtual_at: '2026-01-01T01:00:00.000Z',
      at: '2026-06-01T00:00:01.000Z',
    });
  });

  // Issue item 9: the 4,096-character cut split a surrogate pair (an emoji at the edge).
  it('cuts a body, a path and a message on a code point, never inside a surrogate pair', () => {
    const log = new RequestLog(10);
    const observe = recordRequests(log, { now: () => 0 }, { now: () => 0 });
    const body = `${'a'.repeat(4095)}😀${'b'.repeat(10)}`; // the pair at units 4095 and 4096
    const path = `/v1/orders/${'p'.repeat(2048 - 12)}😀x`; // the pair at units 2047 and 2048
    const ctx = answered(path, 404, body);
    (ctx.request as { rawBody?: string }).rawBody = body;
    observe(ctx, {
      ms: 1,
      error: Object.assign(new Error(`${'m'.repeat(2047)}😀`), { code: 'E_NOTFOUND', status: 404, headers: {} }) as never,
    });
    const [entry] = log.list();
    for (const text of [entry!.request_body!, entry!.response_body!, entry!.path, entry!.message!]) {
      expect((text as unknown as { isWellFormed(): boolean }).isWellFormed()).toBe(true);
    }
    expect(entry!.request_body).toBe('a'.repeat(4095));
    expect(entry!.response_body).toBe('a'.repeat(4095));
    expect(entry!.path).toBe(path.slice(0, 2047));
    expect(entry!.message).toBe('m'.repeat(2047));
    // A pair that fits whole stays whole.
    expect(entry!.path.length).toBe(2047);
  });

  it('drops a record that cannot be written with a warning, never throwing into the answer', () => {
    const warn = vi.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    try {
      const log = new RequestLog(10);
      const observe = recordRequests(log, { now: () => 0 }, { now: () => 0 });
      const broken = answered('/v1/networks', 200, '{}');
      Object.defineProperty(broken, 'res', {
        get: () => {
          throw new Error('broken record');
        },
      });
      expect(() => observe(broken, { ms: 1 })).not.toThrow();
      expect(warn).toHaveBeenCalledWith('request inspector: a request could not be recorded: broken record');
      observe(answered('/v1/orders/ord_x', 404, '{}'), { ms: 1 });
      expect(log.list().map((e) => e.path)).toEqual(['/v1/orders/ord_x']);
    } finally {
      warn.mockRestore();
    }
  });

  it('records nothing outside /v1, and a read right after an answer sees it', () => {
    const log = new RequestLog(10);
    const observe = recordRequests(log, { now: () => 0 }, { now: () => 0 });
    observe(answered('/sandbox/requests', 200, '{}'), { ms: 1 });
    observe(answered('/v1', 404, '{}'), { ms: 1 });
    expect(log.list().map((e) => e.path)).toEqual(['/v1']);
  });
});
