/**
 * MCP stdio read bench (docs/decisions/027-mcp-line-transport.md): the time to read one JSON-RPC
 * message of N MiB arriving in 64 KiB chunks (what a pipe hands node), through the SDK's
 * `ReadBuffer` (what `StdioServerTransport` uses, with its limit raised to fit) and through
 * `LineTransport` (src/cli/mcp-stdio.ts).
 *
 *   npx tsx bench/mcp-read.ts [--mib 1,8,32] [--rounds 3]
 *
 * The SDK's buffer copies everything read so far at every chunk (Buffer.concat), so its time grows
 * with the square of the message; the line transport keeps the chunks and joins them once.
 */
import { PassThrough } from 'node:stream';
import { parseArgs } from 'node:util';
import { ReadBuffer } from '@modelcontextprotocol/sdk/shared/stdio.js';
import { LineTransport } from '../src/cli/mcp-stdio';
import { median } from './stats';

const { values: flags } = parseArgs({ options: { mib: { type: 'string', default: '1,8,32' }, rounds: { type: 'string', default: '3' } } });
const sizes = flags.mib.split(',').map(Number);
const ROUNDS = Number(flags.rounds);
const CHUNK = 64 * 1024;

/** One `tools/call` line of about `mib` MiB, cut into pipe-sized chunks. */
function message(mib: number): Buffer[] {
  const filler = 'x'.repeat(mib * 1024 * 1024);
  const line = Buffer.from(
    `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'put_state', arguments: { filler } } })}\n`,
  );
  const chunks: Buffer[] = [];
  for (let at = 0; at < line.length; at += CHUNK) chunks.push(line.subarray(at, at + CHUNK));
  return chunks;
}

function sdk(chunks: Buffer[]): number {
  const t = performance.now();
  const buffer = new ReadBuffer({ maxBufferSize: 1024 * 1024 * 1024 });
  let read = 0;
  for (const chunk of chunks) {
    buffer.append(chunk);
    while (buffer.readMessage() !== null) read++;
  }
  if (read !== 1) throw new Error(`the SDK read ${read} messages`);
  return performance.now() - t;
}

async function lines(chunks: Buffer[]): Promise<number> {
  const input = new PassThrough();
  const transport = new LineTransport(input, new PassThrough(), 1024 * 1024 * 1024);
  let read = 0;
  transport.onmessage = () => read++;
  await transport.start();
  const t = performance.now();
  for (const chunk of chunks) input.emit('data', chunk);
  const ms = performance.now() - t;
  await transport.close();
  if (read !== 1) throw new Error(`the line transport read ${read} messages`);
  return ms;
}

console.log('| message | SDK ReadBuffer (median ms) | LineTransport (median ms) |\n|---|---|---|');
for (const mib of sizes) {
  const chunks = message(mib);
  const a: number[] = [];
  const b: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    a.push(sdk(chunks));
    b.push(await lines(chunks));
  }
  console.log(`| ${mib} MiB | ${median(a).toFixed(1)} | ${median(b).toFixed(1)} |`);
}
