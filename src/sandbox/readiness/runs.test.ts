import { describe, expect, it } from 'vitest';
import { createBus } from '../../shared/bus';
import { FaultStore } from '../../http/faults/fault.store';
import type { RawRecord } from '../../http/inspector/request-log.record';
import type { RequestEvents } from '../../http/inspector/recorder';
import type { DeliveryEvents } from '../../webhooks';
import { createReadiness, MAX_RUN_REQUESTS, MAX_RUNS_PER_PARTNER, type ReadinessDeps } from './runs';

// CONTRACT §21: memory per run is bounded (facts, runs per partner), and only the partner's traffic counts.
function setup() {
  const bus = createBus<RequestEvents & DeliveryEvents>();
  const faults = new FaultStore(1);
  const deps: ReadinessDeps = {
    bus,
    wall: { now: () => 1_000_000 },
    partners: { get: (id: string) => (id.startsWith('ptr_') ? ({ client_id: id } as never) : undefined) },
    orders: { store: { get: () => undefined, byMerchantReference: () => undefined }, endQuote: () => false },
    dispatcher: { enqueue: () => ({ id: 'dlv_x' }) as never, get: () => undefined },
    faults,
    seed: 1,
  };
  const readiness = createReadiness(deps);
  const request = (clientId: string, n: number): RawRecord => ({
    wallMs: 1_000_000 + n,
    virtualMs: 0,
    method: 'GET',
    path: '/v1/networks',
    status: 200,
    ms: 1,
    auth: 'secret',
    clientId,
    environment: 'test',
    headers: { authorization: 'Bearer sk_test_****abcd' },
  });
  return { bus, faults, readiness, request };
}

describe('readiness runs', () => {
  it(`keeps at most ${MAX_RUN_REQUESTS} request facts per run, then says it stopped counting`, () => {
    const { bus, readiness, request } = setup();
    const run = readiness.open({ client_id: 'ptr_a', probes: false });
    for (let i = 0; i < MAX_RUN_REQUESTS + 5; i++) bus.emit('request.recorded', { id: `req_${i}`, raw: request('ptr_a', i) });
    expect(readiness.report(run.id).counted).toEqual({ requests: MAX_RUN_REQUESTS, deliveries: 0, truncated: true });
  });

  it("counts only the open partner's requests, and none once no run is open (it stops listening)", () => {
    const { bus, readiness, request } = setup();
    const run = readiness.open({ client_id: 'ptr_a', probes: false });
    bus.emit('request.recorded', { id: 'req_1', raw: request('ptr_b', 1) });
    bus.emit('request.recorded', { id: 'req_2', raw: request('ptr_a', 2) });
    expect(readiness.report(run.id).counted.requests).toBe(1);
    readiness.finish(run.id);
    expect(bus.has('request.recorded')).toBe(false);
    expect(readiness.openCount).toBe(0);
  });

  it(`keeps at most ${MAX_RUNS_PER_PARTNER} runs per partner, dropping the oldest`, () => {
    const { readiness } = setup();
    const ids = Array.from({ length: MAX_RUNS_PER_PARTNER + 3 }, () => readiness.open({ client_id: 'ptr_a', probes: false }).id);
    const listed = readiness.list('ptr_a').map((r) => r.id);
    expect(listed).toEqual(ids.slice(-MAX_RUNS_PER_PARTNER).reverse());
    expect(() => readiness.report(ids[0]!)).toThrow(/No readiness run/);
  });

  it('arms the request probes as labelled faults for the partner and removes those still armed when the run ends', () => {
    const { faults, readiness } = setup();
    const run = readiness.open({ client_id: 'ptr_a' });
    expect(faults.list().map((f) => [f.client_id, f.method, f.path, f.phase, f.error?.status, f.times, f.note])).toEqual([
      ['ptr_a', 'POST', '/v1/orders', 'after', 503, 1, `readiness probe: lost response (${run.id})`],
      ['ptr_a', 'GET', '/v1/**', 'before', 429, 1, `readiness probe: rate limited (${run.id})`],
    ]);
    readiness.finish(run.id);
    expect(faults.list()).toEqual([]);
  });

  it('a receiver-only run arms no request probe and reports its client checks not exercised', () => {
    const { faults, readiness } = setup();
    const run = readiness.open({ client_id: 'ptr_a', scope: 'receiver' });
    expect(faults.list()).toEqual([]);
    expect(run.probes.map((p) => p.kind).sort()).toEqual([
      'bad_signature',
      'duplicate',
      'out_of_order',
      'stale_timestamp',
      'tampered_body',
    ]);
    expect(run.checks.filter((c) => c.side === 'client').every((c) => c.status === 'not_exercised' && c.applies)).toBe(true);
    expect(run.verdict).toBe('incomplete');
  });
});
