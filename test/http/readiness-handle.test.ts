import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SandboxError, startSandbox, type ReadinessReport, type SandboxHandle } from '../../src';
import { signedHeaders } from '../support/sign';

// CONTRACT §21 in process: `sandbox.readiness.open(…)`, `.report(id)`, `.finish(id)`, `.list(clientId)`.
let s: SandboxHandle;
beforeAll(async () => {
  s = await startSandbox();
});
afterAll(() => s.close());

describe('sandbox.readiness (the in-process handle)', () => {
  it('opens, reports, finishes and lists runs; an unknown run is a SandboxError 404', async () => {
    const opened: ReadinessReport = await s.readiness.open({ client_id: s.partner.clientId, probes: false });
    expect(opened).toMatchObject({ client_id: s.partner.clientId, environment: 'test', scope: 'all', verdict: 'incomplete' });
    const path = '/v1/networks';
    const res = await fetch(s.url + path, {
      headers: signedHeaders({ clientId: s.partner.clientId, keys: s.partner.test, method: 'GET', path }),
    });
    expect(res.status).toBe(200);
    expect((await s.readiness.report(opened.id)).checks.find((c) => c.id === 'signing')?.status).toBe('pass');
    const final = await s.readiness.finish(opened.id);
    expect(final.finished_at).toEqual(expect.any(String));
    expect((await s.readiness.list(s.partner.clientId)).map((r) => r.id)).toEqual([opened.id]);
    expect((await s.readiness.list()).map((r) => r.id)).toEqual([opened.id]);
    const missing = await s.readiness.report('rdy_404').catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(SandboxError);
    expect(missing).toMatchObject({ status: 404, code: 'E_NOTFOUND' });
  });
});
