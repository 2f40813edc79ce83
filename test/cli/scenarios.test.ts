import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
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
    const { stdout } = await run(TSX, [CLI, ...args], { env: { ...process.env, CI: 'true' } });
    return { code: 0, stdout };
  } catch (error) {
    const e = error as { code: number; stdout: string };
    return { code: e.code, stdout: e.stdout };
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
    writeFileSync(join(dir, 'fails.yaml'), 'name: fails\nsteps:\n  - quote: { from: { currency: NGN, amount: 5 }, to: { currency: USDT, network: base-sepolia } }\n');
    writeFileSync(join(dir, 'bad.yaml'), 'name: bad\nsteps:\n  - advance: {}\n');
    const failing = await cli([join(dir, 'fails.yaml')]);
    expect(failing.code).toBe(1);
    expect(failing.stdout).toMatch(/step 1 \(quote\): request failed with 400/);
    const bad = await cli([join(dir, 'bad.yaml')]);
    expect(bad.code).toBe(2);
    expect(bad.stdout).toMatch(/bad\.yaml: step 1: steps\.0\.advance/);
  });
});
