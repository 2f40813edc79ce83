/**
 * CPU per request of the sandbox's app against bare Koa, in one process and without sockets
 * (issue 21 part 2): each app's `callback()` is handed node's own IncomingMessage and
 * ServerResponse over a socket that discards what is written, so HTTP parsing and the socket
 * write (the same for every server) are left out and what remains is the app: Koa, the
 * middleware, the route. CPU time (process.cpuUsage) rather than wall time, in alternating
 * rounds, so other work on the machine moves the figures much less than it moves a load test's.
 * The ratio bare ÷ sandbox estimates the throughput ratio of the throughput section on a quiet
 * machine, less the socket work both share (which brings a real ratio closer to 1).
 * It understates what CPU costs on a loaded server, though: on the pinned bench a few µs per
 * request moved the throughput ratio by several times as much (decision 002), so measure a
 * change to the request path with bench/ab.ts, and use this one to see where CPU goes.
 *
 * Usage: node --import tsx bench/per-request.ts [--rounds 9] [--requests 20000] [--only networks,order,create] [--sandbox-only] [--inspect-limit N] [--fill N]
 * (`--fill N`: N completed orders stored first, `FILLED` printed; with --trace-gc, what the GC does beside a store.)
 * (`--sandbox-only` with `--cpu-prof`: a CPU profile of the sandbox's requests alone; `--sandbox-only` or
 * `--bare-only` under `valgrind --tool=callgrind`, two request counts: instructions per request.) Prints one JSON line last.
 */
import Koa from 'koa';
import Router from '@koa/router';
import bodyParser from 'koa-bodyparser';
import { IncomingMessage, ServerResponse } from 'node:http';
import { Duplex } from 'node:stream';
import { parseArgs } from 'node:util';
import { signRequest } from '../src/auth';
import { createSandbox } from '../src/sandbox/sandbox';
import type { RunningSandbox } from '../src/sandbox/server';
import { fill } from './fill';

const { values: flags } = parseArgs({
  options: {
    rounds: { type: 'string', default: '9' },
    requests: { type: 'string', default: '20000' },
    only: { type: 'string' },
    'sandbox-only': { type: 'boolean', default: false },
    'bare-only': { type: 'boolean', default: false },
    'inspect-limit': { type: 'string' },
    fill: { type: 'string' },
  },
});
const ROUNDS = Number(flags.rounds);
const REQUESTS = Number(flags.requests);

/** A socket that takes every write and answers nothing: the response's bytes go nowhere. */
class NullSocket extends Duplex {
  readonly remoteAddress = '127.0.0.1';
  readonly remotePort = 40000;
  readonly encrypted = false;
  override _read(): void {}
  override _write(_chunk: unknown, _enc: BufferEncoding, done: (error?: Error | null) => void): void {
    done();
  }
  override _writev(_chunks: unknown, done: (error?: Error | null) => void): void {
    done();
  }
  setTimeout(): this {
    return this;
  }
  setNoDelay(): this {
    return this;
  }
  setKeepAlive(): this {
    return this;
  }
}

interface Req {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
}

/** One request through `handler`; resolves with the status once the response is finished. */
function once(handler: (req: IncomingMessage, res: ServerResponse) => void, r: Req, socket: NullSocket): Promise<number> {
  const req = new IncomingMessage(socket as never);
  req.method = r.method;
  req.url = r.path;
  req.httpVersion = '1.1';
  req.httpVersionMajor = 1;
  req.httpVersionMinor = 1;
  const headers: Record<string, string> = { host: '127.0.0.1:4010', 'user-agent': 'wrk', ...lower(r.headers) };
  if (r.body !== undefined) headers['content-length'] = String(Buffer.byteLength(r.body));
  req.headers = headers;
  req.rawHeaders = Object.entries(headers).flat();
  if (r.body !== undefined) req.push(Buffer.from(r.body));
  // As the HTTP parser marks a request read to its end (else ending it destroys the socket).
  req.complete = true;
  req.push(null);
  const res = new ServerResponse(req);
  res.assignSocket(socket as never);
  return new Promise((resolve) => {
    res.on('finish', () => {
      res.detachSocket(socket as never);
      resolve(res.statusCode);
    });
    handler(req, res);
  });
}

const lower = (h: Record<string, string>) => Object.fromEntries(Object.entries(h).map(([k, v]) => [k.toLowerCase(), v]));

// --- the two apps ------------------------------------------------------------------------------

