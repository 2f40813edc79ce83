import { execFile, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { signedHeaders } from '../support/sign';
import { spawnTs } from '../support/spawn';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BIN = join(ROOT, 'src/cli/bin.ts');
const TSX_LOADER = new URL('../../node_modules/tsx/dist/loader.mjs', import.meta.url).href;
const run = promisify(execFile);

const children: ChildProcess[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const child of children.splice(0)) {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await once(child, 'exit');
    }
  }
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'ready-cli-'));
  dirs.push(dir);
  return dir;
};

/** `ramp-sandbox serve --ready-file FILE` until its banner (the file is written before it). */
function serve(file: string, extra: string[] = []): Promise<{ child: ChildProcess; banner: string }> {
  return new Promise((resolve, reject) => {
    const child = spawnTs(BIN, ['serve', '--port', '0', '--clock', 'manual', '--log-level', 'warn', '--ready-file', file, ...extra], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(child);
    let out = '';
    let err = '';
    child.stderr!.on('data', (c) => (err += String(c)));
    child.stdout!.on('data', (c) => {
      out += String(c);
      if (/svc-signature[^\n]*\n\n/.test(out)) resolve({ child, banner: out });
    });
    child.on('exit', (code) => reject(Object.assign(new Error(`exited ${code}: ${err}`), { code, stderr: err })));
  });
}

describe('serve --ready-file (CONTRACT §18)', () => {
  it('writes {url, pid, version, client_id, keys} once listening, with the port chosen; the keys sign a call; removed on SIGTERM', async () => {
    const dir = tempDir();
    const file = join(dir, 'ready.json');
    writeFileSync(file, '{"stale": true}');
    const { child, banner } = await serve(file);
    const info = JSON.parse(readFileSync(file, 'utf8'));
    const version: string = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version;
    expect(Object.keys(info).sort()).toEqual(['client_id', 'keys', 'pid', 'url', 'version']);
    expect(info.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(info.url).not.toMatch(/:0$/);
    expect(banner).toContain(`listening on ${info.url}`);
    expect(info.pid).toBe(child.pid);
    expect(info.version).toBe(version);
    expect(info.client_id).toMatch(/^ptr_demo_/);
    expect(info.keys.test).toEqual({
      public_key: expect.stringMatching(/^pk_test_/),
      secret_key: expect.stringMatching(/^sk_test_/),
      encryption_key: expect.stringMatching(/^enc_test_/),
    });
    expect(info.keys.live.secret_key).toMatch(/^sk_live_/);
    expect(readdirSync(dir)).toEqual(['ready.json']);
    const res = await fetch(`${info.url}/v1/networks`, {
      headers: signedHeaders({ clientId: info.client_id, keys: info.keys.test, method: 'GET', path: '/v1/networks' }),
    });
    expect(res.status).toBe(200);
    child.kill('SIGTERM');
    const [code] = await once(child, 'exit');
    expect(code).toBe(0);
    expect(existsSync(file)).toBe(false);
  });

  it('stops at once with one line when the file cannot be written, before listening', async () => {
    const dir = tempDir();
    const error = (await serve(join(dir, 'no', 'such', 'ready.json')).catch((e: unknown) => e)) as { code: number; stderr: string };
    expect(error.code).toBe(1);
    expect(error.stderr.trim().split('\n')).toEqual([`--ready-file ${join(dir, 'no', 'such', 'ready.json')}: cannot write there (ENOENT)`]);
  });

  it('README shows the Python fixture as examples/python/ramp_sandbox.py has it', () => {
    const source = readFileSync(join(ROOT, 'examples/python/ramp_sandbox.py'), 'utf8');
    const fixture = source.slice(source.indexOf('@contextlib.contextmanager'), source.indexOf('\n\n\ndef signed_headers'));
    expect(fixture.length).toBeGreaterThan(500);
    expect(readFileSync(join(ROOT, 'README.md'), 'utf8')).toContain(fixture);
  });

  const python = spawnSync('python3', ['--version']).status === 0;
  it.skipIf(!python)(
    "README's Python fixture starts the sandbox, a unittest signs a call with its keys, and the sandbox is stopped after",
    async () => {
      const command = JSON.stringify([process.execPath, '--import', TSX_LOADER, BIN]);
      const { stderr } = await run('python3', ['-m', 'unittest', '-v', 'test_networks'], {
        cwd: join(ROOT, 'examples/python'),
        env: { ...process.env, RAMP_SANDBOX_COMMAND: command, PYTHONDONTWRITEBYTECODE: '1' },
        timeout: 60_000,
      });
      expect(stderr).toMatch(/test_lists_networks_with_a_signed_call .* ok/);
      expect(stderr).toMatch(/\nOK\n?$/);
    },
  );
});
