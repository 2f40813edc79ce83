/**
 * What the bench sections share: the signed requests (demo partner, seed 1), the three routes
 * of issue 21, and spawning a server in its own process (bench/servers.ts or the `ramp-sandbox`
 * CLI), optionally pinned to one core with `taskset`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { signRequest } from '../src/auth';
import { createSandbox } from '../src/sandbox/sandbox';

export const root = new URL('..', import.meta.url).pathname;
/** Every server and load generator still running, killed when the bench ends. */
export const children = new Set<ChildProcess>();

export interface Ctx {
  signed(method: string, path: string, body?: string): Record<string, string>;
  /** A valid offramp create body (USDT → NGN to a bank account: the account lookup runs). */
  offrampBody: string;
}

/** Issue 21's targets, stated once for every section's verdicts and the summary. */
export const TARGETS = {
  /** Throughput as a share of bare Koa's in the same run, %. */
  ratio: { networks: 85, order: 85, create: 50 },
  /** At 50 connections while the store grows past 100,000 orders, ms. */
  createP99Ms: 10,
  getP99Ms: 5,
  /**
   * Bare Koa's req/s on the issue's machine, where the two above were set (its table: GET order
   * 52,825, create 38,083): the scale of a p99 target on another machine. At a fixed number of
   * connections latency goes as 1 / throughput (Little's law); bare Koa's pooled req/s is a far
   * steadier measure of the machine than its p99.
   */
  issueBareRps: { order: 52_825, create: 38_083 },
  /** Create p99 with 1,000,000 orders stored, at most this many times its p99 on an empty store. */
  storedP99Factor: 2,
  /** Heap per stored order, bytes (the issue's KB: 3.07 KB was 3,069 B). */
  bytesPerOrder: 2000,
  bytesPerOrderWebhooks: 5000,
  /**
   * The store issue (38): the default `--max-orders`, kept as plain records with every event
   * delivered, in the default heap with this margin (decision 028's condition for no packing), and
   * its create p99 at most this many times the empty store's (decision 028's "revisit when").
   */
  defaultMaxOrders: 200_000,
  heapMargin: 2,
  /** The store issue's item 7: a state of 200,000 completed orders, seconds, and the restore's peak heap over the restored. */
  stateSaveS: 3,
  stateRestoreS: 5,
  restorePeakFactor: 2,
  /** In-process `startSandbox()` + `close()`, ms. */
  startCloseMs: 20,
  /** The compiled CLI, from its start to the first request answered, ms. */
  cliFirstAnswerMs: 300,
} as const;

/** Figures later sections reuse, and the summary of targets at the head of the report. */
export interface Results {
  /** Per route: the sandbox's (tsx) req/s, bare Koa's, the ratio in %, and bare Koa's p99 in ms. */
  throughput: Record<string, { rps: number; bare: number; pct: number; bareP99?: number }>;
  createRun?: { p99: number; decay: number };
  memory: { plain?: number; webhooks?: number; million?: boolean };
  /** One line per target measured: what, the figure, the target, met or not (undefined: no verdict, e.g. an invalid run). */
  summary: Target[];
  /** The store issue's "done when" (issue 38), in the same form: the report's first table. */
  store: Target[];
}

/** A target with the figure a run measured and its verdict (undefined: no verdict). */
export interface Target {
  target: string;
  figure: string;
  goal: string;
  met: boolean | undefined;
}

export async function prepare(): Promise<Ctx> {
  const demo = createSandbox({ logLevel: 'silent', clockMode: 'manual' });
  const partner = demo.demoPartner;
  const accountName = demo.reference.lookupAccount('058', '0123456789').account_name;
  demo.close();
  const creds = { clientId: partner.client_id, secretKey: partner.keys.test.secret_key, encryptionKey: partner.keys.test.encryption_key };
  const offrampBody = JSON.stringify({
    from: { currency: 'USDT', network: 'base-sepolia', amount: 100 },
    to: { currency: 'NGN' },
    recipient: { institution_code: '058', account_number: '0123456789', account_name: accountName },
    customer: { reference: 'bench', name: 'Ada Obi', email: 'ada@example.com' },
  });
  return { signed: (method, path, body) => signRequest({ method, path, body, ...creds }), offrampBody };
}

export async function fetchJson(ctx: Ctx, base: string, method: string, path: string, body?: string): Promise<any> {
  const res = await fetch(base + path, { method, headers: ctx.signed(method, path, body), body });
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  return res.json();
}

export interface Route {
  name: string;
  key: 'networks' | 'order' | 'create';
  path: string;
  method: 'GET' | 'POST';
  body: string | undefined;
  /** Issue 21's target: the sandbox's throughput as a share of bare Koa's, in %. */
  target: number;
}

/** The three routes of the issue, in the issue's order; `orderPath`: an order's GET path. */
export function routeList(ctx: Ctx, orderPath: string): Route[] {
  return [
    {
      name: 'signed GET /v1/networks',
      key: 'networks',
      path: '/v1/networks',
      method: 'GET',
      body: undefined,
      target: TARGETS.ratio.networks,
    },
    {
      name: 'signed GET /v1/orders/{reference}',
      key: 'order',
      path: orderPath,
      method: 'GET',
      body: undefined,
      target: TARGETS.ratio.order,
    },
    {
      name: 'signed POST /v1/orders (offramp, account lookup)',
      key: 'create',
      path: '/v1/orders',
      method: 'POST',
      body: ctx.offrampBody,
      target: TARGETS.ratio.create,
    },
  ];
}