const sandbox = createSandbox({
  logLevel: 'warn',
  clockMode: 'manual',
  clockStart: Date.UTC(2026, 0, 1),
  rateLimit: { capacity: 1e12, refillPerSecond: 1e12 },
  maxOrders: 10_000_000,
  ...(flags['inspect-limit'] ? { inspectLimit: Number(flags['inspect-limit']) } : {}),
});
const partner = sandbox.demoPartner;
const creds = { clientId: partner.client_id, secretKey: partner.keys.test.secret_key, encryptionKey: partner.keys.test.encryption_key };
const accountName = sandbox.reference.lookupAccount('058', '0123456789').account_name;
const offrampBody = JSON.stringify({
  from: { currency: 'USDT', network: 'base-sepolia', amount: 100 },
  to: { currency: 'NGN' },
  recipient: { institution_code: '058', account_number: '0123456789', account_name: accountName },
  customer: { reference: 'bench', name: 'Ada Obi', email: 'ada@example.com' },
});
const signed = (method: string, path: string, body?: string): Req => ({
  method,
  path,
  body,
  headers: { ...signRequest({ method, path, body, ...creds }), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
});

const sandboxHandler = sandbox.app.callback();
const created = JSON.parse(await capture(sandboxHandler, signed('POST', '/v1/orders', offrampBody))) as { data: { reference: string } };
const orderPath = `/v1/orders/${created.data.reference}`;
const answers = {
  networks: JSON.parse(await capture(sandboxHandler, signed('GET', '/v1/networks'))),
  order: JSON.parse(await capture(sandboxHandler, signed('GET', orderPath))),
  created,
};

const bare = new Koa();
const router = new Router();
router.get('/v1/networks', (ctx) => {
  ctx.body = answers.networks;
});
router.get('/v1/orders/:reference', (ctx) => {
  ctx.body = answers.order;
});
router.post('/v1/orders', (ctx) => {
  ctx.body = answers.created;
});
bare.use(bodyParser());
bare.use(router.routes());
const bareHandler = bare.callback();

/** The answer's body, captured from what the response writes. */
async function capture(handler: (req: IncomingMessage, res: ServerResponse) => void, r: Req): Promise<string> {
  const chunks: string[] = [];
  const s = new NullSocket();
  s._write = (chunk, _enc, done) => {
    chunks.push(String(chunk));
    done();
  };
  s._writev = (list, done) => {
    chunks.push(...(list as Array<{ chunk: unknown }>).map((c) => String(c.chunk)));
    done();
  };
  const status = await once(handler, r, s);
  const text = chunks.join('');
  const body = text.slice(text.indexOf('\r\n\r\n') + 4);
  if (status >= 300) throw new Error(`${r.method} ${r.path}: ${status} ${body}`);
  return body;
}

// --- rounds ------------------------------------------------------------------------------------

// A store of completed orders first (--fill N, bench/fill.ts): the GC then works beside it.
if (flags.fill) {
  await fill({ sandbox } as RunningSandbox, Number(flags.fill));
  process.stderr.write(`filled ${sandbox.orders.store.orders.size} orders\n`);
  // With --expose-gc: a full GC between the fill and the requests (sweeping done, the heap compacted).
  (globalThis as { gc?: () => void }).gc?.();
  process.stdout.write('FILLED\n');
}

const routes = [
  { key: 'networks', req: signed('GET', '/v1/networks') },
  { key: 'order', req: signed('GET', orderPath) },
  { key: 'create', req: signed('POST', '/v1/orders', offrampBody) },
].filter((r) => !flags.only || flags.only.split(',').includes(r.key));

/** CPU µs per request over `n` requests, 50 in flight at once (as the load test's connections). */
async function cpuPerRequest(handler: (req: IncomingMessage, res: ServerResponse) => void, r: Req, n: number): Promise<number> {
  const start = process.cpuUsage();
  let sent = 0;
  const worker = async () => {
    const socket = new NullSocket(); // one per connection: a socket holds one response at a time
    while (sent < n) {
      sent++;
      const status = await once(handler, r, socket);
      if (status >= 300) throw new Error(`${r.method} ${r.path}: ${status}`);
    }
  };
  await Promise.all(Array.from({ length: 50 }, worker));
  const used = process.cpuUsage(start);
  return (used.user + used.system) / n;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const out: Record<string, { sandboxUs: number; bareUs: number; ratio: number; rounds: number[] }> = {};
for (const r of routes) {
  // fresh signature per route: valid 300 s
  const req = { ...r.req, headers: signed(r.req.method, r.req.path, r.req.body).headers };
  // One app alone (with --cpu-prof, or under callgrind): the other is never loaded.
  const alone = flags['sandbox-only'] ? sandboxHandler : flags['bare-only'] ? bareHandler : undefined;
  if (!flags['bare-only']) await cpuPerRequest(sandboxHandler, req, 2000);
  if (!flags['sandbox-only']) await cpuPerRequest(bareHandler, req, 2000);
  const s: number[] = [];
  const b: number[] = [];
  const ratios: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    if (alone) {
      s.push(await cpuPerRequest(alone, req, REQUESTS));
      continue;
    }
    const order = i % 2 === 0 ? ([sandboxHandler, bareHandler] as const) : ([bareHandler, sandboxHandler] as const);
    const x = await cpuPerRequest(order[0], req, REQUESTS);
    const y = await cpuPerRequest(order[1], req, REQUESTS);
    const [sx, bx] = i % 2 === 0 ? [x, y] : [y, x];
    s.push(sx);
    b.push(bx);
    ratios.push(bx / sx);
  }
  out[r.key] = {
    sandboxUs: Math.round(median(s) * 10) / 10,
    bareUs: b.length ? Math.round(median(b) * 10) / 10 : NaN,
    ratio: ratios.length ? Math.round(median(ratios) * 100) / 100 : NaN,
    rounds: ratios.map((x) => Math.round(x * 100) / 100),
  };
  process.stderr.write(
    `${r.key}: sandbox ${out[r.key]!.sandboxUs} µs, bare Koa ${out[r.key]!.bareUs} µs of CPU per request; bare ÷ sandbox ${out[r.key]!.ratio} (rounds ${out[r.key]!.rounds.join(' ')})\n`,
  );
}
// Heap after GC with what the requests left (the inspector's ring full of them), when --expose-gc.
const gc = (globalThis as { gc?: () => void }).gc;
let heapAfterGcMiB: number | undefined;
if (gc) {
  gc();
  gc();
  heapAfterGcMiB = Math.round((process.memoryUsage().heapUsed / 2 ** 20) * 10) / 10;
}
sandbox.close();
process.stdout.write(
  `${JSON.stringify({ requests: REQUESTS, rounds: ROUNDS, stored: sandbox.orders.store.orders.size, heapAfterGcMiB, inspected: sandbox.requests.size, routes: out })}\n`,
);
