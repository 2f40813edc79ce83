import type { ChildProcess } from 'node:child_process';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { verifyWebhook } from '../../src/client/verify-webhook';
import { createOrder } from '../support/orders';
import { closedUrl, startReceiver, type Receiver } from '../support/receiver';
import { startTestServer, type Caller, type TestServer } from '../support/server';
import { spawnTs } from '../support/spawn';

// CONTRACT §17 `ramp-sandbox listen`, end to end: the CLI as a child process against a sandbox
// started here (127.0.0.1, port 0, manual clock), relaying to a receiver started here.

const BIN = new URL('../../src/cli/bin.ts', import.meta.url).pathname;
const cleanup: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

async function sandbox(overrides: Parameters<typeof startTestServer>[0] = {}): Promise<TestServer> {
  const s = await startTestServer(overrides);
  cleanup.push(() => s.close());
  return s;
}

async function receiver(): Promise<Receiver> {
  const r = await startReceiver();
  cleanup.push(() => r.close());
  return r;
}

interface Cli {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exit: Promise<number | null>;
  /** Resolves once `pattern` appears in what the CLI printed (stdout and stderr); rejects if it exits first. */
  printed(pattern: RegExp): Promise<string>;
}

/** `ramp-sandbox listen ARGS…` as a child process, killed after the test if still running. */
function listen(args: string[], env: Record<string, string> = {}): Cli {
  const child = spawnTs(BIN, ['listen', ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
  let stdout = '';
  let stderr = '';
  const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  cleanup.push(async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await exit;
    }
  });
  const waiters: Array<() => void> = [];
  child.stdout!.on('data', (chunk) => {
    stdout += String(chunk);
    for (const w of [...waiters]) w();
  });
  child.stderr!.on('data', (chunk) => {
    stderr += String(chunk);
    for (const w of [...waiters]) w();
  });
  const printed = (pattern: RegExp) =>
    new Promise<string>((resolve, reject) => {
      const check = () => {
        const match = pattern.exec(stdout + stderr);
        if (match) {
          waiters.splice(waiters.indexOf(check), 1);
          resolve(match[0]);
        }
      };
      waiters.push(check);
      check();
      void exit.then((code) => reject(new Error(`listen exited ${code} before printing ${pattern}:\n${stdout}${stderr}`)));
    });
  return { child, stdout: () => stdout, stderr: () => stderr, exit, printed };
}

/** Starts the CLI for a partner and resolves once it is relaying. */
async function relaying(s: TestServer, p: Caller, r: Receiver, extra: string[] = []): Promise<Cli> {
  const cli = listen(['--sandbox', s.url, '--client-id', p.clientId, '--forward-to', r.url, ...extra]);
  await cli.printed(/Ready: relaying/);
  return cli;
}

const deliveriesOf = async (s: TestServer, order: string) => (await s.controlApi.listDeliveries({ query: { order } })).data;

