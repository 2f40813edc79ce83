import { createHmac, timingSafeEqual } from 'node:crypto';
import { writeFileSync, mkdtempSync, readFileSync } from 'node:fs';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runAll, DEFAULT_SCENARIO_DIR } from '../../src/scenario-runner';
import { startScenarioSandbox } from '../../src/cli/scenario-sandbox';

const keys = (env: string, c: string) => ({
  public_key: `pk_${env}_${c.repeat(24)}`,
  secret_key: `sk_${env}_${c.repeat(24)}`,
  encryption_key: `enc_${env}_${c.repeat(24)}`,
});
const identity = { client_id: 'partner_under_test', keys: { test: keys('test', 'x'), live: keys('live', 'y') } };

type Bug = 'none' | 'accepts_bad_signature' | 'fails_duplicates';

/**
 * A partner's receiver, as a partner would write it, with one planted bug. It knows the
 * partner's keys (the --partner file), verifies per spec §6.4 and dedupes on reference+event.
 */
async function partnerReceiver(bug: Bug) {
  const seen = new Set<string>();
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
      if ((!valid && bug !== 'accepts_bad_signature') || !fresh) {
        res.statusCode = 401;
        res.end();
        return;
      }
      const body = JSON.parse(raw);
      const id = `${body.data?.reference}|${body.event}`;
      if (seen.has(id) && bug === 'fails_duplicates') {
        res.statusCode = 500;
        res.end('already have it');
        return;
      }
      seen.add(id);
      res.end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

function partnerFile(text = JSON.stringify(identity)): string {
  const file = join(mkdtempSync(join(tmpdir(), 'partner-')), 'partner.json');
  writeFileSync(file, text);
  return file;
}

/** The happy path run with `--partner FILE` against a correct receiver: no file refused, no step failed. */
async function expectHappyPathWith(file: string): Promise<void> {
  const target = await partnerReceiver('none');
  try {
    const run = await runAll({
      startSandbox: startScenarioSandbox,
      files: [join(DEFAULT_SCENARIO_DIR, 'onramp-happy-path.yaml')],
      targetUrl: target.url,
      partnerFile: file,
      write: () => {},
    });
    expect(run.fileErrors).toEqual([]);
    expect(run.results.map((r) => r.failure?.error)).toEqual([undefined]);
  } finally {
    await target.close();
  }
}

const adversarial = join(DEFAULT_SCENARIO_DIR, 'adversarial-deliveries.yaml');

describe('--target: a partner receiver with keys it already holds (--partner)', () => {
  it('passes against a correct receiver', async () => {
    const target = await partnerReceiver('none');
    try {
      const run = await runAll({
        startSandbox: startScenarioSandbox,
        files: [adversarial, join(DEFAULT_SCENARIO_DIR, 'onramp-happy-path.yaml')],
        targetUrl: target.url,
        partnerFile: partnerFile(),
        write: () => {},
      });
      expect(run.results.map((r) => r.failure?.error)).toEqual([undefined, undefined]);
    } finally {
      await target.close();
    }
  });

  it('fails on a receiver that accepts a bad signature, naming the step and the bug', async () => {
    const target = await partnerReceiver('accepts_bad_signature');
    let out = '';
    try {
      const run = await runAll({
        startSandbox: startScenarioSandbox,
        files: [adversarial],
        targetUrl: target.url,
        partnerFile: partnerFile(),
        write: (t) => (out += t),
      });
      expect(run.ok).toBe(false);
      const f = run.results[0]!.failure!;
      expect(f).toMatchObject({ index: 4, kind: 'deliver' });
      expect(f.error).toMatch(/accepted a delivery with a bad signature: it answered 200, expected 401/);
      expect(out).toMatch(/step 4 \(deliver\): the target accepted a delivery with a bad signature/);
      expect(out).toMatch(/0 passed, 1 failed/);
    } finally {
      await target.close();
    }
  });

  it('fails on a receiver that answers 500 to a duplicate, naming the step and the bug', async () => {
    const target = await partnerReceiver('fails_duplicates');
    try {
      const run = await runAll({
        startSandbox: startScenarioSandbox,
        files: [adversarial],
        targetUrl: target.url,
        partnerFile: partnerFile(),
        write: () => {},
      });
      const f = run.results[0]!.failure!;
      expect(f).toMatchObject({ index: 7, kind: 'deliver' });
      expect(f.error).toMatch(/refused a duplicate delivery .*: it answered 500, expected 2xx/);
    } finally {
      await target.close();
    }
  });

  it('writes a JUnit report naming the failure', async () => {
    const target = await partnerReceiver('accepts_bad_signature');
    const junit = join(mkdtempSync(join(tmpdir(), 'junit-')), 'report.xml');
    try {
      await runAll({
        startSandbox: startScenarioSandbox,
        files: [adversarial],
        targetUrl: target.url,
        partnerFile: partnerFile(),
        junitFile: junit,
        write: () => {},
      });
      const xml = readFileSync(junit, 'utf8');
      expect(xml).toMatch(/<testsuites tests="1" failures="1"/);
      expect(xml).toMatch(
        /<testcase classname="scenarios" name="adversarial deliveries"[^>]*>\s*<failure message="step 4 \(deliver\): the target accepted/,
      );
    } finally {
      await target.close();
    }
  });

  it("takes the control API's answer saved as it came: the envelope {status, message, data}", async () => {
    // `curl -s -X POST …/sandbox/partners … > ci/partner.json` (README "Or run the image").
    const data = { ...identity, name: 'Acme', kyb_status: 'approved', webhook_url: null };
    await expectHappyPathWith(partnerFile(JSON.stringify({ status: true, message: 'Partner created', data })));
  });

  it('takes a --partner file that an editor or PowerShell saved with a byte order mark', async () => {
    // Windows PowerShell 5: `Invoke-WebRequest … | Select -Expand Content | Set-Content -Encoding UTF8 partner.json`.
    await expectHappyPathWith(partnerFile(`\uFEFF${JSON.stringify(identity)}\r\n`));
  });

  it('rejects a malformed --partner file before running', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'partner-')), 'partner.json');
    writeFileSync(file, JSON.stringify({ client_id: 'x', keys: { test: {} } }));
    const run = await runAll({ startSandbox: startScenarioSandbox, files: [adversarial], partnerFile: file, write: () => {} });
    expect(run.ok).toBe(false);
    expect(run.results).toHaveLength(0);
    expect(run.fileErrors[0]!.message).toMatch(/partner\.json: keys\.test\.public_key/);
  });

  it('refuses a --partner file that is missing or not JSON in one line, before running', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'partner-'));
    writeFileSync(join(dir, 'curl-error.json'), 'curl: (7) Failed to connect to 127.0.0.1 port 4010');
    const missing = await runAll({
      startSandbox: startScenarioSandbox,
      files: [adversarial],
      partnerFile: join(dir, 'nope.json'),
      write: () => {},
    });
    expect(missing.fileErrors.map((e) => e.message)).toEqual([`${join(dir, 'nope.json')}: cannot be read (ENOENT)`]);
    const notJson = await runAll({
      startSandbox: startScenarioSandbox,
      files: [adversarial],
      partnerFile: join(dir, 'curl-error.json'),
      write: () => {},
    });
    expect(notJson.results).toHaveLength(0);
    expect(notJson.fileErrors[0]!.message).toMatch(/curl-error\.json: is not JSON \(/);
  });
});
