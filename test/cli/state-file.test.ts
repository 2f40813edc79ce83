import { execFileSync, type ChildProcess } from 'node:child_process';
import { spawnTs } from '../support/spawn';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startReceiver, type Receiver } from '../support/receiver';
import { clientFor, startTestServer, T0, type Caller, type TestServer } from '../support/server';
import { firstHalf, secondHalf } from '../support/state-script';
import { tmpfsForBlock } from '../support/tmpfs';
import { createSandbox } from '../../src/sandbox/sandbox';
import { ANNOUNCED_STATE_BYTES } from '../../src/sandbox/server';

// CONTRACT §13: --state FILE is saved on SIGTERM and loaded at start; the run goes on as if
// the process had never stopped.
const SERVE = new URL('../../src/cli/serve.ts', import.meta.url).pathname;
const children: ChildProcess[] = [];
let r: Receiver;
beforeAll(async () => {
  r = await startReceiver();
  r.behave((req) => (['1', '2'].includes(String(req.headers['svc-attempt'])) && req.body?.event === 'order.created' ? '500' : 'ok'));
});
afterAll(() => r.close());
afterEach(() => {
  for (const c of children.splice(0)) c.kill('SIGKILL');
});

interface Served {
  child: ChildProcess;
  client: TestServer;
  exit: Promise<number | null>;
  out: () => string;
}

/** `npm start` with the state file, as a partner's team sandbox would run. */
function serve(stateFile: string): Promise<Served> {
  return new Promise((resolve, reject) => {
    const args = [
      '--port',
      '0',
      '--clock',
      'manual',
      '--seed',
      '5',
      '--clock-start',
      new Date(T0).toISOString(),
      '--webhook-timeout',
      '2s',
      '--log-level',
      'info',
      '--state',
      stateFile,
    ];
    const child = spawnTs(SERVE, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(child);
    let out = '';
    const exit = new Promise<number | null>((res) => child.on('exit', (code) => res(code)));
    child.stdout!.on('data', (chunk) => {
      out += String(chunk);
      const url = /listening on (http:\S+)/.exec(out)?.[1];
      const m = /svc-client-id\)\s+(\S+)/.exec(out);
      const key = (env: string, kind: string) => new RegExp(`${env} ${kind} key\\s+(\\S+)`).exec(out)?.[1] ?? '';
      if (url && m && key('live', 'encryption')) {
        const keys = (env: string) => ({
          public_key: key(env, 'public'),
          secret_key: key(env, 'secret'),
          encryption_key: key(env, 'encryption'),
        });
        const demo: Caller = { clientId: m[1]!, keys: { test: keys('test'), live: keys('live') } };
        // The process is not in this test's memory: waiting for webhook attempts is the advance's job.
        const client = { ...clientFor(url, demo), url, sandbox: { dispatcher: { idle: async () => {} } } } as unknown as TestServer;
        resolve({ child, client, exit, out: () => out });
      }
    });
    child.stderr!.on('data', (chunk) => (out += String(chunk)));
    setTimeout(() => reject(new Error(`no banner: ${out}`)), 30_000);
  });
}

