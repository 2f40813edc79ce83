/**
 * Bench servers, one per process: `sandbox` (the real app, manual clock, rate limit lifted),
 * `bare` (plain Koa 3 + @koa/router answering the same JSON bodies from memory) or `http` (plain
 * node:http answering them: the fastest server the bench measures, so the proof that the load
 * generator outruns every server). Prints `PORT <n>` when ready.
 *
 * Spawned with an IPC channel and BENCH_CONTROL=1, the sandbox also answers the bench's
 * messages (bench only: nothing of this is in src/ or on any route): heap after GC (needs
 * --expose-gc), filling the running sandbox with completed orders, a CPU profile of the
 * next requests, the cost of the request inspector's hooks on a captured real request, the
 * store's size (once, or once a second during a load: creates per second) and a reset.
 * With BENCH_RETAIN (bench/tail.ts), what a run keeps outside the store: `text` each created
 * order's answer as `JSON.stringify` of its body, `copy` a `structuredClone` of it, `records` the
 * store's order records at each reset.
 */
import Koa, { type Context } from 'koa';
import Router from '@koa/router';
import bodyParser from 'koa-bodyparser';
import { createServer, type ServerResponse } from 'node:http';
import { constants, createHistogram, monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';
import { getHeapStatistics } from 'node:v8';
import { startServer, type RunningSandbox } from '../src/sandbox/server';
import { recordRequests } from '../src/http/inspector/recorder';
import { RequestLog } from '../src/http/inspector/request-log';
import { startProfile } from './profile';
import { fill } from './fill';

const kind = process.argv[2];
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => process.exit(0));

if (kind === 'sandbox') {
  const running = await startServer({
    port: 0,
    clockMode: 'manual',
    clockStart: Date.UTC(2026, 0, 1),
    logLevel: process.env.BENCH_LOG_LEVEL ?? 'warn',
    rateLimit: { capacity: 1e12, refillPerSecond: 1e12 },
    ...(process.env.BENCH_MAX_ORDERS ? { maxOrders: Number(process.env.BENCH_MAX_ORDERS) } : {}),
    ...(process.env.BENCH_INSPECT_LIMIT ? { inspectLimit: Number(process.env.BENCH_INSPECT_LIMIT) } : {}),
  });
  if (process.env.BENCH_CONTROL === '1' && process.send) control(running);
  process.stdout.write(`PORT ${new URL(running.url).port}\n`);
} else if (kind === 'bare') {
  const bodies = await capturedBodies();
  const app = new Koa();
  const router = new Router();
  router.get('/v1/networks', (ctx) => {
    ctx.body = bodies.networks;
  });
  router.get('/v1/orders/:reference', (ctx) => {
    ctx.body = bodies.order;
  });
  router.post('/v1/orders', (ctx) => {
    ctx.body = bodies.created;
  });
  app.use(bodyParser());
  app.use(router.routes());
  const server = app.listen(0, '127.0.0.1', () => {
    const address = server.address();
    process.stdout.write(`PORT ${typeof address === 'object' && address ? address.port : 0}\n`);
  });
} else if (kind === 'http') {
  // What Koa does for these routes, without Koa: read and parse the JSON body of a POST, then
  // JSON.stringify the captured body on every answer (as Koa does for an object body).
  const bodies = await capturedBodies();
  const answer = (res: ServerResponse, value: unknown) => {
    const text = JSON.stringify(value);
    res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(text) });
    res.end(text);
  };
  const server = createServer((req, res) => {
    const url = req.url ?? '';
    if (req.method === 'GET' && url === '/v1/networks') return answer(res, bodies.networks);
    if (req.method === 'GET' && url.startsWith('/v1/orders/')) return answer(res, bodies.order);
    if (req.method === 'POST' && url === '/v1/orders') {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        JSON.parse(Buffer.concat(chunks).toString('utf8'));
        answer(res, bodies.created);
      });
      return;
    }
    res.writeHead(404).end();
  });
  server.listen(0, '127.0.0.1', () => {
    const address = server.address();
    process.stdout.write(`PORT ${typeof address === 'object' && address ? address.port : 0}\n`);
  });
} else {
  process.stderr.write('usage: servers.ts sandbox|bare|http\n');
  process.exit(2);
}

/** The same JSON the sandbox answers, captured by the bench and passed in through stdin. */
async function capturedBodies(): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
}

type Message = { id: number; cmd: string; [k: string]: unknown };

