// The readiness matrix (issue 40 item 4, CONTRACT §21): the reference partner integration of
// examples/integrations runs one session in a readiness run and is `ready`, failing no check;
// each variant, the reference with one mistake switched on, is `not_ready` and fails exactly the
// checks in its row of VARIANTS (examples/integrations/mistakes.ts, shown in docs/readiness.md).
//
// Deterministic: a fixed seed and a manual virtual clock; each session gets a sandbox of its own,
// so every run sees the same probe schedule. The only waits are the integration's own (a second
// between two reads of an order, spec §8; Retry-After, CONTRACT §3), which it must keep.
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { startSandbox, type SandboxHandle } from '../../src';
import { VARIANTS, type CheckId } from '../../examples/integrations/mistakes';
import { runSession, type SessionResult } from '../../examples/integrations/session';

const SEED = 40;
/**
 * The slow variant's sandbox cuts a receiver off after 1 s (`webhookTimeoutMs`, CONTRACT §5), and
 * its work takes 1.5 s: the attempt times out, which `ack_fast` counts as not acknowledged in
 * time, as it would a 2xx after 5 s. The matrix then waits 1.5 s for it, not 5.5.
 */
const SLOW = { webhookTimeoutMs: 1_000, slowWorkMs: 1_500 };

let sandbox: SandboxHandle | undefined;
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
});

async function session(variant?: string, timeoutMs?: number): Promise<SessionResult> {
  sandbox = await startSandbox({ seed: SEED, ...(timeoutMs ? { webhookTimeoutMs: timeoutMs } : {}) });
  return runSession({ sandboxUrl: sandbox.url, variant, slowWorkMs: SLOW.slowWorkMs });
}

const failed = (r: SessionResult): string[] =>
  r.report.checks
    .filter((c) => c.status === 'fail')
    .map((c) => c.id)
    .sort();

/** A check's status and evidence notes, for a failure message that says why. */
const explain = (r: SessionResult) =>
  r.report.checks.filter((c) => c.status !== 'pass').map((c) => `${c.id}: ${c.status} ${c.evidence.map((e) => e.note).join('; ')}`);

describe('readiness matrix', () => {
  it('the reference integration is ready: every order completes and no check fails', async () => {
    const r = await session();
    expect(r.errors).toEqual([]);
    expect(r.orders.map((o) => [o.type, o.status])).toEqual([
      ['onramp', 'completed'],
      ['offramp', 'completed'],
      ['swap', 'completed'],
    ]);
    expect(failed(r), explain(r).join('\n')).toEqual([]);
    expect(r.report.verdict, explain(r).join('\n')).toBe('ready');
    // Every check passes on evidence, `recovers` too: the session stages one failed delivery.
    expect(r.report.checks.filter((c) => c.status !== 'pass').map((c) => c.id)).toEqual([]);
    expect(r.report.checks).toHaveLength(17);
  }, 60_000);

  it('has at least twelve variants, one switch each, and every check failed by one of them', () => {
    expect(VARIANTS.length).toBeGreaterThanOrEqual(12);
    expect(new Set(VARIANTS.map((v) => v.mistake)).size).toBe(VARIANTS.length);
    const all: CheckId[] = [
      'signing',
      'timestamp_ms',
      'raw_body',
      'key_environment',
      'reference_data',
      'account_lookup',
      'quote_ttl',
      'validation_retry',
      'rate_limit',
      'idempotent_create',
      'polling',
      'ack_fast',
      'verify_signature',
      'stale_timestamp',
      'duplicates',
      'out_of_order',
      'recovers',
    ];
    expect(all.filter((c) => !VARIANTS.some((v) => v.fails.includes(c)))).toEqual([]);
  });

  it('docs/readiness.md shows this matrix: each variant, its checks and its clause', () => {
    const doc = readFileSync(new URL('../../docs/readiness.md', import.meta.url), 'utf8');
    const section = doc.slice(doc.indexOf('## The matrix'));
    const rows = [...section.matchAll(/^\| `([a-z0-9-]+)` \| [^|]+ \| ([^|]+) \| ([^|]+) \|$/gm)].map(([, id, checks, clause]) => ({
      id,
      fails: [...(checks ?? '').matchAll(/`([a-z_]+)`/g)].map((m) => m[1]),
      clause: (clause ?? '').trim(),
    }));
    expect(rows).toEqual(VARIANTS.map((v) => ({ id: v.id, fails: v.fails, clause: v.clause })));
  });

  it.each(VARIANTS.map((v) => [v.id, v] as const))(
    '%s is not_ready, failing exactly its checks',
    async (id, v) => {
      const r = await session(id, v.mistake === 'slowAcknowledgement' ? SLOW.webhookTimeoutMs : undefined);
      expect(failed(r), explain(r).join('\n')).toEqual([...v.fails].sort());
      expect(r.report.verdict).toBe('not_ready');
    },
    60_000,
  );
});
