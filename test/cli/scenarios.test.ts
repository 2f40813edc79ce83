import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const TSX = new URL('../../node_modules/.bin/tsx', import.meta.url).pathname;
const CLI = new URL('../../src/cli/run-scenarios.ts', import.meta.url).pathname;
const LIBRARY = new URL('../../scenarios/', import.meta.url).pathname;

const cli = async (args: string[]) => {
  try {
    const { stdout, stderr } = await run(TSX, [CLI, ...args], { env: { ...process.env, CI: 'true' } });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
};

describe('npm run scenarios (CONTRACT §6)', () => {
  it('exits 0 and prints the summary when the picked files pass', async () => {
    const res = await cli([join(LIBRARY, 'swap-happy-path.yaml'), join(LIBRARY, 'cancel.yaml')]);
    expect(res.code).toBe(0);
    expect(res.stdout).toMatch(/✓ swap happy path/);
    expect(res.stdout).toMatch(/^2 passed, 0 failed$/m);
  });

  it('exits 1 when a scenario fails, and 2 when a file is rejected', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cli-'));
    writeFileSync(
      join(dir, 'fails.yaml'),
      'name: fails\nsteps:\n  - quote: { from: { currency: NGN, amount: 5 }, to: { currency: USDT, network: base-sepolia } }\n',
    );
    writeFileSync(join(dir, 'bad.yaml'), 'name: bad\nsteps:\n  - advance: {}\n');
    const failing = await cli([join(dir, 'fails.yaml')]);
    expect(failing.code).toBe(1);
    expect(failing.stdout).toMatch(/step 1 \(quote\): request failed with 400/);
    const bad = await cli([join(dir, 'bad.yaml')]);
    expect(bad.code).toBe(2);
    expect(bad.stdout).toMatch(/bad\.yaml: step 1: steps\.0\.advance/);
  });

  it('checks the --junit path before running: exit 2, one line naming the path and why, no stack trace', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cli-'));
    // A folder that does not exist (as a mount the user forgot), then a path that is a folder.
    // (Not a read-only folder: these tests may run as root, which writes anywhere.)
    const missing = join(dir, 'no-such-folder', 'report.xml');
    const res = await cli(['cancel', '--junit', missing]);
    expect(res.code).toBe(2);
    expect(res.stderr).toBe(`--junit ${missing}: cannot write the report there: folder ${join(dir, 'no-such-folder')} does not exist\n`);
    expect(res.stdout).not.toMatch(/cancel/); // nothing ran
    const folder = await cli(['cancel', '--junit', dir]);
    expect(folder.code).toBe(2);
    expect(folder.stderr).toBe(`--junit ${dir}: cannot write the report there: it is a folder\n`);
  });

  it('writes the report where --junit can write', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'cli-')), 'report.xml');
    const res = await cli(['cancel', '--junit', file]);
    expect(res.code).toBe(0);
    expect(readFileSync(file, 'utf8')).toMatch(/<testsuites tests="1" failures="0"/);
  });
});
