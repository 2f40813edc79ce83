import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../support/cli';
import { tmpfsForBlock } from '../support/tmpfs';

// A report or export that cannot be written whole (a full disk) leaves the file that was there
// as it was: they were written in place, and a failed write left half a document.
describe('report files on a disk that fills up (a 1 MiB tmpfs)', () => {
  const mounted = tmpfsForBlock(1024 * 1024);

  it('vectors --out: the file there stays whole, no temporary file is left, and one line says so', async (ctx) => {
    const disk = mounted();
    if (typeof disk === 'string') return ctx.skip(disk);
    const file = join(disk.dir, 'vectors.json');
    const good = '{"a file that was there":true}\n';
    writeFileSync(file, good);
    disk.fill(4096); // room for a part of the ~28 KB document only
    const res = await runCli(['vectors', '--out', file]);
    expect(res.code).toBe(1);
    expect(res.stderr).toBe(
      `ramp-sandbox vectors: cannot write ${file}: no space left on the device (ENOSPC); a file already there is unchanged\n`,
    );
    expect(readFileSync(file, 'utf8')).toBe(good);
    expect(readdirSync(disk.dir).sort()).toEqual(['filler', 'vectors.json']);
  });

  it('scenarios --junit: the same after the run, without a stack trace', async (ctx) => {
    const disk = mounted();
    if (typeof disk === 'string') return ctx.skip(disk);
    const file = join(disk.dir, 'junit.xml');
    const good = '<testsuites/>\n';
    writeFileSync(file, good);
    disk.fill(0);
    const res = await runCli(['scenarios', 'cancel', 'expiry', '--junit', file]);
    expect(res.code).not.toBe(0);
    expect(res.stderr).toContain(`cannot write ${file}: no space left on the device (ENOSPC); a file already there is unchanged`);
    expect(res.stderr).not.toMatch(/\n\s+at /);
    expect(readFileSync(file, 'utf8')).toBe(good);
  }, 60_000);
});

describe('vectors --out -', () => {
  it('prints, as postman --out - does, instead of writing a file named "-"', async () => {
    const res = await runCli(['vectors', '--out', '-'], { cwd: '/' });
    expect(res.code).toBe(0);
    expect(JSON.parse(res.stdout).cases.length).toBeGreaterThan(0);
    expect(readdirSync('/')).not.toContain('-');
  });
});