describe('ramp-sandbox listen', () => {
  it('relays a completed order’s deliveries, signed for the local URL, and the log shows their answers', async () => {
    const s = await sandbox();
    const home = await receiver(); // the partner's webhook_url: nothing goes there while listening
    const local = await receiver();
    const p = await s.createPartner({ webhook_url: home.url });
    const cli = await relaying(s, p, local);

    const o = await createOrder(s, 'offramp', {}, { as: p });
    await s.controlApi.simulatePayin({ params: { reference: o.reference }, body: {} });
    await s.controlApi.advanceClock({ body: { duration: '1h' } }); // waits for each attempt's answer

    const events = ['order.created', 'order.asset_locked', 'order.assigned', 'order.fiat_sent', 'order.settled'];
    expect(local.received.map((x) => x.body.event)).toEqual(events);
    for (const x of local.received) {
      const verified = verifyWebhook(x.rawBody, x.headers, {
        clientId: p.clientId,
        encryptionKey: p.keys.test.encryption_key,
        path: x.path,
      });
      expect(verified).toMatchObject({ event: x.body.event, attempt: 1, deliveryId: expect.stringMatching(/^dlv_/) });
    }
    expect(home.received).toEqual([]);
    const log = await deliveriesOf(s, o.reference);
    expect(log.map((d) => d.event).reverse()).toEqual(events);
    for (const d of log) {
      expect(d.status).toBe('succeeded');
      expect(d.attempts).toEqual([
        expect.objectContaining({ via: 'listener', url: local.url, http_status: 200, response_excerpt: 'ok', error: null }),
      ]);
    }
    const lines = cli.stdout().trim().split('\n');
    expect(lines).toHaveLength(5);
    expect(lines[0]).toMatch(new RegExp(`^order\\.created  ${o.reference}  ${log.at(-1)!.id}  #1  → 200  \\d+ ms$`));
  });

  it('lets failed answers be retried on the §5 schedule as the virtual clock moves', async () => {
    const s = await sandbox();
    const local = await receiver();
    local.behave(() => '500');
    const p = await s.createPartner({ webhook_url: null });
    const cli = await relaying(s, p, local, ['--events', 'order.created']);
    const o = await createOrder(s, 'onramp', {}, { as: p });
    await s.sandbox.dispatcher.idle(); // the first attempt, answered through the CLI
    let [d] = await deliveriesOf(s, o.reference);
    const created = Date.parse(d!.created_at);
    expect(d).toMatchObject({ status: 'retrying', next_attempt_at: new Date(created + 5_000).toISOString() });
    expect(d!.attempts[0]).toMatchObject({ via: 'listener', http_status: 500, error: 'HTTP 500', response_excerpt: 'receiver error' });

    await s.controlApi.advanceClock({ body: { ms: 4_999 } });
    expect(local.received).toHaveLength(1);
    await s.controlApi.advanceClock({ body: { ms: 1 } });
    expect(local.received.map((x) => x.headers['svc-attempt'])).toEqual(['1', '2']);
    await s.controlApi.advanceClock({ body: { duration: '5m' } });
    [d] = await deliveriesOf(s, o.reference);
    expect(d!.attempts.map((a) => Date.parse(a.virtual_at) - created)).toEqual([0, 5_000, 305_000]);
    expect(d!.attempts.map((a) => a.http_status)).toEqual([500, 500, 500]);
    expect(d!.next_attempt_at).toBe(new Date(created + 305_000 + 1_800_000).toISOString());
    expect(cli.stdout()).toMatch(/order\.created {2}\S+ {2}dlv_\S+ {2}#3 {2}→ 500 {2}\d+ ms\n$/);
  });

  it('exits 0 on SIGINT, after which deliveries go to webhook_url again', async () => {
    const s = await sandbox();
    const home = await receiver();
    const local = await receiver();
    const p = await s.createPartner({ webhook_url: home.url });
    const cli = await relaying(s, p, local);
    await createOrder(s, 'onramp', {}, { as: p });
    await s.sandbox.dispatcher.idle();
    expect(local.received).toHaveLength(1);

    cli.child.kill('SIGINT');
    expect(await cli.exit).toBe(0);
    await vi.waitFor(() => expect(s.sandbox.dispatcher.listenerCount).toBe(0));
    await createOrder(s, 'onramp', {}, { as: p });
    await s.sandbox.dispatcher.idle();
    expect(home.received.map((x) => x.body.event)).toEqual(['order.created']);
    expect(
      verifyWebhook(home.received[0]!.rawBody, home.received[0]!.headers, {
        clientId: p.clientId,
        encryptionKey: p.keys.test.encryption_key,
        path: home.received[0]!.path,
      }).event,
    ).toBe('order.created');
    expect(local.received).toHaveLength(1);
  });

  it('exits 0 when the reader of its output goes away (| head), as on SIGINT', async () => {
    // EPIPE was an unhandled 'error' event: a stack trace, exit 1.
    const s = await sandbox();
    const local = await receiver();
    const p = await s.createPartner({});
    const cli = await relaying(s, p, local);
    cli.child.stdout!.destroy(); // what head does after its lines
    await createOrder(s, 'onramp', {}, { as: p }); // its relayed line meets a closed pipe
    expect(await cli.exit).toBe(0);
    expect(cli.stderr()).not.toMatch(/\n\s+at |EPIPE/);
    await vi.waitFor(() => expect(s.sandbox.dispatcher.listenerCount).toBe(0));
  });

  it('reports a receiver that cannot be reached as the attempt’s error', async () => {
    const s = await sandbox();
    const local = await receiver();
    const p = await s.createPartner({ webhook_url: null });
    const cli = await relaying(s, p, local);
    await local.close();
    await s.controlApi.sendWebhook({ body: { client_id: p.clientId, event: 'order.settled', data: { reference: 'ord_gone' } } });
    const [d] = await deliveriesOf(s, 'ord_gone');
    expect(d!.attempts[0]).toMatchObject({ via: 'listener', http_status: null, error: 'connection refused' });
    expect(cli.stdout()).toMatch(/order\.settled {2}ord_gone {2}dlv_\S+ {2}#1 {2}→ error: connection refused {2}\d+ ms/);
  });

  it('defaults to the only partner, and asks for --client-id when there are more', async () => {
    const s = await sandbox();
    const local = await receiver();
    const cli = listen(['--sandbox', s.url, '--forward-to', local.url]);
    expect(await cli.printed(/Ready: relaying \S+'s/)).toBe(`Ready: relaying ${s.demo.clientId}'s`);
    cli.child.kill('SIGINT');
    expect(await cli.exit).toBe(0);

    const other = await s.createPartner();
    const refused = listen(['--sandbox', s.url, '--forward-to', local.url]);
    expect(await refused.exit).toBe(2);
    expect(refused.stderr()).toContain(
      `ramp-sandbox listen: the sandbox has 2 partners: pass --client-id (${s.demo.clientId}, ${other.clientId})`,
    );
  });

  it('refuses a bad command line (exit 2), and an unknown partner or an unreachable sandbox (exit 1), in one line', async () => {
    const s = await sandbox();
    const nowhere = new URL(await closedUrl()).origin;
    const runs = [
      listen([
        '--sandbox',
        s.url,
        '--client-id',
        s.demo.clientId,
        '--forward-to',
        'http://127.0.0.1:9/h',
        '--events',
        'order.created,order.nope',
      ]),
      listen(['--sandbox', s.url, '--client-id', s.demo.clientId]),
      listen(['--sandbox', s.url, '--client-id', s.demo.clientId, '--forward-to', 'ftp://laptop/h']),
      listen(['--sandbox', s.url, '--client-id', 'ptr_nobody', '--forward-to', 'http://127.0.0.1:9/h']),
      listen(['--sandbox', nowhere, '--client-id', 'ptr_x', '--forward-to', 'http://127.0.0.1:9/h']),
    ];
    const codes = await Promise.all(runs.map((r) => r.exit));
    expect(codes).toEqual([2, 2, 2, 1, 1]);
    const first = (r: Cli) => r.stderr().split('\n')[0];
    expect(first(runs[0]!)).toMatch(/^ramp-sandbox listen: --events: order\.nope is not a webhook event \(one of order\.created, /);
    expect(first(runs[1]!)).toBe('ramp-sandbox listen: --forward-to URL is required (your receiver, e.g. http://127.0.0.1:3000/webhooks)');
    expect(first(runs[2]!)).toBe('ramp-sandbox listen: --forward-to ftp://laptop/h must be an http(s) URL');
    expect(runs[3]!.stderr()).toBe('ramp-sandbox listen: GET /sandbox/listen answered 404 E_NOTFOUND: Partner ptr_nobody not found\n');
    expect(runs[4]!.stderr()).toBe(
      `ramp-sandbox listen: cannot reach the sandbox at ${nowhere} (ECONNREFUSED); start it with ramp-sandbox serve, or pass --sandbox URL\n`,
    );
    for (const r of runs) expect(r.stdout()).toBe('');
  });

  it('gives the partner to the newest listener: the previous one says why and exits 1', async () => {
    const s = await sandbox();
    const first = await receiver();
    const second = await receiver();
    const p = await s.createPartner({ webhook_url: null });
    const older = await relaying(s, p, first);
    const newer = await relaying(s, p, second);
    expect(await older.exit).toBe(1);
    expect(older.stderr()).toMatch(
      /ramp-sandbox listen: a newer listener for this partner connected: it receives the attempts now; this one stops\n$/,
    );
    await s.controlApi.sendWebhook({ body: { client_id: p.clientId, event: 'order.settled', data: { reference: 'ord_newest' } } });
    expect([first.received.length, second.received.length]).toEqual([0, 1]);
    expect(newer.child.exitCode).toBeNull();
  });

  it('reconnects, saying so, when the sandbox restarts, with the admin token from SANDBOX_ADMIN_TOKEN', async () => {
    const s = await sandbox({ adminToken: 'team-secret' });
    const local = await receiver();
    const port = new URL(s.url).port;
    const cli = listen(['--sandbox', s.url, '--forward-to', local.url, '--client-id', s.demo.clientId], {
      SANDBOX_ADMIN_TOKEN: 'team-secret',
    });
    await cli.printed(/Ready: relaying/);
    await s.close();
    await cli.printed(/Lost the sandbox at http:\/\/127\.0\.0\.1:\d+ \([^)]+\); reconnecting in /);
    const restarted = await sandbox({ adminToken: 'team-secret', port: Number(port) });
    await cli.printed(/Reconnected: relaying/);
    await restarted.controlApi.sendWebhook({
      body: { client_id: restarted.demo.clientId, event: 'order.settled', data: { reference: 'ord_again' } },
    });
    expect(local.received.map((x) => x.body.data.reference)).toEqual(['ord_again']);
    cli.child.kill('SIGINT');
    expect(await cli.exit).toBe(0);
  });
});
