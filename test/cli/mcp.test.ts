import { once } from 'node:events';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BIN, runCli } from '../support/cli';
import { deadUrl } from '../support/free-port';
import { startReceiver, type Receiver } from '../support/receiver';
import { startTestServer, type TestServer } from '../support/server';
import { isRunning, spawnTs, TSX_LOADER } from '../support/spawn';

// CONTRACT §17: `ramp-sandbox mcp`, driven as an agent would, with the SDK's own client.
const TOKEN = 'mcp-token';
let s: TestServer;
let receiver: Receiver;
const pids: number[] = [];
beforeAll(async () => {
  [s, receiver] = await Promise.all([startTestServer({ adminToken: TOKEN }), startReceiver()]);
});
afterEach(() => {
  // A server a failed test left running is stopped by its PID.
  for (const pid of pids.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
});
afterAll(async () => {
  await Promise.all([s?.close(), receiver?.close()]);
});

/** `ramp-sandbox mcp --sandbox <url>` as a child process, with an SDK client connected to it. */
async function connect(): Promise<{ client: Client; transport: StdioClientTransport; stderr: () => string }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ['--import', TSX_LOADER, BIN, 'mcp', '--sandbox', s.url, '--admin-token', TOKEN],
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += String(chunk)));
  const client = new Client({ name: 'ramp-sandbox-test', version: '1.0.0' });
  await client.connect(transport);
  pids.push(transport.pid!);
  return { client, transport, stderr: () => stderr };
}

/** The JSON a tool answered, or what its error said. */
function json(result: unknown): any {
  const r = result as CallToolResult;
  const first = r.content[0];
  if (first?.type !== 'text') throw new Error(`no text content: ${JSON.stringify(r)}`);
  return JSON.parse(first.text);
}

const gone = (pid: number) => !isRunning(pid);

