/**
 * `serve` on one CPU runs itself again with `--single-threaded-gc` (decision 017): the rule, and
 * the two processes as a user meets them under `taskset -c 0`: the sandbox answers, SIGTERM to
 * the command stops both with exit 0, and the sandbox does not outlive a command killed outright.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { needsSingleThreadedGc, SINGLE_THREADED_GC } from '../../src/cli/gc-threads';
import { isRunning, TSX_LOADER } from '../support/spawn';

const SERVE = new URL('../../src/cli/serve.ts', import.meta.url).pathname;
const hasTaskset = (() => {
  try {
    execFileSync('taskset', ['-c', '0', 'true']);
    return true;
  } catch {
    return false;
  }
})();

const until = async (check: () => boolean, ms: number) => {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) return false;
    await new Promise((r) => setTimeout(r, 50));
  }
  return true;
};

describe('needsSingleThreadedGc', () => {
  it('asks for it on one CPU only, once, not for --help, and not when RAMP_SANDBOX_GC=v8', () => {
    expect(needsSingleThreadedGc([], 1, [], {})).toBe(true);
    expect(needsSingleThreadedGc([], 2, [], {})).toBe(false);
    expect(needsSingleThreadedGc([], 1, [SINGLE_THREADED_GC], {})).toBe(false);
    expect(needsSingleThreadedGc([], 1, [], { RAMP_SANDBOX_RERUN: '1' })).toBe(false);
    expect(needsSingleThreadedGc([], 1, [], { RAMP_SANDBOX_GC: 'v8' })).toBe(false);
    expect(needsSingleThreadedGc(['--port', '0', '--help'], 1, [], {})).toBe(false);
  });
});

describe.skipIf(!hasTaskset)('serve pinned to one CPU (taskset -c 0)', () => {
  const started: ChildProcess[] = [];
  const pids: number[] = [];
  let dir: string | undefined;
  afterEach(() => {
    for (const child of started.splice(0)) child.kill('SIGKILL');
    for (const pid of pids.splice(0)) if (isRunning(pid)) process.kill(pid, 'SIGKILL');
    if (dir) rmSync(dir, { recursive: true, force: true });
    dir = undefined;
  });

  /** `serve` under taskset; resolves with the command's process and what its ready file says. */
  async function servePinned(env: NodeJS.ProcessEnv = {}) {
    dir = mkdtempSync(join(tmpdir(), 'ramp-gc-'));
    const ready = join(dir, 'ready.json');
    const child = spawn('taskset', ['-c', '0', process.execPath, '--import', TSX_LOADER, SERVE, '--port', '0', '--ready-file', ready], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    started.push(child);
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    let out = '';
    child.stdout!.on('data', (d) => (out += String(d)));
    child.stderr!.on('data', (d) => (out += String(d)));
    if (!(await until(() => /listening on/.test(out), 20_000))) throw new Error(`serve did not start:\n${out}`);
    const info = JSON.parse(readFileSync(ready, 'utf8')) as { url: string; pid: number };
    pids.push(info.pid);
    return { child, exited, info, cmdline: () => readFileSync(`/proc/${info.pid}/cmdline`, 'utf8').split('\0') };
  }

  it('answers from a second process that runs with --single-threaded-gc; SIGTERM to the command stops both, exit 0', async () => {
    const { child, exited, info, cmdline } = await servePinned();
    expect(info.pid).not.toBe(child.pid);
    expect(cmdline()).toContain(SINGLE_THREADED_GC);
    const res = await fetch(`${info.url}/health`);
    expect(res.status).toBe(200);
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(await until(() => !isRunning(info.pid), 5_000)).toBe(true);
  }, 40_000);

  it('does not outlive the command killed outright (SIGKILL)', async () => {
    const { child, exited, info } = await servePinned();
    child.kill('SIGKILL');
    await exited;
    expect(await until(() => !isRunning(info.pid), 5_000)).toBe(true);
  }, 40_000);

  it('runs as it is, in one process, with RAMP_SANDBOX_GC=v8', async () => {
    const { child, info, cmdline } = await servePinned({ RAMP_SANDBOX_GC: 'v8' });
    // taskset execs node in place: the command's pid is the sandbox's.
    expect(info.pid).toBe(child.pid);
    expect(cmdline()).not.toContain(SINGLE_THREADED_GC);
  }, 40_000);
});
