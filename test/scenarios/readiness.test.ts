import { createHmac, timingSafeEqual } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_SCENARIO_DIR, runAll } from '../../src/scenario-runner';
import { startScenarioSandbox } from '../../src/cli/scenario-sandbox';

// CONTRACT §21: the scenario runner produces a readiness report of the partner's receiver.
const keys = (env: string, c: string) => ({
  public_key: `pk_${env}_${c.repeat(24)}`,
  secret_key: `sk_${env}_${c.repeat(24)}`,
  encryption_key: `enc_${env}_${c.repeat(24)}`,
});
const identity = { client_id: 'partner_readiness', keys: { test: keys('test', 'r'), live: keys('live', 's') } };

/** A receiver as a partner writes it: verifies (spec §6.4), refuses stale, dedupes on reference + event; `acceptsAnything` plants the bug. */
async function partnerReceiver(acceptsAnything: boolean) {
  const server = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const ts = String(req.headers['svc-timestamp']);
      const expected = `sha256=${createHmac('sha256', identity.keys.test.encryption_key).update(`${identity.client_id}|${ts}|POST|${req.url}|${raw}`).digest('hex')}`;
      const given = String(req.headers['svc-signature'] ?? '');
      const valid = given.length === expected.length && timingSafeEqual(Buffer.from(given), Buffer.from(expected));
      const fresh = Math.abs(Date.now() - Number(ts)) < 300_000;
      res.statusCode = acceptsAnything || (valid && fresh) ? 200 : 401;
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

function files() {
  const dir = mkdtempSync(join(tmpdir(), 'readiness-scn-'));
  const partner = join(dir, 'partner.json');
  writeFileSync(partner, JSON.stringify(identity));
  return { partner, report: join(dir, 'readiness.json') };
}

const library = ['onramp-happy-path.yaml', 'offramp-happy-path.yaml', 'cancel.yaml'].map((f) => join(DEFAULT_SCENARIO_DIR, f));

describe('scenarios --readiness FILE', () => {
  it('reports the receiver checks and leaves the client ones not_exercised: a receiver-only run is incomplete, never ready', async () => {
    const target = await partnerReceiver(false);
    const f = files();
    try {
      const run = await runAll({
        startSandbox: startScenarioSandbox,
        files: library,
        targetUrl: target.url,
        partnerFile: f.partner,
        readinessFile: f.report,
        write: () => {},
      });
      expect(run.results.map((r) => r.failure?.error)).toEqual([undefined, undefined, undefined]);
      const report = JSON.parse(readFileSync(f.report, 'utf8'));
      expect(report).toEqual(run.readiness);
      expect(report).toMatchObject({
        client_id: identity.client_id,
        scope: 'receiver',
        verdict: 'incomplete',
        finished_at: expect.any(String),
      });
      const by = (side: string) => Object.fromEntries(report.checks.filter((c: any) => c.side === side).map((c: any) => [c.id, c.status]));
      expect(Object.values(by('client'))).toEqual(Array(11).fill('not_exercised'));
      expect(by('receiver')).toEqual({
        ack_fast: 'pass',
        verify_signature: 'pass',
        stale_timestamp: 'pass',
        duplicates: 'pass',
        out_of_order: 'pass',
        recovers: 'not_exercised',
      });
    } finally {
      await target.close();
    }
  }, 60_000);

  it("with the built-in receiver: the probes it refuses are not the scenarios' deliveries, so the scenarios still pass", async () => {
    const f = files();
    const run = await runAll({
      startSandbox: startScenarioSandbox,
      files: library,
      partnerFile: f.partner,
      readinessFile: f.report,
      write: () => {},
    });
    expect(run.results.map((r) => r.failure?.error)).toEqual([undefined, undefined, undefined]);
    expect(run.readiness!.checks.filter((c) => c.side === 'receiver').map((c) => c.status)).toEqual([
      'pass',
      'pass',
      'pass',
      'pass',
      'pass',
      'not_exercised',
    ]);
  }, 60_000);

  it('is not_ready for a receiver that accepts a bad signature', async () => {
    const target = await partnerReceiver(true);
    const f = files();
    try {
      const run = await runAll({
        startSandbox: startScenarioSandbox,
        files: library,
        targetUrl: target.url,
        partnerFile: f.partner,
        readinessFile: f.report,
        write: () => {},
      });
      expect(run.readiness!.verdict).toBe('not_ready');
      expect(run.readiness!.checks.filter((c) => c.status === 'fail').map((c) => c.id)).toEqual(['verify_signature', 'stale_timestamp']);
    } finally {
      await target.close();
    }
  }, 60_000);
});
