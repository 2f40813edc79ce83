// examples/integrations/README.md runs as written: `run.ts` against a running sandbox prints the
// readiness report, one line per check, and exits 0 only when the verdict is `ready`.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VARIANTS } from '../../examples/integrations/mistakes';
import { startTestServer, type TestServer } from '../support/server';

const run = promisify(execFile);
const root = new URL('../../', import.meta.url).pathname;
const TSX = `${root}node_modules/.bin/tsx`;
const RUN = `${root}examples/integrations/run.ts`;

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer({ seed: 40 });
});
afterAll(() => s.close());

describe('examples/integrations/run.ts', () => {
  it('runs the reference against a sandbox: ready, every check passed, exit 0', async () => {
    const { stdout } = await run(TSX, [RUN, '--sandbox', s.url]);
    const lines = stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^readiness run rdy_\w+ for ptr_\w+: ready$/);
    expect(lines.slice(1).filter((l) => l.startsWith('pass  '))).toHaveLength(17);
  }, 30_000);

  it('runs a variant: not_ready, its check marked FAIL with the fix, exit 1', async () => {
    const failure = await run(TSX, [RUN, '--sandbox', s.url, '--variant', 'accept-stale']).catch(
      (e: { code: number; stdout: string }) => e,
    );
    expect('code' in failure ? failure.code : 0).toBe(1);
    expect(failure.stdout).toMatch(/: not_ready\n/);
    expect(failure.stdout.split('\n').filter((l) => l.startsWith('FAIL'))).toEqual([
      expect.stringMatching(/^FAIL {2}stale_timestamp +spec §6\.5 rule 3 +refuse a delivery/),
    ]);
  }, 30_000);

  it('lists every variant with the checks it must fail', async () => {
    const { stdout } = await run(TSX, [RUN, '--list']);
    expect(
      stdout
        .trim()
        .split('\n')
        .map((l) => l.split(' ')[0]),
    ).toEqual(VARIANTS.map((v) => v.id));
  });
});
