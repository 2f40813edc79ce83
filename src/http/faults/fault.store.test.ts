import { describe, expect, it } from 'vitest';
import { FaultsStateSchema } from './fault.schemas';
import { FaultStore } from './fault.store';
import { globMatches } from './glob';

const req = (path: string, over: Partial<{ clientId: string; env: 'test' | 'live'; method: string }> = {}) => ({
  clientId: 'ptr_a',
  env: 'test' as const,
  method: 'GET',
  path,
  ...over,
});

describe('fault globs (CONTRACT §12)', () => {
  it('matches * as one segment and ** as any number', () => {
    expect(globMatches('/v1/orders/*', '/v1/orders/ORD1')).toBe(true);
    expect(globMatches('/v1/orders/*', '/v1/orders/ORD1/cancel')).toBe(false);
    expect(globMatches('/v1/orders/*', '/v1/orders')).toBe(false);
    expect(globMatches('/v1/**', '/v1/orders/ORD1/cancel')).toBe(true);
    expect(globMatches('/v1/**', '/v1')).toBe(true);
    expect(globMatches('/v1/orders/*/cancel', '/v1/orders/X/cancel')).toBe(true);
    expect(globMatches('/v1/orders', '/v1/orders/quote')).toBe(false);
    expect(globMatches('/v1/net*', '/v1/networks')).toBe(true);
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

describe('FaultsStateSchema (CONTRACT §13: the same rules as POST /sandbox/faults)', () => {
  const stored = (over: Record<string, unknown> = {}) => ({
    id: 'flt_1',
    phase: 'before',
    remaining: null,
    applied: 0,
    error: { status: 500 },
    ...over,
  });
  const doc = (fault: Record<string, unknown>, serial = 1) => ({ faults: [fault], serial, rng_state: 7 });
  const firstIssue = (value: unknown) => {
    const result = FaultsStateSchema.safeParse(value);
    return result.success ? undefined : `${result.error.issues[0]!.path.join('.')}: ${result.error.issues[0]!.message}`;
  };

  it('accepts what a store exports', () => {
    const faults = new FaultStore(3);
    faults.add({ path: '/v1/orders/*', method: 'POST', error: { status: 503, rate: 0.5 }, times: 3 });
    faults.add({ latency_ms: { min: 1, max: 5 }, drop: 0.1, phase: 'after' });
    faults.match(req('/v1/orders/X', { method: 'POST' }));
    expect(FaultsStateSchema.parse(faults.exportState())).toEqual(faults.exportState());
  });

  it('refuses fault fields the route would refuse, naming the field', () => {
    expect(firstIssue(doc(stored({ error: { status: 999 } })))).toMatch(/^faults\.0\.error\.status: /);
    expect(firstIssue(doc(stored({ error: { status: 42 } })))).toMatch(/^faults\.0\.error\.status: /);
    expect(firstIssue(doc(stored({ error: { status: 500, rate: 1.5 } })))).toMatch(/^faults\.0\.error\.rate: /);
    expect(firstIssue(doc(stored({ drop: -0.1 })))).toMatch(/^faults\.0\.drop: /);
    expect(firstIssue(doc(stored({ latency_ms: { min: 5, max: 1 } })))).toMatch(/^faults\.0\.latency_ms/);
    expect(firstIssue(doc(stored({ latency_ms: 120_001 })))).toMatch(/^faults\.0\.latency_ms/);
    expect(firstIssue(doc(stored({ path: `/v1/${'a'.repeat(297)}` })))).toBe('faults.0.path: must be at most 300 characters');
    expect(firstIssue(doc(stored({ path: `/v1/${'a'.repeat(296)}` })))).toBeUndefined();
    expect(firstIssue(doc(stored({ path: '/sandbox/clock' })))).toMatch(/^faults\.0\.path: must be a \/v1 path glob/);
    expect(firstIssue(doc(stored({ times: 0, remaining: 0 })))).toMatch(/^faults\.0\.times: /);
    expect(firstIssue(doc(stored({ times: 2, remaining: 3 })))).toMatch(/^faults\.0\.remaining: /);
    expect(firstIssue(doc(stored({ remaining: 1 })))).toMatch(/^faults\.0\.remaining: /);
    expect(firstIssue(doc(stored({ error: undefined })))).toMatch(/^faults\.0\.error: give at least one/);
    expect(firstIssue(doc(stored({ method: 'GET /' })))).toMatch(/^faults\.0\.method: /);
    expect(firstIssue(doc(stored({ id: 'flt_x' })))).toMatch(/^faults\.0\.id: /);
    expect(firstIssue({ ...doc(stored()), rng_state: 2 ** 32 })).toMatch(/^rng_state: /);
  });

  it('refuses a serial behind a stored fault id (new ids would clash)', () => {
    expect(firstIssue(doc(stored({ id: 'flt_5' }), 4))).toBe(
      'serial: is 4, behind fault id flt_5: must be at least 5 (new fault ids would clash)',
    );
    expect(firstIssue(doc(stored({ id: 'flt_5' }), 5))).toBeUndefined();
  });

  it('restore keeps new ids unique even from a serial behind a stored id', () => {
    const faults = new FaultStore();
    faults.restore({ faults: [stored({ id: 'flt_5' }) as never], serial: 1, rng_state: 1 });
    expect(faults.add({ error: { status: 500 } }).id).toBe('flt_6');
  });
});

describe('faults in time and the new kinds (CONTRACT §22)', () => {
  it('applies a fault only inside its window (virtual time), resolved from durations when added', () => {
    let now = Date.UTC(2026, 0, 15, 12);
    const faults = new FaultStore(1, () => now);
    const f = faults.add({ error: { status: 503 }, window: { from: '1m', to: '2m' } });
    expect(f.window).toEqual({ from: '2026-01-15T12:01:00.000Z', to: '2026-01-15T12:02:00.000Z' });
    expect(faults.match(req('/v1/orders'))).toBeUndefined();
    now += 60_000;
    expect(faults.match(req('/v1/orders'))?.errorStatus).toBe(503);
    now += 60_000;
    expect(faults.match(req('/v1/orders'))).toBeUndefined();
    expect(faults.get(f.id)).toMatchObject({ applied: 1 });
  });

  it('refuses a window that is empty or already over (422)', () => {
    const faults = new FaultStore(1, () => Date.UTC(2026, 0, 15, 12));
    expect(() => faults.add({ drop: 1, window: { from: '2026-01-15T12:10:00Z', to: '5m' } })).toThrow(/^window\.to: must be after from/);
    expect(() => faults.add({ drop: 1, window: { to: '2026-01-15T12:00:00Z' } })).toThrow(/^window\.to: is already past/);
    expect(faults.size).toBe(0);
  });

  it('lets the first `skip` matches through, then applies `times` times', () => {
    const faults = new FaultStore();
    const f = faults.add({ reset: 1, skip: 2, times: 1 });
    expect(faults.match(req('/v1/orders'))).toBeUndefined();
    expect(faults.match(req('/v1/orders'))).toBeUndefined();
    expect(faults.get(f.id)).toMatchObject({ skipped: 2, applied: 0 });
    expect(faults.match(req('/v1/orders'))).toMatchObject({ reset: true, drop: false, malformed: false });
    expect(faults.size).toBe(0);
  });

  it('decides each kind in a fixed order from the seed: the same seed, the same decisions', () => {
    const run = (seed: number) => {
      const faults = new FaultStore(seed);
      faults.add({ drop: 0.2, reset: 0.2, error: { status: 500, rate: 0.3 }, malformed: 0.3, truncate: 4 });
      return Array.from({ length: 200 }, () => {
        const e = faults.match(req('/v1/orders'));
        return e ? `${e.drop ? 'D' : ''}${e.reset ? 'R' : ''}${e.errorStatus ?? ''}${e.malformed ? 'M' : ''}${e.truncate ?? ''}` : '-';
      }).join(' ');
    };
    expect(run(3)).toBe(run(3));
    expect(run(3)).not.toBe(run(4));
    for (const kind of ['D', 'R', '5004', 'M4']) expect(run(3).split(' ')).toContain(kind);
    // a dropped or reset connection has no answer to cut
    expect(run(3)).not.toMatch(/[DR]4/);
  });
});