function control(running: RunningSandbox) {
  const { sandbox } = running;
  let stopProfile: (() => Promise<unknown>) | undefined;
  // The last request answered, captured outermost (after the edge and the inspector ran).
  let lastCtx: Context | undefined;
  // GC pauses as node reports them (main thread; the concurrent marker's share is not a pause).
  const pauses: Array<{ kind: number; ms: number }> = [];
  // The server's own view of a load, since the last `server-round` (the stored-orders section):
  // how late its event loop ran at most, requests' p99 inside the app (from the outermost
  // middleware in, to it out), and how many full GCs finished. Off until first asked.
  const loopDelay = monitorEventLoopDelay({ resolution: 10 });
  const inApp = createHistogram();
  let fullGcs = 0;
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      const kind = (e as { detail?: { kind?: number } }).detail?.kind ?? 0;
      pauses.push({ kind, ms: e.duration });
      if (kind === constants.NODE_PERFORMANCE_GC_MAJOR) fullGcs++;
    }
  }).observe({ entryTypes: ['gc'] });
  // What a run keeps outside the store (bench/tail.ts): held here until the process ends.
  const retain = process.env.BENCH_RETAIN;
  const retained: unknown[] = [];
  sandbox.app.middleware.unshift(async (ctx, next) => {
    const started = performance.now();
    await next();
    inApp.record(Math.max(1, Math.round((performance.now() - started) * 1000)));
    lastCtx = ctx;
    if ((retain === 'text' || retain === 'copy') && ctx.method === 'POST' && ctx.path === '/v1/orders' && ctx.status === 200) {
      retained.push(retain === 'text' ? JSON.stringify(ctx.body) : structuredClone(ctx.body));
    }
  });
  // Koa composed its middleware when the server started listening: compose again.
  running.server.removeAllListeners('request');
  running.server.on('request', sandbox.app.callback());
  const handlers: Record<string, (m: Message) => unknown> = {
    heap: () => heapAfterGc(),
    // The GC pauses since the last ask, by kind (scavenge, mark-compact, incremental, weak callbacks).
    'gc-pauses': () => {
      const names: Record<number, string> = {
        [constants.NODE_PERFORMANCE_GC_MINOR]: 'scavenge',
        [constants.NODE_PERFORMANCE_GC_MAJOR]: 'mark-compact',
        [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental',
        [constants.NODE_PERFORMANCE_GC_WEAKCB]: 'weak callbacks',
      };
      const by: Record<string, { count: number; ms: number; maxMs: number }> = {};
      for (const p of pauses.splice(0)) {
        const b = (by[names[p.kind] ?? String(p.kind)] ??= { count: 0, ms: 0, maxMs: 0 });
        b.count++;
        b.ms += p.ms;
        b.maxMs = Math.max(b.maxMs, p.ms);
      }
      return by;
    },
    // Since the last ask (the first turns the event-loop monitor on): the longest event-loop
    // delay, requests' p99 in the app, the full GCs finished.
    'server-round': () => {
      const round = { loopMaxMs: loopDelay.max / 1e6, appP99Ms: inApp.percentile(99) / 1e3, fullGcs };
      loopDelay.reset();
      loopDelay.enable();
      inApp.reset();
      fullGcs = 0;
      return round;
    },
    fill: (m) => fill(running, Number(m.n), m.webhookUrl as string | undefined),
    'profile-start': async () => {
      stopProfile = await startProfile();
      return { started: true };
    },
    'profile-stop': async () => {
      const summary = await stopProfile?.();
      stopProfile = undefined;
      return summary;
    },
    'inspector-cost': (m) => inspectorCost(running, lastCtx, Number(m.iterations ?? 200_000)),
    // Orders in the store and the heap as it is (no GC forced).
    stored: () => ({
      orders: sandbox.orders.store.orders.size,
      heapUsed: process.memoryUsage().heapUsed,
      heapLimit: getHeapStatistics().heap_size_limit,
    }),
    reset: () => {
      if (retain === 'records') for (const order of sandbox.orders.store.orders.values()) retained.push(order);
      sandbox.reset();
      return { orders: sandbox.orders.store.orders.size, retained: retained.length };
    },
    // The store's size once a second, stamped by this process: creates per second, counted
    // where they happen, with nothing added to the load generator.
    'count-start': () => {
      counts = [{ ms: performance.now(), orders: sandbox.orders.store.orders.size }];
      counting = setInterval(() => counts.push({ ms: performance.now(), orders: sandbox.orders.store.orders.size }), 1000);
      return { started: true };
    },
    'count-stop': () => {
      clearInterval(counting);
      counts.push({ ms: performance.now(), orders: sandbox.orders.store.orders.size });
      return counts;
    },
  };
  let counts: Array<{ ms: number; orders: number }> = [];
  let counting: ReturnType<typeof setInterval> | undefined;
  process.on('message', (m: Message) => {
    Promise.resolve()
      .then(() => handlers[m.cmd]!(m))
      .then(
        (result) => process.send!({ id: m.id, result }),
        (error: Error) => process.send!({ id: m.id, error: error.stack ?? String(error) }),
      );
  });
}

function heapAfterGc() {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('spawn the sandbox with --expose-gc');
  gc();
  gc();
  const stats = getHeapStatistics();
  const m = process.memoryUsage();
  // arrayBuffers: bytes off the heap (settled orders' slabs, decision 020), counted with the heap per order.
  return { heapUsed: m.heapUsed, arrayBuffers: m.arrayBuffers, heapLimit: stats.heap_size_limit };
}

/**
 * CPU cost of the request inspector and fault matching per request, measured on the last real
 * request the server answered: the recorder (a second one, on its own log of the default
 * size, so the sandbox's log is left alone) and `faults.match` with no fault configured.
 */
function inspectorCost(running: RunningSandbox, ctx: Context | undefined, iterations: number) {
  if (!ctx) throw new Error('no request captured yet');
  const { sandbox } = running;
  const observe = recordRequests(new RequestLog(sandbox.config.inspectLimit), sandbox.clock, sandbox.wall);
  const outcome = { ms: 0.42 };
  const auth = ctx.state.auth as { partner: { client_id: string }; env: 'test' | 'live' };
  const request = { clientId: auth.partner.client_id, env: auth.env, method: ctx.method, path: ctx.path };
  const time = (fn: () => void) => {
    for (let i = 0; i < 20_000; i++) fn(); // warm up
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < iterations; i++) fn();
    return Number(process.hrtime.bigint() - t0) / iterations;
  };
  let sink = 0;
  const observeNs = time(() => observe(ctx, outcome));
  const matchNs = time(() => void (sink += sandbox.faults.match(request) ? 1 : 0));
  return { observeNs: Math.round(observeNs), matchNs: Math.round(matchNs), faults: sandbox.faults.size, sink };
}
