import { describe, expect, it } from 'vitest';
import { FaultStore, globToRegExp } from './fault.store';

const req = (path: string, over: Partial<{ clientId: string; env: 'test' | 'live'; method: string }> = {}) => ({
  clientId: 'ptr_a',
  env: 'test' as const,
  method: 'GET',
  path,
  ...over,
});

describe('fault globs (CONTRACT §12)', () => {
  it('matches * as one segment and ** as any number', () => {
    expect(globToRegExp('/v1/orders/*').test('/v1/orders/ORD1')).toBe(true);
    expect(globToRegExp('/v1/orders/*').test('/v1/orders/ORD1/cancel')).toBe(false);
    expect(globToRegExp('/v1/orders/*').test('/v1/orders')).toBe(false);
    expect(globToRegExp('/v1/**').test('/v1/orders/ORD1/cancel')).toBe(true);
    expect(globToRegExp('/v1/**').test('/v1')).toBe(true);
    expect(globToRegExp('/v1/orders/*/cancel').test('/v1/orders/X/cancel')).toBe(true);
    expect(globToRegExp('/v1/orders').test('/v1/orders/quote')).toBe(false);
    expect(globToRegExp('/v1/net*').test('/v1/networks')).toBe(true);
  });
});

describe('FaultStore', () => {
  it('matches by partner, environment, method and path, first fault first', () => {
    const faults = new FaultStore();
    const a = faults.add({ client_id: 'ptr_b', error: { status: 500 } });
    const b = faults.add({ environment: 'live', method: 'POST', path: '/v1/orders', error: { status: 503 } });
    const c = faults.add({ path: '/v1/networks', latency_ms: 5 });
    expect(faults.match(req('/v1/orders', { clientId: 'ptr_b' }))?.fault.id).toBe(a.id);
    expect(faults.match(req('/v1/orders', { env: 'live', method: 'POST' }))?.errorStatus).toBe(503);
    expect(faults.match(req('/v1/orders', { env: 'test', method: 'POST' }))).toBeUndefined();
    expect(faults.match(req('/v1/networks?x=1'))).toMatchObject({ fault: { id: c.id }, latencyMs: 5 });
    expect(b.phase).toBe('before');
  });

  it('removes a fault after `times` applications', () => {
    const faults = new FaultStore();
    faults.add({ error: { status: 429 }, times: 2 });
    expect(faults.match(req('/v1/x'))?.errorStatus).toBe(429);
    expect(faults.match(req('/v1/x'))?.errorStatus).toBe(429);
    expect(faults.match(req('/v1/x'))).toBeUndefined();
    expect(faults.size).toBe(0);
  });

  it('applies rates from a seeded generator: the same seed injects the same faults', () => {
    const run = (seed: number) => {
      const faults = new FaultStore(seed);
      faults.add({ error: { status: 500, rate: 0.3 } });
      return Array.from({ length: 200 }, () => (faults.match(req('/v1/x')) ? 1 : 0));
    };
    const one = run(7);
    expect(run(7)).toEqual(one);
    const hits = one.reduce<number>((a, b) => a + b, 0);
    expect(hits).toBeGreaterThan(30);
    expect(hits).toBeLessThan(90);
  });

  it('draws latency within a range', () => {
    const faults = new FaultStore();
    faults.add({ latency_ms: { min: 10, max: 20 } });
    for (let i = 0; i < 50; i++) {
      const ms = faults.match(req('/v1/x'))!.latencyMs;
      expect(ms).toBeGreaterThanOrEqual(10);
      expect(ms).toBeLessThanOrEqual(20);
    }
  });
});
