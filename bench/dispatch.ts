/**
 * Route dispatch microbench (docs/decisions/001-route-index.md): @koa/router's own
 * `router.routes()` against `indexedDispatch` (src/http/route-index.ts), on the sandbox's real
 * route table.
 *
 *   npx tsx bench/dispatch.ts [--rounds 15] [--seconds 1] [--connections 4] [--aa]
 *
 * Two measures, each in alternating A/B rounds (the machine is shared: medians, not means):
 * - dispatch alone, in process: each middleware routing GET /v1/networks and
 *   GET /v1/orders/{reference} on fresh Koa contexts, over a copy of the sandbox's router whose
 *   routes answer at once (ns per dispatch);
 * - whole signed requests over HTTP: two sandbox processes (the real app, manual clock, rate
 *   limit lifted, logs at warn) differing only in their dispatch middleware, loaded by
 *   autocannon from this process at low concurrency; per round, each server's requests per
 *   second and its own CPU time per request (`process.cpuUsage`, read over IPC). `--aa` runs
 *   the router against itself instead: the method's own noise on this machine.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import Router from '@koa/router';
import Koa from 'koa';
import type { Context, Middleware } from 'koa';
import { signRequest } from '../src/auth';
import { createSandbox } from '../src/sandbox/sandbox';
import { indexedDispatch } from '../src/http/edge/route-index';
import { median, pct } from './stats';

type Variant = 'router' | 'index';

const root = new URL('..', import.meta.url).pathname;
const { values: flags } = parseArgs({
  options: {
    rounds: { type: 'string', default: '15' },
    seconds: { type: 'string', default: '1' },
    connections: { type: 'string', default: '4' },
    aa: { type: 'boolean', default: false },
    serve: { type: 'string' },
  },
});
const ROUNDS = Number(flags.rounds);
const SECONDS = Number(flags.seconds);
const CONNECTIONS = Number(flags.connections);
const AA = flags.aa!;

/** The router of a built app: caught on a request no route answers (the router sets ctx.router). */
async function routerOf(app: Koa): Promise<Router> {
  let router: Router | undefined;
  const probe: Middleware = async (ctx, next) => {
    await next();
    router ??= (ctx as Context & { router?: Router }).router;
  };
  app.middleware.unshift(probe);
  const server = await listen(app);
  await fetch(`${urlOf(server)}/__probe`);
  server.close();
  app.middleware.shift();
  if (!router) throw new Error('the app has no @koa/router dispatch');
  return router;
}

function dispatchOf(variant: Variant, router: Router): Middleware {
  return variant === 'router' ? (router.routes() as unknown as Middleware) : indexedDispatch(router);
}

async function listen(app: Koa): Promise<Server> {
  const server = createServer(app.callback());
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return server;
}

