import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { resolveScenarioFile } from '../../src/cli/scenarios.command';
import { findPackageRoot, PACKAGE_ROOT, packagePath } from '../../src/shared/package-root';
import { DEFAULT_FIXTURES_DIR } from '../../src/reference';
import { DEFAULT_SCENARIO_DIR } from '../../src/scenario-runner';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../', import.meta.url)).replace(/\/$/, '');
const TSX = join(ROOT, 'node_modules/.bin/tsx');
const BIN = join(ROOT, 'src/cli/bin.ts');
const VERSION: string = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version;

/** The dispatcher from the sources (the packed one is test/cli/package.test.ts's). */
async function bin(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(TSX, [BIN, ...args], { cwd: tmpdir() });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

describe('ramp-sandbox dispatcher (CONTRACT §14)', () => {
  it('lists the subcommands for --help and help, and prints the version', async () => {
    const [version, ...helps] = await Promise.all([['--version'], ['--help'], ['help'], ['-h']].map(bin));
    for (const { code, stdout } of helps) {
      expect(code).toBe(0);
      expect(stdout).toMatch(/^ {2}serve .*\n {2}scenarios .*\n {2}sign /m);
    }
    expect(version!.stdout).toBe(`${VERSION}\n`);
  });

  it("passes the rest to the subcommand: help CMD and CMD --help print that command's flags", async () => {
    const [serve, scenarios, signed] = await Promise.all([
      bin(['help', 'serve']),
      bin(['scenarios', '--help']),
      bin(['sign', '--base', 'http://sandbox.test', 'GET', '/v1/networks']),
    ]);
    expect(serve.stdout).toMatch(/--clock MODE/);
    expect(scenarios.stdout).toMatch(/--junit FILE/);
    expect(signed.stdout).toMatch(/^curl -sS -X GET 'http:\/\/sandbox\.test\/v1\/networks'/);
  });

  it('refuses an unknown command with exit code 2 and the list on stderr', async () => {
    const [res, help] = await Promise.all([bin(['serv', '--port', '0']), bin(['help', 'toString'])]);
    expect(res.code).toBe(2);
    expect(res.stdout).toBe('');
    expect(res.stderr).toMatch(/unknown command 'serv'\. Commands: serve, scenarios, sign, (?:[\w-]+, )*help\./);
    expect(help.code).toBe(2);
  });
});

describe('package root', () => {
  it('resolves fixtures/ and scenarios/ from the package, whatever the working directory', () => {
    expect(PACKAGE_ROOT).toBe(ROOT);
    expect(DEFAULT_FIXTURES_DIR).toBe(join(ROOT, 'fixtures'));
    expect(DEFAULT_SCENARIO_DIR).toBe(join(ROOT, 'scenarios'));
    expect(packagePath('package.json')).toBe(join(ROOT, 'package.json'));
    expect(findPackageRoot(join(ROOT, 'src', 'reference'))).toBe(ROOT);
  });

  it('fails with a clear message outside the package', () => {
    expect(() => findPackageRoot(mkdtempSync(join(tmpdir(), 'no-pkg-')))).toThrow(/no package\.json named ramp-sandbox/);
  });

  it('lets a scenario argument name a shipped scenario when it is not a file', () => {
    expect(resolveScenarioFile('cancel')).toBe(join(ROOT, 'scenarios', 'cancel.yaml'));
    expect(resolveScenarioFile('cancel.yaml')).toBe(join(ROOT, 'scenarios', 'cancel.yaml'));
    expect(resolveScenarioFile('no-such-scenario')).toBe('no-such-scenario');
    expect(resolveScenarioFile('dir/cancel')).toBe('dir/cancel');
  });
});
