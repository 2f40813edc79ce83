import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { PACKAGE_VERSION } from '../shared/package-root';
import { LineTransport, MCP_MAX_MESSAGE_BYTES } from './mcp-stdio';
import { registerControlTools } from './mcp-tools';
import { oneLine } from './output';
import { REMOTE_USAGE, runRemote, UsageError } from './remote';

const USAGE = `Usage: ramp-sandbox mcp [options]

A Model Context Protocol server on stdio whose tools are a running sandbox's control API
(create partner, create order, pay in, payout outcome, simulate, expire, advance the clock, list orders,
deliveries and requests, retry a delivery, add and clear faults, get and put the state), so a
coding agent can drive the sandbox. Each tool answers the control API's JSON; a refusal is a
tool error holding the control API's error envelope. Start it from your agent's MCP settings:

  {"command": "npx", "args": ["ramp-sandbox", "mcp", "--sandbox", "http://127.0.0.1:4010"]}

It checks the sandbox answers before it starts (exit 1 with one line when it does not), and
stops when its stdin closes or on SIGINT/SIGTERM (exit 0), or when its stdin fails (exit 1).
Nothing but the protocol goes to stdout. A message over --max-message-bytes is answered with a
JSON-RPC error (-32600) and skipped; the session goes on.

  --max-message-bytes N   the largest message read (default ${MCP_MAX_MESSAGE_BYTES}: a 256 MiB state for put_state)
${REMOTE_USAGE}
`;

/** `ramp-sandbox mcp` (CONTRACT §17). */
export async function main(argv: string[]): Promise<void> {
  await runRemote(
    'mcp',
    USAGE,
    { 'max-message-bytes': { type: 'string' } },
    async ({ values, positionals, control, baseUrl, signal }) => {
      if (positionals.length > 0) throw new UsageError(`mcp takes no arguments (given: ${oneLine(positionals.join(' '), 80)})`);
      const maxBytes = maxMessageBytes(values['max-message-bytes']);
      // Fail now, in one line, rather than on every tool call of an agent that cannot see why.
      await control.getClock();
      const server = new McpServer(
        { name: 'ramp-sandbox', version: PACKAGE_VERSION },
        {
          instructions: `Tools for the ramp-sandbox at ${baseUrl}: a simulator of the Partner Order API (crypto on/off-ramp orders). Create a partner and an order, pay it in, advance the virtual clock to run its lifecycle, and read the orders, webhook deliveries and /v1 requests it made.`,
        },
      );
      registerControlTools(server, control, baseUrl);
      const closed = new Promise<void>((resolve) => {
        server.server.onclose = resolve;
      });
      const transport = new LineTransport(process.stdin, process.stdout, maxBytes);
      await server.connect(transport);
      // The client closing our stdin, or a signal, ends the session.
      const stop = () => void server.close();
      process.stdin.once('end', stop);
      if (process.stdin.readableEnded) stop();
      signal.addEventListener('abort', stop, { once: true });
      if (signal.aborted) stop();
      await closed;
      // A session that ended on a failure is not a clean stop (CONTRACT §17: never exit 0 on one).
      if (transport.failure) throw new Error(`stdin failed: ${transport.failure.message}`);
    },
    argv,
  );
}

function maxMessageBytes(given: string | undefined): number {
  if (given === undefined) return MCP_MAX_MESSAGE_BYTES;
  const n = Number(given);
  if (!/^\d+$/.test(given) || !Number.isSafeInteger(n) || n < 1024)
    throw new UsageError(`--max-message-bytes must be a whole number of bytes, at least 1024 (given: ${oneLine(given, 40)})`);
  return n;
}
