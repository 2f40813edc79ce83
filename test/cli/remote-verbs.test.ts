import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, startCli } from '../support/cli';

// CONTRACT §17: the verbs for a running sandbox, against a server that is not a well-behaved
// sandbox: one that never answers (a signal must still stop the verb at once) and one that
// answers 2xx with no data (one line saying so, not a JavaScript error).
let hanging: Server;
let hangingUrl: string;
let arrived: () => void = () => {};
let nulls: Server;
let nullsUrl: string;
const held: ServerResponse[] = [];

async function listen(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<[Server, string]> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return [server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`];
}

beforeAll(async () => {
  [hanging, hangingUrl] = await listen((req, res) => {
    held.push(res); // never answered
    req.resume();
    arrived();
  });
  [nulls, nullsUrl] = await listen((req, res) => {
    req.resume();
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":true,"data":null}');
  });
});
afterAll(async () => {
  for (const res of held) res.destroy();
  hanging.closeAllConnections();
  await Promise.all([new Promise((r) => hanging.close(r)), new Promise((r) => nulls.close(r))]);
});

const verbs: string[][] = [
  ['simulate', 'ORDX', 'completed'],
  ['trigger', 'order.created'],
  ['readiness', '--client-id', 'ptr_x'],
  ['postman', '--out', '-'],
];

describe('a verb waiting on a sandbox that does not answer', () => {
  it.each([...verbs.map((v) => [v, 'SIGINT', 130] as const), [verbs[0]!, 'SIGTERM', 143] as const])(
    "%j stops on %s at once, with one line and the shell's code",
    async (args, signal, code) => {
      const request = new Promise<void>((resolve) => {
        arrived = resolve;
      });
      const cli = startCli([...args, '--sandbox', hangingUrl]);
      await request; // it is waiting for the answer now
      const started = performance.now();
      cli.child.kill(signal);
      const res = await cli.done;
      expect(res.code).toBe(code);
      expect(res.stderr).toBe(`ramp-sandbox ${args[0]}: stopped by ${signal}\n`);
      // not the HTTP client's own timeout (about 300 s): a generous bound for a loaded machine
      expect(performance.now() - started).toBeLessThan(10_000);
    },
  );
});

describe('a server that answers 2xx without data', () => {
  it.each(verbs)('%s says the answer is unexpected, in one line, exit 1', async (...args) => {
    const res = await runCli([...args, '--sandbox', nullsUrl]);
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/^ramp-sandbox \w+: (GET|POST) \/sandbox\/\S+: unexpected answer 200 \{"status":true,"data":null\}\n$/);
    expect(res.stdout).toBe('');
  });
});
