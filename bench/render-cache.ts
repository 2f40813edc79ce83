/**
 * Render cache microbench (docs/decisions/008-render-cache.md): how a route answering data that
 * does not change (GET /v1/networks) renders its answer, with the request inspector's recorder
 * and its 10,000-entry log (CONTRACT §11) keeping every answer:
 *   stringify  `JSON.stringify(ok(message, list))` on each request (no cache);
 *   once       the list serialised once (`renderedOnce`), the envelope concatenated around it;
 *   shared     the same, and the very same envelope string while the data is the same
 *              (`sharedEnvelope`): what the sandbox does.
 *
 *   npx tsx bench/render-cache.ts [--rounds 15] [--seconds 1] [--connections 4]
 *
 * One server process per variant (`--expose-gc`), each a Koa app with the real recorder
 * (`recordRequests`) and `RequestLog`, answering the sandbox's real networks list. Measured:
 * the heap after GC once the log is full (the answers it keeps), and per 1 s round, in rotating
 * order, each server's requests per second and its own CPU time per request
 * (`process.cpuUsage`, over IPC), medians. The load generator (autocannon) runs in this
 * process, on the same cores.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import Koa from 'koa';
import { systemWallClock, VirtualClock } from '../src/clock';
import { DEFAULT_FIXTURES_DIR, createReferenceStore, loadFixtures } from '../src/reference';
import { recordRequests } from '../src/http/inspector/recorder';
import { RequestLog } from '../src/http/inspector/request-log';
import { ok } from '../src/shared/envelope';
import { envelopeHead, renderedOnce, sharedEnvelope } from '../src/http/api/render-cache';
import { median, pct } from './stats';

type Variant = 'stringify' | 'once' | 'shared';
const VARIANTS: Variant[] = ['stringify', 'once', 'shared'];

const root = new URL('..', import.meta.url).pathname;
const { values: flags } = parseArgs({
  options: {
    rounds: { type: 'string', default: '15' },
    seconds: { type: 'string', default: '1' },
    connections: { type: 'string', default: '4' },
    serve: { type: 'string' },
  },
});
const ROUNDS = Number(flags.rounds);
const SECONDS = Number(flags.seconds);
const CONNECTIONS = Number(flags.connections);
const MESSAGE = 'Networks retrieved';

/** Child: the route and the inspector, with the envelope of `variant`. */
async function serve(variant: Variant): Promise<void> {
  const clock = new VirtualClock({ start: Date.UTC(2026, 0, 1), mode: 'manual' });
  const networks = createReferenceStore(loadFixtures(DEFAULT_FIXTURES_DIR), { seed: 42, clock }).networks('test');
  const head = envelopeHead(MESSAGE);
  const rendered = renderedOnce();
  const shared = sharedEnvelope(MESSAGE);
  const answer: Record<Variant, () => string> = {
    stringify: () => JSON.stringify(ok(MESSAGE, networks)),
    once: () => `${head}${rendered('networks', () => networks)}}`,
    shared: () => shared(rendered('networks', () => networks)),
  };
  const envelope = answer[variant];
  const log = new RequestLog();
  const record = recordRequests(log, clock, systemWallClock);
  const app = new Koa();
  app.use(async (ctx, next) => {
    const started = performance.now();
    await next();
    record(ctx, { ms: performance.now() - started });
  });
  app.use((ctx) => {
    if (ctx.path !== '/v1/networks') return;
    ctx.set('Content-Type', 'application/json; charset=utf-8');
    ctx.body = envelope();
  });
  const server = createServer(app.callback());
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  let mark = process.cpuUsage();
  process.on('message', (m: { cmd: string }) => {
    if (m.cmd === 'mark') mark = process.cpuUsage();
    else if (m.cmd === 'cpu') {
      const used = process.cpuUsage(mark);
      process.send!({ cpuUs: used.user + used.system });
    } else if (m.cmd === 'heap') {
      const gc = (globalThis as { gc?: () => void }).gc!;
      gc();
      gc();
      process.send!({ heap: process.memoryUsage().heapUsed, kept: log.size, bodyLength: envelope().length });
    }
  });
  process.on('disconnect', () => process.exit(0));
  process.send!({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` });
}

interface Child {
  url: string;
  child: ChildProcess;
  ask<T>(cmd: string): Promise<T>;
}

function spawnServer(variant: Variant): Promise<Child> {
  const child = fork(new URL(import.meta.url).pathname, ['--serve', variant], { execArgv: ['--expose-gc', '--import', 'tsx'], cwd: root });
  return new Promise((done, failed) => {
    child.once('exit', (code) => failed(new Error(`${variant} server exited ${code}`)));
    child.once('message', (m: { url: string }) =>
      done({
        url: m.url,
        child,
        ask: <T>(cmd: string) =>
          new Promise<T>((answer) => {
            if (cmd === 'mark') {
              child.send({ cmd });
              answer(undefined as T);
            } else {
              child.once('message', (reply) => answer(reply as T));
              child.send({ cmd });
            }
          }),
      }),
    );
  });
}

async function main(): Promise<void> {
  const servers = Object.fromEntries(await Promise.all(VARIANTS.map(async (v) => [v, await spawnServer(v)] as const))) as Record<
    Variant,
    Child
  >;
  try {
    const load = (url: string, duration: number) =>
      new Promise<autocannon.Result>((done, failed) => {
        autocannon({ url: `${url}/v1/networks`, connections: CONNECTIONS, duration }, (error, result) =>
          error ? failed(error) : done(result),
        );
      });
    // warm-up: 2 s each, which also fills the 10,000-entry log
    for (const v of VARIANTS) await load(servers[v].url, 2);
    const heap = {} as Record<Variant, { heap: number; kept: number; bodyLength: number }>;
    for (const v of VARIANTS) heap[v] = await servers[v].ask('heap');
    const rps = Object.fromEntries(VARIANTS.map((v) => [v, [] as number[]])) as Record<Variant, number[]>;
    const cpu = Object.fromEntries(VARIANTS.map((v) => [v, [] as number[]])) as Record<Variant, number[]>;
    for (let r = 0; r < ROUNDS; r++) {
      // rotate the order, so that no variant always follows the same one
      const order = VARIANTS.map((_, i) => VARIANTS[(i + r) % VARIANTS.length]!);
      for (const v of order) {
        await servers[v].ask('mark');
        const result = await load(servers[v].url, SECONDS);
        const { cpuUs } = await servers[v].ask<{ cpuUs: number }>('cpu');
        if (result.non2xx || result.errors) throw new Error(`${v}: ${result.non2xx} non-2xx, ${result.errors} errors`);
        rps[v].push(result.requests.total / SECONDS);
        cpu[v].push(cpuUs / result.requests.total);
      }
    }
    const mib = (b: number) => `${(b / 1048576).toFixed(1)} MiB`;
    // per round, each variant against `once`
    const perRound = (xs: Record<Variant, number[]>, v: Variant) => median(xs[v].map((x, i) => x / xs.once[i]!));
    console.log(
      `Node ${process.version}; GET /v1/networks (envelope ${heap.once.bodyLength} characters), ${CONNECTIONS} connections, ${ROUNDS} rounds of ${SECONDS} s per server\n`,
    );
    console.log(
      '| variant | heap after GC, log full | server CPU µs per request | ÷ once (median round) | req/s | ÷ once (median round) |',
    );
    console.log('|---|---|---|---|---|---|');
    for (const v of VARIANTS) {
      console.log(
        `| ${v} | ${mib(heap[v].heap)} (${heap[v].kept} kept) | ${median(cpu[v]).toFixed(1)} | ${pct(perRound(cpu, v))} | ${median(rps[v]).toFixed(0)} | ${pct(perRound(rps, v))} |`,
      );
    }
  } finally {
    for (const s of Object.values(servers)) s.child.disconnect();
  }
}

if (flags.serve) await serve(flags.serve as Variant);
else await main();
