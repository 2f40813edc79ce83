import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { webhookSignatureVectorsJson } from '../../src/webhooks';
import { runCli } from '../support/cli';

// CONTRACT §17/§18: `ramp-sandbox vectors [--out FILE]`, offline.
const committed = readFileSync(new URL('../../docs/webhook-signature-vectors.json', import.meta.url), 'utf8');
const dir = mkdtempSync(join(tmpdir(), 'vectors-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('ramp-sandbox vectors', () => {
  it('prints the committed vectors to stdout, with no sandbox running', async () => {
    // Made here: no sandbox is asked, so none needs to run.
    const res = await runCli(['vectors'], { env: { SANDBOX_ADMIN_TOKEN: 'unused' } });
    expect(res).toMatchObject({ code: 0, stderr: '' });
    expect(res.stdout).toBe(committed);
    expect(res.stdout).toBe(webhookSignatureVectorsJson());
  });

  it('writes them to --out FILE and says how many cases', async () => {
    const file = join(dir, 'vectors.json');
    const res = await runCli(['vectors', '--out', file]);
    expect(res).toMatchObject({ code: 0, stdout: '' });
    expect(res.stderr).toMatch(/^ramp-sandbox vectors: wrote \d+ cases to .*vectors\.json\n$/);
    expect(readFileSync(file, 'utf8')).toBe(committed);
  });

  it('refuses a file it cannot write with one line and exit 1', async () => {
    const res = await runCli(['vectors', '--out', join(dir, 'no', 'such', 'dir', 'v.json')]);
    expect(res.code).toBe(1);
    expect(res.stdout).toBe('');
    expect(res.stderr).toMatch(
      /^ramp-sandbox vectors: cannot write .*v\.json: no such file or folder \(ENOENT\); a file already there is unchanged\n$/,
    );
  });

  it('refuses bad usage with exit 2 and the usage, never a stack trace', async () => {
    const bad = [
      ['vectors', '--sandbox', 'http://127.0.0.1:1'],
      ['vectors', 'extra'],
      ['vectors', '--out'],
      ['vectors', '--out', ''],
      ['vectors', `--${'x'.repeat(5000)}`],
    ];
    const results = await Promise.all(bad.map((args) => runCli(args)));
    for (const [i, res] of results.entries()) {
      expect(res.code, bad[i]!.join(' ').slice(0, 80)).toBe(2);
      expect(res.stderr).toMatch(/^ramp-sandbox vectors: .*\n\nUsage: ramp-sandbox vectors/);
      expect(res.stderr).not.toMatch(/\n\s+at /);
    }
    const help = await runCli(['vectors', '--help']);
    expect(help).toMatchObject({ code: 0, stderr: '' });
    expect(help.stdout).toMatch(/^Usage: ramp-sandbox vectors \[--out FILE\]/);
  });
});