const urlOf = (server: Server) => `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

/** Child: one real sandbox app whose last middleware (the dispatch) is `variant`'s. */
async function serve(variant: Variant): Promise<void> {
  const sandbox = createSandbox({
    port: 0,
    clockMode: 'manual',
    clockStart: Date.UTC(2026, 0, 1),
    logLevel: 'warn',
    rateLimit: { capacity: 1e12, refillPerSecond: 1e12 },
  });
  const router = await routerOf(sandbox.app);
  sandbox.app.middleware[sandbox.app.middleware.length - 1] = dispatchOf(variant, router);
  const server = await listen(sandbox.app);
  let mark = process.cpuUsage();
  process.on('message', (m: { cmd: string }) => {
    if (m.cmd === 'mark') mark = process.cpuUsage();
    if (m.cmd === 'cpu') {
      const used = process.cpuUsage(mark);
      process.send!({ cpuUs: used.user + used.system });
    }
  });
  // the bench has gone (or is done): leave, writing any --cpu-prof
  process.on('disconnect', () => process.exit(0));
  process.send!({ url: urlOf(server) });
}

interface Child {
  url: string;
  child: ChildProcess;
  ask(cmd: 'mark' | 'cpu'): Promise<{ cpuUs?: number }>;
}

function spawnServer(variant: Variant): Promise<Child> {
  const child = fork(new URL(import.meta.url).pathname, ['--serve', variant], { execArgv: ['--import', 'tsx'], cwd: root });
  return new Promise((done, failed) => {
    child.once('exit', (code) => failed(new Error(`${variant} server exited ${code}`)));
    child.once('message', (m: { url: string }) => {
      done({
        url: m.url,
        child,
        ask: (cmd) =>
          new Promise((answer) => {
            if (cmd === 'mark') {
              child.send({ cmd });
              answer({});
            } else {
              child.once('message', answer);
              child.send({ cmd });
            }
          }),
      });
    });
  });
}


async function main(): Promise<void> {
  console.log(`Node ${process.version}; ${ROUNDS} alternating rounds\n`);
  if (!AA) await dispatchAlone();
  await overHttp();
}

/** Dispatch alone: a copy of the sandbox's router (same layers, same order) whose routes answer at once. */
async function dispatchAlone(): Promise<void> {
  const sandbox = createSandbox({ logLevel: 'silent', clockMode: 'manual' });
  const real = await routerOf(sandbox.app);
  sandbox.close();
  const copy = new Router();
  // the route's own work left out: Koa's body setter (a type lookup) would weigh on both
  const answer: Middleware = (ctx) => {
    ctx.state.answer = ctx.params;
  };
  for (const layer of real.stack) {
    if (layer.methods.length === 0) copy.use(layer.path as string, (_ctx, next) => next());
    else copy.register(layer.path as string, layer.methods, [answer]);
  }
  const variants: Record<Variant, Middleware> = { router: dispatchOf('router', copy), index: dispatchOf('index', copy) };
  // Fresh Koa contexts (the router adds its bookkeeping to each), made outside the timed loop.
  const app = new Koa();
  const socket = new Socket();
  const contexts = (path: string, n: number) =>
    Array.from({ length: n }, () => {
      const req = new IncomingMessage(socket);
      req.method = 'GET';
      req.url = path;
      req.headers = { host: '127.0.0.1' };
      return app.createContext(req, new ServerResponse(req));
    });
  const none = () => Promise.resolve();
  const BATCH = 2_000;
  const BATCHES = 50;
  const time = async (mw: Middleware, path: string) => {
    let ns = 0;
    for (let b = 0; b < BATCHES; b++) {
      const batch = contexts(path, BATCH);
      const started = process.hrtime.bigint();
      for (const ctx of batch) await mw(ctx, none);
      ns += Number(process.hrtime.bigint() - started);
    }
    return ns / (BATCH * BATCHES);
  };
  console.log('Dispatch alone (ns per dispatch, median of rounds):');
  for (const path of ['/v1/networks', '/v1/orders/ORDWGNUSZJESLH33']) {
    for (const v of ['router', 'index'] as const) await time(variants[v], path); // warm-up
    const ns: Record<Variant, number[]> = { router: [], index: [] };
    for (let r = 0; r < ROUNDS; r++) {
      const order: Variant[] = r % 2 ? ['index', 'router'] : ['router', 'index'];
      for (const v of order) ns[v].push(await time(variants[v], path));
    }
    const [router, index] = [median(ns.router), median(ns.index)];
    console.log(`  GET ${path}: router.routes() ${router.toFixed(0)} ns, index ${index.toFixed(0)} ns, saved ${(router - index).toFixed(0)} ns`);
  }
  console.log('');
}

/** Whole signed requests: two sandbox processes, alternating 1 s loads. */
async function overHttp(): Promise<void> {
  const demo = createSandbox({ logLevel: 'silent', clockMode: 'manual' });
  const partner = demo.demoPartner;
  demo.close();
  const creds = { clientId: partner.client_id, secretKey: partner.keys.test.secret_key, encryptionKey: partner.keys.test.encryption_key };
  // --aa: the router in both servers (the second reported as "index"), to see the method's noise
  const servers: Record<Variant, Child> = { router: await spawnServer('router'), index: await spawnServer(AA ? 'router' : 'index') };
  try {
    const path = '/v1/networks';
    const load = (url: string, duration: number) =>
      new Promise<autocannon.Result>((done, failed) => {
        autocannon({ url: url + path, connections: CONNECTIONS, duration, headers: signRequest({ method: 'GET', path, ...creds }) }, (error, result) => (error ? failed(error) : done(result)));
      });
    for (const v of ['router', 'index'] as const) {
      const warm = await load(servers[v].url, 2);
      if (warm.non2xx || warm.errors) throw new Error(`${v}: ${warm.non2xx} non-2xx, ${warm.errors} errors in the warm-up`);
    }
    const rps: Record<Variant, number[]> = { router: [], index: [] };
    const cpu: Record<Variant, number[]> = { router: [], index: [] };
    const ratios: number[] = [];
    const cpuRatios: number[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      const order: Variant[] = r % 2 ? ['index', 'router'] : ['router', 'index'];
      for (const v of order) {
        await servers[v].ask('mark');
        const result = await load(servers[v].url, SECONDS);
        const { cpuUs } = await servers[v].ask('cpu');
        if (result.non2xx || result.errors) throw new Error(`${v}: ${result.non2xx} non-2xx, ${result.errors} errors`);
        rps[v].push(result.requests.total / SECONDS);
        cpu[v].push(cpuUs! / result.requests.total);
      }
      ratios.push(rps.index.at(-1)! / rps.router.at(-1)!);
      cpuRatios.push(cpu.router.at(-1)! / cpu.index.at(-1)!);
    }
    console.log(`Signed GET ${path} over HTTP (${CONNECTIONS} connections, ${ROUNDS} × ${SECONDS} s per server, alternating${AA ? '; --aa: "index" is a second router' : ''}):`);
    console.log(`  req/s (median round): router.routes() ${median(rps.router).toFixed(0)}, index ${median(rps.index).toFixed(0)}; index ÷ router per round: median ${pct(median(ratios))} (rounds ${pct(Math.min(...ratios))}–${pct(Math.max(...ratios))})`);
    console.log(`  server CPU µs per request (median round): router.routes() ${median(cpu.router).toFixed(1)}, index ${median(cpu.index).toFixed(1)}; router ÷ index per round: median ${pct(median(cpuRatios))} (rounds ${pct(Math.min(...cpuRatios))}–${pct(Math.max(...cpuRatios))})`);
  } finally {
    for (const s of Object.values(servers)) s.child.kill();
  }
}

if (flags.serve) await serve(flags.serve as Variant);
else await main();
