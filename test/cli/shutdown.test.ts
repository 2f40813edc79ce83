import type { ChildProcess } from 'node:child_process';
import { spawnTs } from '../support/spawn';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';

// CONTRACT §9: SIGINT/SIGTERM stop gracefully: requests and webhook attempts in flight finish.
const SERVE = new URL('../../src/cli/serve.ts', import.meta.url).pathname;
const cleanup: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanup.splice(0)) c();
});

function serve(): Promise<{ child: ChildProcess; url: string; clientId: string; out: () => string; exit: Promise<number | null> }> {
  return new Promise((resolve, reject) => {
    const child = spawnTs(SERVE, ['--port', '0', '--clock', 'manual', '--log-level', 'info', '--webhook-timeout', '10s'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    cleanup.push(() => child.kill('SIGKILL'));
    let out = '';
    const exit = new Promise<number | null>((res) => child.on('exit', (code) => res(code)));
    child.stdout!.on('data', (chunk) => {
      out += String(chunk);
      const url = /listening on (http:\S+)/.exec(out)?.[1];
      const clientId = /svc-client-id\)\s+(\S+)/.exec(out)?.[1];
      if (url && clientId) resolve({ child, url, clientId, out: () => out, exit });
    });
    child.stderr!.on('data', (chunk) => (out += String(chunk)));
    setTimeout(() => reject(new Error(`no banner: ${out}`)), 20_000);
  });
}

/** A receiver that answers 200 after `holdMs`, and says when a request arrived. */
async function slowReceiver(holdMs: number): Promise<{ url: string; arrived: Promise<void>; answered: () => number }> {
  let answered = 0;
  let arrive!: () => void;
  const arrived = new Promise<void>((r) => (arrive = r));
  const server: Server = createServer((req, res) => {
    req.resume();
    arrive();
    setTimeout(() => {
      answered++;
      res.end('ok');
    }, holdMs);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  cleanup.push(() => {
    server.closeAllConnections();
    server.close();
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, arrived, answered: () => answered };
}

describe('graceful shutdown', () => {
  it('on SIGTERM finishes the request and the webhook attempt in flight, refuses new connections, logs and exits 0', async () => {
    const sandbox = await serve();
    const receiver = await slowReceiver(1_000);
    // `send` answers once its first attempt is done: a request and an attempt in flight at once.
    const sending = fetch(`${sandbox.url}/sandbox/webhooks/send`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_id: sandbox.clientId, event: 'order.created', url: receiver.url, data: { reference: 'ord_shutdown' } }),
    });
    await receiver.arrived;
    sandbox.child.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 200));
    await expect(fetch(`${sandbox.url}/health`)).rejects.toThrow();

    const res = await sending;
    expect(res.status).toBe(200);
    const body = (await res.json()) as { data: { status: string; attempts: Array<{ http_status: number }> } };
    expect(body.data.status).toBe('succeeded');
    expect(body.data.attempts[0]!.http_status).toBe(200);
    expect(receiver.answered()).toBe(1);

    expect(await sandbox.exit).toBe(0);
    const log = sandbox.out();
    expect(log).toMatch(/"requestsInFlight":1,"attemptsInFlight":1[^\n]*shutting down/);
    expect(log).toMatch(/"requestsCut":0,"attemptsCut":0[^\n]*stopped: nothing in flight was cut/);
  });

  it('exits at once on a second signal', async () => {
    const sandbox = await serve();
    const receiver = await slowReceiver(30_000);
    void fetch(`${sandbox.url}/sandbox/webhooks/send`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_id: sandbox.clientId, event: 'order.created', url: receiver.url, data: { reference: 'ord_shutdown' } }),
    }).catch(() => undefined);
    await receiver.arrived;
    sandbox.child.kill('SIGINT');
    await new Promise((r) => setTimeout(r, 200));
    sandbox.child.kill('SIGINT');
    expect(await sandbox.exit).toBe(1);
    expect(sandbox.out()).toMatch(/second signal: exiting without waiting/);
  });
});
