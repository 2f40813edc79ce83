import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { PACKAGE_VERSION } from '../shared/package-root';
import { LineTransport } from './mcp-stdio';
import { MCP_MAX_MESSAGE_BYTES, MCP_USAGE as USAGE } from './mcp-usage';
import { registerControlTools } from './mcp-tools';
import { oneLine } from './output';
import { runRemote, UsageError } from './remote';

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