/** The three routes against a sandbox at `base`: creates one order for the GET. */
export async function routesOf(ctx: Ctx, base: string) {
  const created = await fetchJson(ctx, base, 'POST', '/v1/orders', ctx.offrampBody);
  const orderPath = `/v1/orders/${created.data.reference}`;
  return { created, orderPath, routes: routeList(ctx, orderPath) };
}

export interface Server {
  port: number;
  base: string;
  /** The server's own pid (taskset execs the command, so it is node's). */
  pid: number;
  child: ChildProcess;
  /** Sends a control message (sandbox spawned with control) and waits for its answer. */
  ask<T = any>(cmd: string, args?: Record<string, unknown>): Promise<T>;
  /** SIGTERM (SIGKILL after 5 s); resolves once the process is gone. */
  stop(): Promise<void>;
  exited: Promise<number | null>;
}

/**
 * V8 flags for every sandbox the bench starts (BENCH_SANDBOX_NODE_FLAGS, space-separated; set it
 * empty for V8's defaults). By default `--single-threaded-gc`: every bench sandbox runs pinned to
 * one CPU, where `ramp-sandbox serve` runs itself again with that flag (src/cli/gc-threads.ts,
 * decision 017); given here, the server the bench measures is the one it started (no second
 * process), and bench/servers.ts, which does not go through `serve`, runs as the CLI would.
 * Bare servers never get them.
 */
export const SANDBOX_NODE_FLAGS = (process.env.BENCH_SANDBOX_NODE_FLAGS ?? '--single-threaded-gc').split(/\s+/).filter(Boolean);

export interface SpawnOptions {
  /** A bare server (Koa, node:http): no sandbox flags. */
  bare?: boolean;
  stdin?: string;
  /** IPC channel and --expose-gc (bench/servers.ts sandbox only). */
  control?: boolean;
  env?: Record<string, string>;
  /** Pin the process (and every thread it starts) to this CPU with `taskset -c`. */
  cpu?: number;
}

/**
 * Spawns `node <nodeArgs>` (under `taskset -c <cpu>` when pinned) and resolves once it prints
 * its port: `PORT <n>` (bench/servers.ts) or the CLI's `listening on http://host:<n>`.
 */
export function spawnServer(label: string, nodeArgs: string[], opts: SpawnOptions = {}): Promise<Server> {
  return new Promise((resolve, reject) => {
    const args = [...(opts.control ? ['--expose-gc'] : []), ...(opts.bare ? [] : SANDBOX_NODE_FLAGS), ...nodeArgs];
    const [command, argv] =
      opts.cpu === undefined ? [process.execPath, args] : ['taskset', ['-c', String(opts.cpu), process.execPath, ...args]];
    const child = spawn(command, argv, {
      cwd: root,
      stdio: ['pipe', 'pipe', 'inherit', ...(opts.control ? (['ipc'] as const) : [])],
      env: { ...process.env, ...(opts.control ? { BENCH_CONTROL: '1' } : {}), ...opts.env },
    });
    children.add(child);
    const exited = new Promise<number | null>((done) =>
      child.on('exit', (code) => {
        children.delete(child);
        done(code);
      }),
    );
    child.on('error', (error) => reject(new Error(`${label}: ${command} failed to start: ${error.message}`)));
    let serial = 0;
    const pending = new Map<number, { resolve: (v: any) => void; reject: (e: Error) => void }>();
    child.on('message', (m: { id: number; result?: unknown; error?: string }) => {
      const p = pending.get(m.id);
      pending.delete(m.id);
      if (m.error) p?.reject(new Error(m.error));
      else p?.resolve(m.result);
    });
    void exited.then((code) => {
      for (const p of pending.values()) p.reject(new Error(`${label} exited ${code}`));
      reject(new Error(`${label} exited ${code}`));
    });
    let seen = '';
    let ready = false;
    child.stdout!.on('data', (chunk) => {
      if (ready) return; // keep draining the pipe, nothing more to read
      seen += String(chunk);
      const m = /PORT (\d+)|listening on http:\/\/[^\s]+:(\d+)/.exec(seen);
      if (!m) return;
      ready = true;
      const port = Number(m[1] ?? m[2]);
      resolve({
        port,
        base: `http://127.0.0.1:${port}`,
        pid: child.pid!,
        child,
        exited,
        ask: (cmd, args = {}) =>
          new Promise((res, rej) => {
            const id = ++serial;
            pending.set(id, { resolve: res, reject: rej });
            child.send({ id, cmd, ...args });
          }),
        stop: async () => {
          if (child.exitCode !== null || child.signalCode !== null) return;
          child.kill('SIGTERM');
          const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
          await exited;
          clearTimeout(timer);
        },
      });
    });
    child.stdin!.end(opts.stdin ?? '');
  });
}

/** A bench server (bench/servers.ts): the sandbox in process, bare Koa, or bare node:http. */
export function startServer(kind: 'sandbox' | 'bare' | 'http', opts: SpawnOptions = {}): Promise<Server> {
  return spawnServer(`${kind} server`, ['--import', 'tsx', `${root}bench/servers.ts`, kind], { ...opts, bare: kind !== 'sandbox' });
}

/**
 * The flags every CLI sandbox of the bench gets: any free port, logs at warn, the manual clock
 * from 2026-01-01 (orders stay where they are), the rate limit lifted (it would answer 429).
 */
export function cliFlags(maxOrders: number): string[] {
  return [
    '--port',
    '0',
    '--log-level',
    'warn',
    '--clock',
    'manual',
    '--clock-start',
    '2026-01-01T00:00:00Z',
    '--rate-capacity',
    '1000000000000',
    '--rate-refill',
    '1000000000000',
    '--max-orders',
    String(maxOrders),
  ];
}