describe('--state FILE', () => {
  it('saves on SIGTERM, loads at start, and finishes the run exactly as one that never stopped', { timeout: 90_000 }, async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'state-')), 'sandbox.json');
    const first = await serve(file);
    const { partner, refs } = await firstHalf(first.client, r.url);
    first.child.kill('SIGTERM');
    expect(await first.exit).toBe(0);
    expect(first.out()).toMatch(/"path":"[^"]+sandbox\.json","bytes":\d+[^\n]*state saved/);
    expect(existsSync(file)).toBe(true);
    expect(JSON.parse(readFileSync(file, 'utf8')).orders).toHaveLength(4);

    const second = await serve(file);
    expect(second.out()).toMatch(/"orders":4[^\n]*"ms":\d+,"msg":"state loaded"/); // how long the load took
    expect(second.out()).not.toMatch(/loading the state file/); // a small file is not announced
    const resumed = await secondHalf(second.client, partner, [...refs]);

    // POST /sandbox/state/save writes the file now, atomically (no temp file left behind).
    const saved = await second.client.control('POST', '/sandbox/state/save');
    expect(saved.status, saved.text).toBe(200);
    expect(saved.body.data).toMatchObject({ path: file, summary: { orders: 5 } });
    expect(existsSync(`${file}.${second.child.pid}.tmp`)).toBe(false);

    // The same run in one process, never stopped.
    const whole = await startTestServer({ seed: 5, webhookTimeoutMs: 2_000 });
    try {
      const again = await firstHalf(whole, r.url);
      expect(again.refs).toEqual(refs);
      expect(await secondHalf(whole, again.partner, again.refs)).toEqual(resumed);
    } finally {
      await whole.close();
    }
  });

  it('refuses to start from a state file that does not validate, naming the field', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'state-')), 'bad.json');
    writeFileSync(file, JSON.stringify({ version: 1, seed: 'five' }));
    const child = spawnTs(SERVE, ['--port', '0', '--state', file], { stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(child);
    let err = '';
    child.stderr!.on('data', (c) => (err += String(c)));
    const code = await new Promise<number | null>((res) => child.on('exit', res));
    expect(code).toBe(1);
    expect(err).toMatch(/bad\.json: sandbox_version: /);
  });

  /** Starts `serve` with `args` and resolves with its exit code and everything it wrote. */
  const runToExit = (args: string[]) => {
    const child = spawnTs(SERVE, ['--port', '0', '--log-level', 'info', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(child);
    let out = '';
    child.stdout!.on('data', (c) => (out += String(c)));
    child.stderr!.on('data', (c) => (out += String(c)));
    const exit = new Promise<number | null>((res) => child.on('exit', res));
    return { child, exit, out: () => out };
  };

  it('refuses at start, in one line, a --state path that cannot be written or a file that is not JSON', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'state-'));
    const missing = runToExit(['--state', join(dir, 'no-such-folder', 'sandbox.json')]);
    expect(await missing.exit).toBe(1);
    expect(missing.out()).toMatch(/^Bad state file: .*no-such-folder\/sandbox\.json: cannot be written: its folder .* does not exist\n$/);

    const broken = join(dir, 'broken.json');
    writeFileSync(broken, '{"version": 1, "orders": [');
    const bad = runToExit(['--state', broken]);
    expect(await bad.exit).toBe(1);
    expect(bad.out()).toMatch(/^Bad state file: .*broken\.json: not a JSON document: .*\n$/);
    expect(bad.out()).not.toMatch(/\n\s+at /); // no stack trace
  });

  it('says before reading a large state file that it is loading, and how long the load took', { timeout: 60_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'state-'));
    const file = join(dir, 'large.json');
    const sandbox = createSandbox({ clockMode: 'manual', logLevel: 'silent' });
    // A saved document, made as large as ANNOUNCED_STATE_BYTES by the whitespace JSON allows after it.
    const text = sandbox.exportStateChunks().join('');
    sandbox.close();
    writeFileSync(file, text + ' '.repeat(ANNOUNCED_STATE_BYTES - Buffer.byteLength(text)));
    const served = runToExit(['--state', file]);
    await new Promise<void>((resolve, reject) => {
      const wait = () => (/listening on/.test(served.out()) ? resolve() : setTimeout(wait, 20));
      wait();
      served.exit.then((code) => reject(new Error(`exited ${code}: ${served.out()}`)));
    });
    const out = served.out();
    expect(out).toMatch(
      new RegExp(
        `"path":"[^"]+large\\.json","bytes":${ANNOUNCED_STATE_BYTES},"msg":"loading the state file: the sandbox answers once it is loaded"`,
      ),
    );
    expect(out).toMatch(/"ms":\d+,"msg":"state loaded"/);
    expect(out.indexOf('loading the state file')).toBeLessThan(out.indexOf('state loaded'));
    expect(out.indexOf('state loaded')).toBeLessThan(out.indexOf('listening on'));
    served.child.kill('SIGTERM');
    expect(await served.exit).toBe(0);
    rmSync(dir, { recursive: true, force: true });
  });

  it('stops at once on SIGTERM while the state file is still loading, saying so and leaving the file as it was', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'state-'));
    const fifo = join(dir, 'pipe.json');
    execFileSync('mkfifo', [fifo]);
    const served = runToExit(['--state', fifo]);
    // The pipe opens for writing once the sandbox has opened it to read: it is loading, and a
    // document half written keeps it loading until the signal. (Should it exit first, the pipe is
    // opened to read here, so the open to write returns and nothing is left waiting.)
    const opening = open(fifo, 'w');
    const writer = await Promise.race([
      opening,
      served.exit.then(async (code) => {
        await (await open(fifo, 'r')).close();
        await (await opening).close();
        throw new Error(`exited ${code} before reading: ${served.out()}`);
      }),
    ]);
    const sandbox = createSandbox({ clockMode: 'manual', logLevel: 'silent' });
    const text = sandbox.exportStateChunks().join('');
    sandbox.close();
    await writer.write(text.slice(0, text.length / 2));
    served.child.kill('SIGTERM');
    // Its exit then waits for a read of the pipe in flight (Node joins its I/O threads): the pipe
    // is closed once the line is there, or after 10 s.
    const said = /^SIGTERM while starting: stopped before the sandbox was up \(\S+pipe\.json is unchanged\)\n$/;
    for (const until = Date.now() + 10_000; Date.now() < until && !said.test(served.out()); ) await new Promise((r) => setTimeout(r, 20));
    await writer.close();
    expect(await served.exit).toBe(143);
    expect(served.out()).toMatch(said);
    rmSync(dir, { recursive: true, force: true });
  });

  it('exits non-zero on SIGTERM when the state cannot be saved, logging why at error level', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'state-'));
    const file = join(dir, 'sandbox.json');
    const served = runToExit(['--state', file]);
    await new Promise<void>((resolve) => {
      const wait = () => (/listening on/.test(served.out()) ? resolve() : setTimeout(wait, 20));
      wait();
    });
    // The folder goes away while the sandbox runs: the save on SIGTERM fails.
    rmSync(dir, { recursive: true, force: true });
    served.child.kill('SIGTERM');
    expect(await served.exit).toBe(1);
    expect(served.out()).toMatch(/"level":50[^\n]*state could not be saved/);
    expect(existsSync(dir)).toBe(false);
  });

  // Issue: on a nearly full disk SIGTERM logged "state saved" and exited 0 over a truncated file.
  describe('on a disk that fills up (a 1 MiB tmpfs)', () => {
    const mounted = tmpfsForBlock(1024 * 1024);
    it('exits non-zero on SIGTERM, logging ENOSPC at error level, and keeps the previous file whole', async (ctx) => {
      const disk = mounted();
      if (typeof disk === 'string') return ctx.skip(disk);
      const { dir, fill } = disk;
      const file = join(dir, 'sandbox.json');
      const served = runToExit(['--state', file]);
      const url = await new Promise<string>((resolve) => {
        const wait = () => {
          const found = /listening on (http:\S+)/.exec(served.out())?.[1];
          if (found) resolve(found);
          else setTimeout(wait, 20);
        };
        wait();
      });
      const post = (path: string, body?: unknown) =>
        fetch(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body ?? {}) });
      expect((await post('/sandbox/state/save')).status).toBe(200);
      const before = readFileSync(file, 'utf8');
      for (let i = 0; i < 30; i++) expect((await post('/sandbox/partners', { name: `Partner ${i}`, webhook_url: null })).status).toBe(200);
      // Room for a part of the new document only: its first write is short, the next one fails.
      fill(4096);
      served.child.kill('SIGTERM');
      expect(await served.exit).toBe(1);
      expect(served.out()).toMatch(/"level":50[^\n]*no space left on the device \(ENOSPC\)[^\n]*state could not be saved/);
      expect(served.out()).not.toMatch(/"msg":"state saved"/);
      expect(readFileSync(file, 'utf8')).toBe(before);
    });
  });

  it('has its graceful stop in place before the banner says it is listening (a signal at once is a graceful stop)', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'state-')), 'sandbox.json');
    const probe = fileURLToPath(new URL('../support/banner-probe.cjs', import.meta.url));
    const child = spawnTs(SERVE, ['--port', '0', '--state', file], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, NODE_OPTIONS: `--require ${probe}` },
    });
    children.push(child);
    let err = '';
    child.stderr!.on('data', (c) => (err += String(c)));
    child.stdout!.resume();
    const exit = new Promise<number | null>((res) => child.on('exit', res));
    await new Promise<void>((resolve) => {
      const wait = () => (/banner-probe: /.test(err) ? resolve() : setTimeout(wait, 20));
      wait();
    });
    // Before the fix, the listeners were added just after the banner: 0 and 0 here.
    expect(err).toMatch(/banner-probe: SIGTERM 1 SIGINT 1\n/);
    child.kill('SIGTERM');
    expect(await exit).toBe(0);
    expect(existsSync(file)).toBe(true);
  });

  it('exits after its graceful stop even when the reader of its output has gone away', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'state-')), 'sandbox.json');
    const served = runToExit(['--state', file]);
    await new Promise<void>((resolve) => {
      const wait = () => (/listening on/.test(served.out()) ? resolve() : setTimeout(wait, 20));
      wait();
    });
    served.child.stdout!.destroy();
    served.child.stderr!.destroy();
    served.child.kill('SIGTERM');
    expect(await served.exit).toBe(0);
    expect(existsSync(file)).toBe(true);
  });
});
