import { execFile, type ChildProcess } from 'node:child_process';
import { spawnTs } from '../support/spawn';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const TSX = new URL('../../node_modules/.bin/tsx', import.meta.url).pathname;
const SERVE = new URL('../../src/cli/serve.ts', import.meta.url).pathname;
const children: ChildProcess[] = [];

afterEach(() => {
  for (const c of children.splice(0)) c.kill('SIGTERM');
});

/** Starts `npm start`'s entry point on a free port and resolves with its banner. */
function start(args: string[]): Promise<string> {
  return watch(args).then(({ banner }) => banner);
}

/** `start`, also handing back everything printed so far, later lines included (logs written after the banner). */
function watch(args: string[]): Promise<{ banner: string; output: () => string }> {
  return new Promise((resolve, reject) => {
    const child = spawnTs(SERVE, ['--port', '0', '--log-level', 'warn', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(child);
    let out = '';
    const timer = setTimeout(() => reject(new Error(`no banner: ${out}`)), 15_000);
    child.stdout!.on('data', (chunk) => {
      out += String(chunk);
      if (/curl[\s\S]*svc-signature[^\n]*\n\n/.test(out)) {
        clearTimeout(timer);
        resolve({ banner: out, output: () => out });
      }
    });
    child.on('exit', (code) => reject(new Error(`exited ${code}: ${out}`)));
  });
}

describe('npm start (CONTRACT §1)', () => {
  it('prints the base URL, the demo keys, the dashboard and a signed curl that works when pasted', async () => {
    const banner = await start([]);
    expect(banner).toMatch(/listening on http:\/\/127\.0\.0\.1:\d+/);
    for (const prefix of ['pk_test_', 'sk_test_', 'enc_test_', 'pk_live_', 'sk_live_', 'enc_live_']) {
      expect(banner).toContain(prefix);
    }
    expect(banner).toMatch(/Dashboard\s+http:\/\/127\.0\.0\.1:\d+\/sandbox\/dashboard/);
    const curl = banner.slice(banner.indexOf('curl ')).trim();
    const { stdout } = await run('bash', ['-c', curl]);
    const body = JSON.parse(stdout);
    expect(body.status).toBe(true);
    expect(body.data.length).toBeGreaterThanOrEqual(6);
  });

  it('gives the same demo keys for the same seed, and others for another seed', async () => {
    const keys = (banner: string) =>
      banner
        .match(/(?:pk|sk|enc)_(?:test|live)_\w+/g)!
        .slice(0, 6)
        .join(' ');
    const [a, b, c] = await Promise.all([start(['--seed', '7']), start(['--seed', '7']), start(['--seed', '8'])]);
    expect(keys(a)).toBe(keys(b));
    expect(keys(a)).not.toBe(keys(c));
  });

  it('warns, printed and logged, when it serves a non-loopback address without --admin-token (CONTRACT §4)', async () => {
    const [exposed, guarded, local] = await Promise.all([
      watch(['--host', '0.0.0.0']),
      start(['--host', '0.0.0.0', '--admin-token', 'tok']),
      start([]),
    ]);
    const open = exposed.banner;
    expect(open).toMatch(
      /listening on http:\/\/127\.0\.0\.1:\d+ \(bound to 0\.0\.0\.0: every interface\)\n\nWARNING: serving on 0\.0\.0\.0 without --admin-token: anyone who can reach this port controls the sandbox/,
    );
    expect(open).toMatch(/reads every partner's keys[^\n]*--admin-token T/);
    // the pino line (--log-level warn), written asynchronously: before or after the banner
    const logged = () =>
      exposed
        .output()
        .split('\n')
        .flatMap((line) => {
          try {
            return line.startsWith('{') ? [JSON.parse(line)] : [];
          } catch {
            return []; // a line still arriving
          }
        });
    await expect
      .poll(logged, { timeout: 5_000 })
      .toContainEqual(expect.objectContaining({ level: 40, host: '0.0.0.0', msg: expect.stringMatching(/without --admin-token/) }));
    for (const banner of [guarded, local]) expect(banner).not.toMatch(/WARNING|without --admin-token/);
  });

  it('on a wildcard host prints URLs a user can open (127.0.0.1 for 0.0.0.0, [::1] for ::), still listening on every interface; the ready file too', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'serve-'));
    const cases = [
      { host: '0.0.0.0', loopback: '127.0.0.1' },
      { host: '::', loopback: '[::1]' },
    ];
    const banners = await Promise.all(
      cases.map(({ host }, i) => start(['--host', host, '--admin-token', 'tok', '--ready-file', join(dir, `ready${i}.json`)])),
    );
    for (const [i, { host, loopback }] of cases.entries()) {
      const banner = banners[i]!;
      const port = /listening on http:\/\/\S+:(\d+) /.exec(banner)?.[1];
      expect(port, banner).toBeDefined();
      const url = `http://${loopback}:${port}`;
      expect(banner).toContain(`listening on ${url} (bound to ${host}: every interface)`);
      expect(banner).toContain(`Dashboard      ${url}/sandbox/dashboard`);
      expect(banner).toContain(`Control API    ${url}/sandbox `);
      expect(banner).toContain(`Health         ${url}/health`);
      expect(banner).not.toMatch(/http:\/\/(0\.0\.0\.0|\[::\])/);
      const curl = banner.slice(banner.indexOf('curl ')).trim();
      expect(curl).toContain(`${url}/v1/networks`);
      expect(JSON.parse((await run('bash', ['-c', curl])).stdout).status).toBe(true);
      const ready = JSON.parse(readFileSync(join(dir, `ready${i}.json`), 'utf8'));
      expect(ready.url).toBe(url);
      expect((await fetch(`${ready.url}/health`)).status).toBe(200);
    }
    // still on every interface: 0.0.0.0 answers on another loopback address than the one printed
    const port0 = /:(\d+) \(bound/.exec(banners[0]!)![1];
    expect((await fetch(`http://127.0.0.2:${port0}/health`)).status).toBe(200);
  });

  it('prints usage for --help and refuses a bad flag with exit code 2', async () => {
    const help = await run(TSX, [SERVE, '--help']);
    expect(help.stdout).toMatch(/--clock MODE/);
    await expect(run(TSX, [SERVE, '--clock', 'sideways'])).rejects.toMatchObject({ code: 2 });
    await expect(run(TSX, [SERVE, '--no-such-flag'])).rejects.toMatchObject({ code: 2 });
  });
});
