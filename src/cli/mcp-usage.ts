// What `ramp-sandbox mcp --help` prints, apart from the command itself: its help shows without
// the optional MCP SDK installed (the command's module imports it).
import { REMOTE_USAGE } from './remote';

/**
 * The largest message `ramp-sandbox mcp` reads: `put_state` carries a whole state document, which
 * `PUT /sandbox/state` takes up to 256 MiB (CONTRACT §13), plus room for the JSON-RPC envelope.
 * The SDK's own stdio transport stops at 10 MiB, and then closes: the server exited 0 in silence.
 */
export const MCP_MAX_MESSAGE_BYTES = 257 * 1024 * 1024;

export const MCP_USAGE = `Usage: ramp-sandbox mcp [options]

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
