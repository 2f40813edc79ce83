import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { LineTransport } from './mcp-stdio';

/** A transport over two in-memory pipes; what it sends, parsed, and what it was handed. */
function pipes(maxBytes = 1024) {
  const input = new PassThrough();
  const output = new PassThrough();
  const sent: Array<{ id?: unknown; error?: { code: number; message: string } }> = [];
  output.setEncoding('utf8').on('data', (line: string) =>
    sent.push(
      ...line
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l)),
    ),
  );
  const transport = new LineTransport(input, output, maxBytes);
  const received: unknown[] = [];
  const errors: Error[] = [];
  let closed = false;
  transport.onmessage = (m) => received.push(m);
  transport.onerror = (e) => errors.push(e);
  transport.onclose = () => (closed = true);
  return { input, transport, sent, received, errors, closed: () => closed };
}

const tick = () => new Promise((r) => setImmediate(r));

// Issue item 4 (CONTRACT §17): the SDK's stdio transport closed the session on a message over
// 10 MiB, and `mcp` exited 0 in silence.
describe('LineTransport', () => {
  it('reads one message a line, across chunks, and skips an oversized one with a JSON-RPC error carrying its id', async () => {
    const p = pipes();
    await p.transport.start();
    const ping = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' });
    p.input.write(ping.slice(0, 10));
    p.input.write(`${ping.slice(10)}\n`);
    // The id first (as most encoders write it), then last (as the SDK's client does), then none.
    const first = `{"jsonrpc":"2.0","id":"a\\"b","method":"tools/call","params":{"x":"${'y'.repeat(2000)}"}}`;
    p.input.write(`${first}\n`);
    p.input.write(`{"method":"tools/call","params":{"arguments":{"id":9,"x":"${'y'.repeat(2000)}"}},"jsonrpc":"2.0","id":7}\r\n`);
    p.input.write(`{"method":"notifications/x","params":{"x":"${'y'.repeat(2000)}"}}\n`);
    p.input.write(`${ping.replace('1', '2')}\n`);
    await tick();
    expect(p.received).toEqual([JSON.parse(ping), { jsonrpc: '2.0', id: 2, method: 'ping' }]);
    expect(p.sent.map((m) => m.id)).toEqual(['a"b', 7, null]);
    for (const m of p.sent)
      expect(m.error).toEqual({
        code: -32600,
        message: expect.stringMatching(/^Message of \d+ bytes is over the 1024-byte limit of ramp-sandbox mcp/),
      });
    expect(p.sent[0]!.error!.message).toMatch(new RegExp(`^Message of ${Buffer.byteLength(first)} bytes`));
    expect(p.closed()).toBe(false);
  });

  it('answers a line that is not JSON -32700 and one that is no JSON-RPC message -32600 (with its id), and reads on', async () => {
    const p = pipes();
    await p.transport.start();
    p.input.write('this is not json\n');
    p.input.write('{"id":7,"hello":"world"}\n');
    p.input.write(`${JSON.stringify({ jsonrpc: '2.0', id: 8, method: 'ping' })}\n`);
    await tick();
    expect(p.sent).toEqual([
      { jsonrpc: '2.0', id: null, error: { code: -32700, message: expect.stringMatching(/^Parse error: /) } },
      { jsonrpc: '2.0', id: 7, error: { code: -32600, message: 'Invalid Request: not a JSON-RPC 2.0 message' } },
    ]);
    expect(p.received).toEqual([{ jsonrpc: '2.0', id: 8, method: 'ping' }]);
    expect(p.errors).toHaveLength(2);
  });

  it('ends the session as a failure when its input fails, so the command exits non-zero', async () => {
    const p = pipes();
    await p.transport.start();
    p.input.destroy(new Error('EIO: read failed'));
    await tick();
    expect(p.closed()).toBe(true);
    expect(p.transport.failure?.message).toBe('EIO: read failed');
    expect(p.errors.map((e) => e.message)).toEqual(['EIO: read failed']);
  });
});
