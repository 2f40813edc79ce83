import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli';
import { startTestServer, type TestServer } from '../support/server';

// CONTRACT §21: `ramp-sandbox readiness --client-id ID [--run ID] [--junit FILE] [--markdown FILE] [--fail-on …]`.
let s: TestServer;
let dir: string;
beforeAll(async () => {
  // The sandbox's wall clock stands still: the two reads below come 0 ms apart, whatever the machine's load.
  const frozen = Date.now();
  s = await startTestServer({ wall: { now: () => frozen } });
  dir = mkdtempSync(join(tmpdir(), 'readiness-cli-'));
});
afterAll(async () => {
  await s?.close();
  rmSync(dir, { recursive: true, force: true });
});

const readiness = (...args: string[]) =>
  runCli(['readiness', '--sandbox', s.url, ...args], { env: { SANDBOX_ADMIN_TOKEN: undefined, NO_COLOR: '1' } });

describe('ramp-sandbox readiness', () => {
  it('opens a run (prints its id), then finishes it: a table with clause and fix, the files, exit by verdict', async () => {
    const opened = await readiness('--client-id', s.demo.clientId, '--open', '--no-probes');
    expect(opened).toMatchObject({ code: 0, stderr: '' });
    const id = opened.stdout.trim();
    expect(id).toMatch(/^rdy_\d+$/);
    // The partner polls one order too often: polling fails.
    const order = (
      await s.signed('POST', '/v1/orders', {
        from: { currency: 'NGN', amount: 50_000 },
        to: { currency: 'USDT', network: 'base-sepolia' },
        recipient: { address: '0x52908400098527886E0F7030069857D2E4169EE7' },
        customer: { reference: 'c', name: 'Ada Obi', email: 'ada@example.com' },
      })
    ).body.data;
    await s.signed('GET', `/v1/orders/${order.reference}`);
    await s.signed('GET', `/v1/orders/${order.reference}`);

    const junit = join(dir, 'readiness.xml');
    const markdown = join(dir, 'readiness.md');
    const res = await readiness('--client-id', s.demo.clientId, '--junit', junit, '--markdown', markdown);
    expect(res.code).toBe(1);
    expect(res.stdout).toMatch(new RegExp(`^Readiness ${id} ${s.demo.clientId} \\(test\\): not_ready\\n`));
    expect(res.stdout).toMatch(
      /\n✗ polling +spec §8 +GET order at most once a second per order\n {4}req_\w+ ORD\w+: read again \d+ ms after req_\w+\n {4}fix: poll an order at most once a second/,
    );
    expect(res.stdout).toMatch(/\n✓ signing +spec §5\.2 /);
    expect(readFileSync(junit, 'utf8')).toMatch(
      /<testcase classname="readiness.client" name="polling \(spec §8\)" time="0">\n {6}<failure message="polling: poll an order/,
    );
    expect(readFileSync(markdown, 'utf8')).toMatch(
      new RegExp(`^# Readiness ${id}: not_ready\\n[\\s\\S]*\\| \`polling\` \\| spec §8 \\| fail \\|`),
    );
    // Finished: reporting it again gives the same final report, and --fail-on incomplete still fails it.
    const again = await readiness('--run', id, '--json');
    expect(again.code).toBe(1);
    expect(JSON.parse(again.stdout)).toMatchObject({ id, verdict: 'not_ready', finished_at: expect.any(String) });
  }, 60_000);

  it('exits 0 on an incomplete run unless --fail-on incomplete', async () => {
    const id = (await readiness('--client-id', s.demo.clientId, '--open')).stdout.trim();
    expect((await readiness('--run', id, '--no-finish')).code).toBe(0);
    const res = await readiness('--run', id, '--fail-on', 'incomplete');
    expect(res.code).toBe(1);
    expect(res.stdout).toMatch(/: incomplete\n/);
  }, 60_000);

  it('refuses bad usage in one line (exit 2) and says when there is no run (exit 1)', async () => {
    const bad = await readiness('--client-id', s.demo.clientId, '--fail-on', 'sometimes');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^ramp-sandbox readiness: --fail-on must be not_ready or incomplete, not 'sometimes'\n/);
    const noTarget = await readiness('--junit', '/nonexistent-dir/x.xml', '--client-id', s.demo.clientId);
    expect(noTarget.code).toBe(2);
    expect(noTarget.stderr).toMatch(
      /--junit \/nonexistent-dir\/x\.xml: cannot write the report there: folder \/nonexistent-dir does not exist/,
    );
    const partner = await s.createPartner();
    const none = await readiness('--client-id', partner.clientId);
    expect(none).toMatchObject({
      code: 1,
      stderr: `ramp-sandbox readiness: no readiness run for ${partner.clientId}: open one first (ramp-sandbox readiness --client-id ${partner.clientId} --open)\n`,
    });
    const unknown = await readiness('--run', 'rdy_999');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/answered 404 E_NOTFOUND: No readiness run rdy_999/);
    const empty = await readiness('--run', '');
    expect(empty.code).toBe(2);
    expect(empty.stderr).toMatch(/^ramp-sandbox readiness: --run needs a run id \(rdy_…\)\n/);
    const same = await readiness('--client-id', s.demo.clientId, '--junit', 'r.txt', '--markdown', 'r.txt');
    expect(same.code).toBe(2);
    expect(same.stderr).toMatch(/^ramp-sandbox readiness: --junit and --markdown name the same file \(r\.txt\)/);
  }, 60_000);
});
