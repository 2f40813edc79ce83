import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runCli, startCli, stopCli, type RunningCli } from '../support/cli';
import { deadUrl } from '../support/free-port';
import { startReceiver, type Receiver } from '../support/receiver';
import { startTestServer, type TestServer } from '../support/server';
import { spawnTs } from '../support/spawn';

// CONTRACT §17: `ramp-sandbox tail [--requests] [--deliveries] [--client-id ID] [--json]`.
const TOKEN = 'tail-cli-token';
let s: TestServer;
let receiver: Receiver;
const running: Array<RunningCli | ChildProcess> = [];
beforeAll(async () => {
  [s, receiver] = await Promise.all([startTestServer({ adminToken: TOKEN }), startReceiver()]);
});
afterEach(() => {
  // Whatever a failed test left running is stopped by its PID.
  for (const p of running.splice(0)) {
    const child = 'child' in p ? p.child : p;
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
});
afterAll(async () => {
  await Promise.all([s?.close(), receiver?.close()]);
});

/** Starts `ramp-sandbox tail ARGS` against the test sandbox and waits until it follows. */
async function tail(...args: string[]): Promise<RunningCli> {
  const cli = startCli(['tail', '--sandbox', s.url, '--admin-token', TOKEN, ...args]);
  running.push(cli);
  await cli.stderrMatching(/following .*; Ctrl-C to stop\n/);
  return cli;
}

describe('ramp-sandbox tail', () => {
  it('prints a line per /v1 request (with the hint of a refused signature) and per webhook attempt; Ctrl-C exits 0', async () => {
    const cli = await tail();
    await s.signed('GET', '/v1/networks');
    await cli.lines(1);
    const refused = await s.signed(
      'POST',
      '/v1/orders/quote',
      { from: { currency: 'NGN', amount: 100 } },
      { headers: { 'svc-signature': `sha256=${'f'.repeat(64)}` } },
    );
    expect(refused.status).toBe(401);
    await cli.lines(2);
    const delivery = await s.controlApi.sendWebhook({
      body: { event: 'order.expired', data: { reference: 'ORDTAILCLI' }, url: receiver.url },
    });
    const lines = await cli.lines(3);

    expect(lines[0]).toMatch(new RegExp(`^\\d\\d:\\d\\d:\\d\\d\\.\\d{3} req  GET /v1/networks 200 [\\d.]+ ms ${s.demo.clientId} test$`));
    expect(lines[1]).toMatch(
      new RegExp(
        `^\\S+ req  POST /v1/orders/quote 401 E_UNAUTHORIZED [\\d.]+ ms ${s.demo.clientId}: .+ hint: prefix=.+; body_sha256=[0-9a-f]{64}; body_length=\\d+$`,
      ),
    );
    expect(lines[1]).toContain(`hint: ${refused.headers.get('svc-sandbox-hint')}`);
    expect(lines[2]).toBe(
      `${lines[2]!.slice(0, 12)} hook order.expired ORDTAILCLI #1 200 ${delivery.attempts[0]!.duration_ms} ms ${delivery.id} → ${receiver.url}`,
    );
    expect(lines.join('\n')).not.toMatch(/\x1b\[/); // piped: no colour

    // A refused attempt says when the next one is due.
    receiver.behave(() => '500');
    try {
      await s.controlApi.sendWebhook({ body: { event: 'order.expired', data: { reference: 'ORDTAILCLI' }, url: receiver.url } });
      expect((await cli.lines(4))[3]).toMatch(/ hook order\.expired ORDTAILCLI #1 500 \d+ ms dlv_\w+ → \S+ retry at \S+Z$/);
    } finally {
      receiver.behave(() => 'ok');
    }

    const end = await stopCli(cli, 'SIGINT');
    expect(end).toMatchObject({ code: 0, signal: null });
    expect(end.stdout.split('\n')).toHaveLength(5); // four lines and the last newline
  });

  it('--json --requests --client-id: one JSON object a line, only that partner, only requests', async () => {
    const other = await s.createPartner({ name: 'Tail other', webhook_url: receiver.url });
    const cli = await tail('--json', '--requests', '--client-id', other.clientId);
    await s.signed('GET', '/v1/networks'); // the demo partner's
    await s.controlApi.sendWebhook({ body: { client_id: other.clientId, event: 'order.expired', data: { reference: 'ORDJSON' } } }); // a delivery
    await s.signed('GET', '/v1/fiat-currencies', undefined, { as: other });
    // Events come in order: had the two before been printed, they would come first.
    const [line] = await cli.lines(1);
    expect(JSON.parse(line!)).toMatchObject({
      type: 'request',
      method: 'GET',
      path: '/v1/fiat-currencies',
      status: 200,
      client_id: other.clientId,
    });
    expect(await stopCli(cli, 'SIGINT')).toMatchObject({ code: 0 });
  });

  it('exits 0 when the reader of its output goes away (| head)', async () => {
    const cli = await tail('--requests');
    await s.signed('GET', '/v1/networks');
    await cli.lines(1);
    cli.child.stdout!.destroy(); // what head does after its lines
    await s.signed('GET', '/v1/networks'); // the next line meets a closed pipe
    const end = await cli.done;
    expect(end).toMatchObject({ code: 0, signal: null });
    expect(end.stderr).not.toMatch(/\n\s+at /);
  });

  it('colours a terminal (FORCE_COLOR) unless NO_COLOR is set', async () => {
    const cli = startCli(['tail', '--sandbox', s.url, '--admin-token', TOKEN, '--requests'], {
      env: { NO_COLOR: undefined, FORCE_COLOR: '1' },
    });
    running.push(cli);
    await cli.stderrMatching(/following/);
    await s.signed('GET', '/v1/networks');
    const [line] = await cli.lines(1);
    expect(line).toMatch(/\x1b\[32m200\x1b\[39m/);
    await stopCli(cli);
  });

  it('refuses bad input with one clear line', async () => {
    const base = ['tail', '--sandbox', s.url, '--admin-token', TOKEN];
    const [positional, unknownFlag, emptyClient, longClient, noToken, unreachable] = await Promise.all([
      runCli([...base, 'extra']),
      runCli([...base, '--follow']),
      runCli([...base, '--client-id', '']),
      runCli([...base, '--client-id', 'x'.repeat(1000)]),
      runCli(['tail', '--sandbox', s.url], { env: { SANDBOX_ADMIN_TOKEN: undefined } }),
      deadUrl().then((url) => runCli(['tail', '--sandbox', url])),
    ]);
    for (const res of [positional, unknownFlag]) {
      expect(res.code).toBe(2);
      expect(res.stderr).toMatch(/^ramp-sandbox tail: [^\n]+\n\nUsage: ramp-sandbox tail/);
    }
    for (const res of [emptyClient, longClient, noToken, unreachable]) {
      expect(res.code).toBe(1);
      expect(res.stderr).toMatch(/^ramp-sandbox tail: [^\n]+\n$/);
      expect(res.stdout).toBe('');
    }
    expect(emptyClient.stderr).toMatch(/GET \/sandbox\/tail answered 422 E_VALIDATION_ERROR: client_id: /);
    expect(longClient.stderr).toMatch(/answered 422 E_VALIDATION_ERROR: client_id: /);
    expect(noToken.stderr).toMatch(/answered 401 E_UNAUTHORIZED: .*pass --admin-token/);
    expect(unreachable.stderr).toMatch(/cannot reach the sandbox at http:\/\/127\.0\.0\.1:\d+ \(ECONNREFUSED\)/);
  });

  it('ends when the sandbox stops gracefully, which an open tail does not hold up', async () => {
    const serve = spawnTs(
      new URL('../../src/cli/serve.ts', import.meta.url).pathname,
      ['--port', '0', '--clock', 'manual', '--log-level', 'info'],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    running.push(serve);
    let log = '';
    serve.stdout!.setEncoding('utf8').on('data', (c: string) => (log += c));
    serve.stderr!.setEncoding('utf8').on('data', (c: string) => (log += c));
    const url = await new Promise<string>((resolve, reject) => {
      const look = () => {
        const found = /listening on (http:\S+)/.exec(log)?.[1];
        if (found) resolve(found);
      };
      serve.stdout!.on('data', look);
      serve.once('exit', () => reject(new Error(`serve exited: ${log}`)));
    });
    const cli = startCli(['tail', '--sandbox', url]);
    running.push(cli);
    await cli.stderrMatching(/following/);
    const exited = once(serve, 'exit');
    serve.kill('SIGTERM');
    const end = await cli.done;
    expect(end.code).toBe(0);
    expect(end.stderr).toMatch(/the sandbox at http:\/\/127\.0\.0\.1:\d+ ended the stream \(it is stopping\)\n$/);
    expect(await exited).toEqual([0, null]);
    expect(log).toMatch(/"requestsCut":0,"attemptsCut":0[^\n]*stopped: nothing in flight was cut/);
  });
});