describe('ramp-sandbox mcp', () => {
  it('lists the control API as tools, drives an order through them, and stops when the client closes', async () => {
    const { client, transport, stderr } = await connect();
    const pid = transport.pid!;
    expect(client.getServerVersion()).toMatchObject({ name: 'ramp-sandbox' });

    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(
      [
        'add_fault',
        'advance_clock',
        'clear_faults',
        'create_order',
        'create_partner',
        'decide_payout',
        'expire_order',
        'get_clock',
        'get_order',
        'get_state',
        'list_deliveries',
        'list_orders',
        'list_requests',
        'pay_in',
        'put_state',
        'retry_delivery',
        'simulate',
      ].sort(),
    );
    const createOrder = tools.find((t) => t.name === 'create_order')!;
    expect(createOrder.inputSchema.required).toEqual(['client_id', 'from', 'to']);
    expect(createOrder.description).toMatch(/POST \/sandbox\/orders/);

    const partner = json(await client.callTool({ name: 'create_partner', arguments: { name: 'MCP partner', webhook_url: receiver.url } }));
    expect(partner.keys.test.secret_key).toMatch(/^sk_test_/);

    const order = json(
      await client.callTool({
        name: 'create_order',
        arguments: {
          client_id: partner.client_id,
          from: { currency: 'NGN', amount: 50_000 },
          to: { currency: 'USDT', network: 'base-sepolia' },
        },
      }),
    );
    expect(order).toMatchObject({ status: 'awaiting_user_payment', type: 'onramp' });
    // The tool answers what the control API answers.
    expect(order).toEqual(await s.controlApi.sandboxGetOrder({ params: { reference: order.reference } }));

    const paid = json(await client.callTool({ name: 'pay_in', arguments: { reference: order.reference } }));
    expect(paid).toMatchObject({ reference: order.reference, status: 'processing', amount_paid: 50_000 });

    const advanced = json(await client.callTool({ name: 'advance_clock', arguments: { duration: '1h' } }));
    expect(advanced.fired_count).toBeGreaterThan(0);
    expect(json(await client.callTool({ name: 'get_order', arguments: { reference: order.reference } })).status).toBe('completed');

    const deliveries = json(await client.callTool({ name: 'list_deliveries', arguments: { order: order.reference, per_page: 100 } }));
    expect(deliveries.meta).toMatchObject({ current_page: 1 });
    expect(deliveries.data.map((d: { event: string }) => d.event)).toEqual(
      expect.arrayContaining(['order.created', 'order.fiat_recieved', 'order.settled']),
    );
    expect(deliveries.data.every((d: { status: string }) => d.status === 'succeeded')).toBe(true);
    expect(deliveries).toEqual(await s.controlApi.listDeliveries({ query: { order: order.reference, per_page: 100 } }));

    // simulate: a second order taken to refunded in one call.
    const second = json(
      await client.callTool({
        name: 'create_order',
        arguments: {
          client_id: partner.client_id,
          from: { currency: 'NGN', amount: 20_000 },
          to: { currency: 'USDT', network: 'base-sepolia' },
        },
      }),
    );
    const simulated = json(
      await client.callTool({
        name: 'simulate',
        arguments: { reference: second.reference, status: 'refunded', reason: 'payout bank down' },
      }),
    );
    expect(simulated).toMatchObject({
      reference: second.reference,
      status: 'refunded',
      path: expect.arrayContaining(['failed', 'refunded']),
    });
    const unreachable = await client.callTool({ name: 'simulate', arguments: { reference: second.reference, status: 'completed' } });
    expect(unreachable.isError).toBe(true);
    expect(json(unreachable)).toMatchObject({
      status: false,
      code: 'E_BADREQUEST',
      message: expect.stringContaining('not reachable from refunded'),
    });

    const orders = json(await client.callTool({ name: 'list_orders', arguments: { client_id: partner.client_id } }));
    expect(orders.data.map((o: { reference: string }) => o.reference)).toEqual([second.reference, order.reference]);
    expect(json(await client.callTool({ name: 'get_clock', arguments: {} })).mode).toBe('manual');

    await client.close();
    await expect.poll(() => gone(pid), { timeout: 15_000 }).toBe(true);
    expect(stderr()).toBe('');
  });

  it('answers a control API refusal as a tool error holding the envelope', async () => {
    const { client } = await connect();
    const missing = await client.callTool({ name: 'pay_in', arguments: { reference: 'ORDNOSUCHORDER' } });
    expect(missing.isError).toBe(true);
    expect(json(missing)).toEqual({ status: false, code: 'E_NOTFOUND', message: expect.stringContaining('ORDNOSUCHORDER') });

    const noDuration = await client.callTool({ name: 'advance_clock', arguments: {} });
    expect(noDuration.isError).toBe(true);
    expect(json(noDuration)).toEqual({ status: false, code: 'E_VALIDATION_ERROR', message: 'ms: give exactly one of ms, to or duration' });

    const badDuration = await client.callTool({ name: 'advance_clock', arguments: { duration: 'x'.repeat(10_000) } });
    expect(json(badDuration)).toMatchObject({ status: false, code: 'E_VALIDATION_ERROR', message: expect.stringMatching(/^duration: /) });

    const badState = await client.callTool({ name: 'put_state', arguments: { document: { version: 'nope' } } });
    expect(json(badState)).toMatchObject({ status: false, code: 'E_VALIDATION_ERROR' });

    // What the tool's own schema refuses is a tool error too (the SDK's wording).
    const badOutcome = await client.callTool({ name: 'decide_payout', arguments: { reference: 'ORD1', outcome: 'maybe' } });
    expect(badOutcome.isError).toBe(true);
    expect((badOutcome as CallToolResult).content[0]).toMatchObject({ type: 'text', text: expect.stringMatching(/outcome/) });
    const unknownTool = await client.callTool({ name: 'drop_database', arguments: {} });
    expect(unknownTool.isError).toBe(true);
    await client.close();
  });

  it('adds and clears faults, and saves and restores the state', async () => {
    const { client } = await connect();
    const fault = json(await client.callTool({ name: 'add_fault', arguments: { path: '/v1/networks', error: { status: 503 }, times: 1 } }));
    expect(fault).toMatchObject({ id: expect.stringMatching(/^flt_/), times: 1 });
    expect((await s.signed('GET', '/v1/networks')).status).toBe(503);
    const requests = json(await client.callTool({ name: 'list_requests', arguments: { path: '/v1/networks', limit: 1 } }));
    expect(requests.data[0]).toMatchObject({ status: 503, fault: fault.id });
    const second = json(await client.callTool({ name: 'add_fault', arguments: { path: '/v1/orders/**', latency_ms: 1 } }));
    // Issue item 5: "." (or "..", or "") is no fault id; fetch would have made it DELETE /sandbox/faults (all).
    for (const id of ['.', '..', '']) {
      const refused = (await client.callTool({ name: 'clear_faults', arguments: { id } })) as CallToolResult;
      expect(refused.isError).toBe(true);
      expect(refused.content[0]).toMatchObject({
        type: 'text',
        text: expect.stringContaining(`params.id must not be ${JSON.stringify(id)}`),
      });
    }
    expect((await s.controlApi.listFaults()).map((f: { id: string }) => f.id)).toContain(second.id);
    expect(json(await client.callTool({ name: 'clear_faults', arguments: { id: second.id } }))).toMatchObject({ id: second.id });
    expect(json(await client.callTool({ name: 'clear_faults', arguments: {} }))).toEqual({ removed: 0 });
    // CONTRACT §22: a window of virtual time, skip, and the new kinds
    const timed = json(
      await client.callTool({
        name: 'add_fault',
        arguments: { path: '/v1/fiat-currencies', malformed: 1, reset: 0, truncate: 3, window: { to: '5m' }, skip: 2 },
      }),
    );
    expect(timed).toMatchObject({ malformed: 1, reset: 0, truncate: 3, skip: 2, skipped: 0, window: { to: expect.stringMatching(/Z$/) } });
    expect(json(await client.callTool({ name: 'clear_faults', arguments: {} }))).toEqual({ removed: 1 });

    const state = json(await client.callTool({ name: 'get_state', arguments: {} }));
    expect(state).toMatchObject({ version: expect.any(Number), partners: expect.any(Array) });
    expect(state).toEqual(await s.controlApi.getState());
    const summary = json(await client.callTool({ name: 'put_state', arguments: { document: state } }));
    expect(summary.partners).toBe(state.partners.length);
    await client.close();
  });

  it('reads a put_state message over the SDK stdio limit of 10 MiB (a large state), and answers it', async () => {
    const { client, transport } = await connect();
    // 11 MiB: the SDK's transport closed the session on it and the server exited 0, in silence.
    const document = { version: 1, padding: 'x'.repeat(11 * 1024 * 1024) };
    const result = (await client.callTool({ name: 'put_state', arguments: { document } })) as CallToolResult;
    expect(result.isError).toBe(true);
    expect(json(result)).toMatchObject({ status: false, code: expect.stringMatching(/^E_/) });
    expect(isRunning(transport.pid!)).toBe(true);
    await client.close();
  });

  it('answers a message over --max-message-bytes with a JSON-RPC error naming its id, and goes on', async () => {
    const child = spawnTs(BIN, ['mcp', '--sandbox', s.url, '--admin-token', TOKEN, '--max-message-bytes', '65536'], {
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    pids.push(child.pid!);
    const answers: any[] = [];
    let buffered = '';
    const waiters: Array<() => void> = [];
    child.stdout!.setEncoding('utf8').on('data', (c: string) => {
      buffered += c;
      for (let nl = buffered.indexOf('\n'); nl >= 0; nl = buffered.indexOf('\n')) {
        answers.push(JSON.parse(buffered.slice(0, nl)));
        buffered = buffered.slice(nl + 1);
      }
      for (const wake of waiters.splice(0)) wake();
    });
    let gone = false;
    const exited = once(child, 'exit');
    void exited.then(() => {
      gone = true;
      for (const wake of waiters.splice(0)) wake();
    });
    const answerTo = async (id: number) => {
      for (;;) {
        const found = answers.find((a) => a.id === id);
        if (found) return found;
        if (gone) throw new Error(`mcp exited before answering ${id}`);
        await new Promise<void>((resolve) => waiters.push(resolve));
      }
    };
    const send = (message: object) => child.stdin!.write(`${JSON.stringify(message)}\n`);
    send({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    });
    await answerTo(1);
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    // The SDK's client writes the id last; sent in pieces, as a pipe delivers a large write.
    const big = JSON.stringify({
      method: 'tools/call',
      params: { name: 'put_state', arguments: { document: { padding: 'y'.repeat(200_000) } } },
      jsonrpc: '2.0',
      id: 7,
    });
    for (let i = 0; i < big.length; i += 50_000) child.stdin!.write(big.slice(i, i + 50_000));
    child.stdin!.write('\n');
    expect(await answerTo(7)).toEqual({
      jsonrpc: '2.0',
      id: 7,
      error: { code: -32600, message: expect.stringMatching(/^Message of \d+ bytes is over the 65536-byte limit/) },
    });
    send({ jsonrpc: '2.0', id: 8, method: 'tools/list' });
    expect((await answerTo(8)).result.tools.length).toBeGreaterThan(0);
    child.stdin!.end();
    expect(await exited).toEqual([0, null]);
  });

  it('exits 0 on SIGTERM, writing nothing but the protocol to stdout', async () => {
    const child = spawnTs(BIN, ['mcp', '--sandbox', s.url, '--admin-token', TOKEN], { stdio: ['pipe', 'pipe', 'pipe'] });
    pids.push(child.pid!);
    let out = '';
    child.stdout!.setEncoding('utf8').on('data', (c: string) => (out += c));
    const exited = once(child, 'exit');
    child.stdin!.write(
      `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } })}\n`,
    );
    await new Promise<void>((resolve) => child.stdout!.on('data', () => out.includes('\n') && resolve()));
    child.kill('SIGTERM');
    expect(await exited).toEqual([0, null]);
    const lines = out.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({ jsonrpc: '2.0', id: 1, result: { serverInfo: { name: 'ramp-sandbox' } } });
  });

  it('refuses to start with one line when the sandbox cannot be reached or refuses, and on bad usage', async () => {
    const [unreachable, noToken, extra, unknownFlag] = await Promise.all([
      deadUrl().then((url) => runCli(['mcp', '--sandbox', url])),
      runCli(['mcp', '--sandbox', s.url], { env: { SANDBOX_ADMIN_TOKEN: undefined } }),
      runCli(['mcp', 'now', '--sandbox', s.url]),
      runCli(['mcp', '--stdio']),
    ]);
    for (const res of [unreachable, noToken]) {
      expect(res.code).toBe(1);
      expect(res.stderr).toMatch(/^ramp-sandbox mcp: [^\n]+\n$/);
      expect(res.stdout).toBe('');
    }
    expect(unreachable.stderr).toMatch(/cannot reach the sandbox at http:\/\/127\.0\.0\.1:\d+ \(ECONNREFUSED\)/);
    expect(noToken.stderr).toMatch(/GET \/sandbox\/clock answered 401 E_UNAUTHORIZED/);
    for (const res of [extra, unknownFlag]) {
      expect(res.code).toBe(2);
      expect(res.stderr).toMatch(/^ramp-sandbox mcp: [^\n]+\n\nUsage: ramp-sandbox mcp/);
    }
  });
});
