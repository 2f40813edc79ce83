#!/usr/bin/env node
import { PACKAGE_VERSION } from '../shared/package-root';
import { needsSingleThreadedGc, rerunWithSingleThreadedGc } from './gc-threads';
import { MCP_USAGE } from './mcp-usage';
import { runMain, type CommandMain } from './run-main';

/**
 * The `ramp-sandbox` command (CONTRACT §14): one dispatcher over the subcommand modules, which
 * load lazily so `--help` and `--version` answer without starting the sandbox's code.
 */
const COMMANDS: Record<string, { summary: string; load: () => Promise<{ main: CommandMain }> }> = {
  serve: {
    summary: 'start the sandbox (the default; npm start in a clone)',
    load: () => import('./serve.command'),
  },
  scenarios: {
    summary: 'run scenario files, or the shipped library, and exit non-zero on a failure',
    load: () => import('./scenarios.command'),
  },
  sign: {
    summary: 'print a signed curl for a request (demo partner keys by default)',
    load: () => import('./sign.command'),
  },
  trigger: {
    summary: 'send one signed webhook delivery of an event now, and print the answer',
    load: () => import('./trigger.command'),
  },
  simulate: {
    summary: 'take an order to a status in one call, sending every webhook on the way',
    load: () => import('./simulate.command'),
  },
  tail: {
    summary: 'follow /v1 requests and webhook attempts as they happen (Ctrl-C stops)',
    load: () => import('./tail.command'),
  },
  mcp: {
    summary: "a Model Context Protocol server on stdio: the control API as an agent's tools",
    // An optional peer dependency: its server stack (express, hono, …) is not put on every
    // install of the sandbox, and its express's typings break a consumer's strict typecheck.
    load: () => import('./mcp.command').catch((error: unknown) => missingPackage(error, MCP_SDK)),
  },
  vectors: {
    summary: 'print the webhook signature test vectors (offline; docs/webhook-signature-vectors.json)',
    load: () => import('./vectors.command'),
  },
  postman: {
    summary: 'write the Postman collection of a running sandbox (/v1, signed requests)',
    load: () => import('./postman.command'),
  },
  readiness: {
    summary: 'open a readiness run for a partner, or finish one and print its verdict per check (CI: exit 1 on not_ready)',
    load: () => import('./readiness.command'),
  },
  listen: {
    summary: "relay a partner's webhook deliveries from a (remote) sandbox to a local receiver",
    load: () => import('./listen.command'),
  },
};

const HELP = `ramp-sandbox ${PACKAGE_VERSION}: an in-memory Partner Order API sandbox

Usage: ramp-sandbox [COMMAND] [options]

Commands:
${Object.entries(COMMANDS)
  .map(([name, c]) => `  ${name.padEnd(11)} ${c.summary}`)
  .join('\n')}
  help [CMD]  this text, or a command's options (same as ramp-sandbox CMD --help)

Options without a command go to serve: ramp-sandbox --port 0 --clock manual

  --help, -h      this text
  --version, -v   the version

Examples:
  ramp-sandbox serve --port 4010 --clock manual
  ramp-sandbox scenarios cancel onramp-happy-path --target http://127.0.0.1:3000/webhooks
  ramp-sandbox sign GET /v1/networks
  ramp-sandbox tail --sandbox http://127.0.0.1:4010
  ramp-sandbox simulate ORD1234 refunded
`;

const MCP_SDK = '@modelcontextprotocol/sdk';

/** A command whose optional package is not installed: one line that says how to get it, exit 1. */
function missingPackage(error: unknown, name: string): { main: CommandMain } {
  const e = error as NodeJS.ErrnoException;
  if ((e?.code !== 'ERR_MODULE_NOT_FOUND' && e?.code !== 'MODULE_NOT_FOUND') || !String(e.message).includes(name)) throw error;
  return {
    main: async (argv) => {
      if (argv.includes('--help') || argv.includes('-h')) {
        // The help is the command's own, and says what it needs.
        process.stdout.write(
          `${MCP_USAGE}\nIt needs ${name}, an optional peer dependency, not installed here: npm install ${name} beside ramp-sandbox.\n`,
        );
        return;
      }
      process.stderr.write(
        `ramp-sandbox mcp needs ${name}, an optional peer dependency: npm install ${name} beside ramp-sandbox, or run npx -p ramp-sandbox -p ${name} ramp-sandbox mcp\n`,
      );
      process.exitCode = 1;
    },
  };
}

/** Picks the subcommand of `argv` (arguments after the program name) and runs it. */
export async function dispatch(argv: string[]): Promise<void> {
  const [first, ...rest] = argv;
  if (first === '--help' || first === '-h' || (first === 'help' && rest.length === 0)) {
    process.stdout.write(HELP);
    return;
  }
  if (first === '--version' || first === '-v') {
    process.stdout.write(`${PACKAGE_VERSION}\n`);
    return;
  }
  if (first === 'help') return dispatch([rest[0] ?? '', '--help']);
  if (first === undefined || first.startsWith('-')) return run('serve', argv);
  return run(first, rest);
}

async function run(name: string, argv: string[]): Promise<void> {
  const command = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (!command) {
    process.stderr.write(
      `ramp-sandbox: unknown command '${name}'. Commands: ${Object.keys(COMMANDS).join(', ')}, help. See ramp-sandbox --help.\n`,
    );
    process.exitCode = 2;
    return;
  }
  // serve on one CPU: run again with V8's GC on the main thread (decision 017), before loading it.
  if (name === 'serve' && needsSingleThreadedGc(argv)) {
    rerunWithSingleThreadedGc();
    return;
  }
  const { main } = await command.load();
  await main(argv);
}

runMain(dispatch);
