/**
 * `npm run bench`: throughput of the sandbox (through tsx and compiled) against bare Koa and
 * bare node:http, each server pinned to one core and wrk to the other (bench/throughput.ts); a
 * 30 s create run (decay as the store grows); create and GET p99 against the orders stored; a
 * CPU profile per route; the request inspector's cost; heap and objects per order in a running
 * sandbox; timer cost; webhook and runner throughput; start-up (in process, and the compiled
 * CLI to its first answer). Writes bench/results/latest.md, which opens with issue 21's targets
 * (harness.ts `TARGETS`), each with its figure and verdict.
 *
 * `npm run bench -- --only throughput,profile` runs some sections and prints their report
 * (latest.md is written only by a full run). Sections: throughput, create-run, stored-orders,
 * profile, inspector, memory, objects, timers, webhooks, scenarios, startup, reliability.
 * Figures are from this machine at this moment: compare ratios, not absolute numbers.
 */
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { benchWebhooks } from './webhooks';
import type { ProfileSummary } from './profile';
import {
  children,
  cliFlags,
  fetchJson,
  prepare,
  root,
  routesOf,
  SANDBOX_NODE_FLAGS,
  spawnServer,
  startServer,
  TARGETS,
  type Ctx,
  type Results,
} from './harness';
import { buildPackage, createRun, removeScripts, storedOrders, throughput } from './throughput';

const env = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
/** Sections still loaded by autocannon in this process (profile, inspector): seconds per load. */
const DURATION = env('BENCH_DURATION', 5);
/** The inspector's A/B: alternating rounds of one short load per server. */
const SLICE = env('BENCH_SLICE', 1);
const CONNECTIONS = env('BENCH_CONNECTIONS', 50);
const ORDERS = env('BENCH_ORDERS', 100_000);
const WEBHOOK_ORDERS = env('BENCH_WEBHOOK_ORDERS', 100_000);
const MILLION = env('BENCH_MILLION', 1_000_000);
const SECTIONS = [
  'throughput',
  'create-run',
  'stored-orders',
  'profile',
  'inspector',
  'memory',
  'objects',
  'timers',
  'webhooks',
  'scenarios',
  'startup',
  'reliability',
] as const;
type Section = (typeof SECTIONS)[number];

const { values: flags } = parseArgs({ options: { only: { type: 'string' } } });
const only = flags.only?.split(',').map((s) => s.trim()) as Section[] | undefined;
for (const s of only ?? []) if (!SECTIONS.includes(s)) throw new Error(`unknown section ${s}; one of ${SECTIONS.join(', ')}`);
const wanted = (s: Section) => !only || only.includes(s);

const verdict = (ok: boolean) => (ok ? 'met' : '**missed**');

function runNode(args: string[]): Promise<any> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'], cwd: root });
    let out = '';
    child.stdout!.on('data', (c) => (out += String(c)));
    child.on('exit', (code) =>
      code === 0 ? resolve(JSON.parse(out.trim().split('\n').pop()!)) : reject(new Error(`${args.join(' ')} exited ${code}`)),
    );
  });
}

interface Load {
  rps: number;
  /** Requests completed in the load. */
  total: number;
  p99: number;
  max: number;
  non2xx: number;
  errors: number;
}

async function load(
  url: string,
  opts: { method?: string; headers?: Record<string, string>; body?: string; duration?: number; connections?: number },
): Promise<Load> {
  let done!: (r: autocannon.Result) => void;
  let failed!: (e: Error) => void;
  const finished = new Promise<autocannon.Result>((res, rej) => {
    done = res;
    failed = rej;
  });
  autocannon(
    {
      url,
      connections: opts.connections ?? CONNECTIONS,
      duration: opts.duration ?? DURATION,
      method: (opts.method ?? 'GET') as 'GET',
      headers: opts.headers,
      body: opts.body,
    },
    (error, result) => (error ? failed(error) : done(result)),
  );
  const result = await finished;
  return {
    rps: Math.round(result.requests.total / (opts.duration ?? DURATION)),
    total: result.requests.total,
    p99: result.latency.p99,
    max: result.latency.max,
    non2xx: result.non2xx,
    errors: result.errors,
  };
}

// ---------------------------------------------------------------------------------------------

async function profile(ctx: Ctx) {
  const sandbox = await startServer('sandbox', { control: true });
  const { routes } = await routesOf(ctx, sandbox.base);
  const lines = [
    '## Where the time goes (CPU profile of the sandbox per route)',
    '',
    `node:inspector's sampling profiler (200 µs) in the sandbox process, ${DURATION} s of load per route at ${CONNECTIONS} connections after a 2 s warm-up; self time by area (our modules by folder, dependencies by package) and the top functions. "V8/native (program)" is time in V8 and native code outside any JS function (parsing HTTP, syscalls); "idle" is the event loop waiting.`,
  ];
  for (const r of routes) {
    const headers = ctx.signed(r.method, r.path, r.body);
    await load(sandbox.base + r.path, { method: r.method, headers, body: r.body, duration: 2 });
    await sandbox.ask('profile-start');
    const l = await load(sandbox.base + r.path, { method: r.method, headers, body: r.body });
    const p = await sandbox.ask<ProfileSummary>('profile-stop');
    log(
      `profile ${r.name}: ${p.areas
        .slice(0, 8)
        .map((a) => `${a.area} ${a.pct}%`)
        .join(', ')}`,
    );
    lines.push(
      '',
      `### ${r.name} (${l.rps} req/s while profiled)`,
      '',
      `By area: ${p.areas
        .filter((a) => a.pct >= 0.5)
        .map((a) => `${a.area} ${a.pct}%`)
        .join(', ')}.`,
      '',
      '| self % | function | where |',
      '|---|---|---|',
      ...p.top.map((t) => `| ${t.pct} | ${t.fn} | ${t.at || t.area} |`),
      '',
      `Our functions by inclusive time (self and callees): ${p.inclusive
        .filter((t) => t.pct >= 1)
        .map((t) => `${t.fn} (${t.at}) ${t.pct}%`)
        .join('; ')}.`,
    );
  }
  sandbox.stop();
  return lines;
}

async function inspector(ctx: Ctx, out: Results) {
  const sandbox = await startServer('sandbox', { control: true });
  const { routes } = await routesOf(ctx, sandbox.base);
  const get = routes.find((r) => r.key === 'order')!;
  const headers = ctx.signed('GET', get.path, undefined);
  const l = await load(sandbox.base + get.path, { headers });
  const cost = await sandbox.ask<{ observeNs: number; matchNs: number; faults: number }>('inspector-cost');
  sandbox.stop();
  const rps = out.throughput.order?.rps ?? l.rps;
  const perRequestNs = 1e9 / rps;
  const pct = (100 * (cost.observeNs + cost.matchNs)) / perRequestNs;
  log(
    `inspector: observe ${cost.observeNs} ns, match ${cost.matchNs} ns; ${pct.toFixed(2)}% of ${Math.round(perRequestNs)} ns per request`,
  );
  return [
    '## Request inspector and fault matching: cost on signed GET /v1/orders/{reference}',
    '',
    "Method: the sandbox's CPU time per request is taken as 1 / its throughput on this route (the server is one thread, saturated at " +
      `${CONNECTIONS} connections): ${rps} req/s → ${Math.round(perRequestNs)} ns. Inside the same server process, on the last real request it answered (captured after the edge ran), ` +
      "the inspector's recorder is called in a loop on a log of the default size (10,000 entries, so the ring is full), and `faults.match` with no fault configured: their own CPU. " +
      'What keeping the entries costs beyond that (the GC) is the second table.',
    '',
    '| recorder ns | fault match ns | share of a request | target | verdict |',
    '|---|---|---|---|---|',
    `| ${cost.observeNs} | ${cost.matchNs} | ${pct.toFixed(1)}% | < 5% | ${verdict(pct < 5)} |`,
    '',
    ...(await inspectorRetention(ctx)),
  ];
}

/**
 * What keeping the last 10,000 requests costs beyond the recorder's CPU (the entries live long
 * enough to be promoted by the GC): a sandbox with the contract's ring against one with a ring
 * of 1, in alternating 1 s rounds as the throughput section does.
 */
async function inspectorRetention(ctx: Ctx) {
  const full = await startServer('sandbox');
  const one = await startServer('sandbox', { env: { BENCH_INSPECT_LIMIT: '1' } });
  const rows: string[] = [];
  for (const key of ['order', 'create'] as const) {
    const targets = await Promise.all([full, one].map(async (s) => (await routesOf(ctx, s.base)).routes.find((r) => r.key === key)!));
    const opts = (i: 0 | 1) => ({
      method: targets[i]!.method,
      headers: ctx.signed(targets[i]!.method, targets[i]!.path, targets[i]!.body),
      body: targets[i]!.body,
    });
    await load(full.base + targets[0]!.path, { ...opts(0), duration: 2 });
    await load(one.base + targets[1]!.path, { ...opts(1), duration: 2 });
    const ratios: number[] = [];
    let a = 0;
    let b = 0;
    for (let i = 0; i < 16; i++) {
      const run = (j: 0 | 1) => load((j === 0 ? full : one).base + targets[j]!.path, { ...opts(j), duration: SLICE });
      let x: Load;
      let y: Load;
      if (i % 2 === 0) {
        x = await run(0);
        y = await run(1);
      } else {
        y = await run(1);
        x = await run(0);
      }
      a += x.total;
      b += y.total;
      ratios.push(x.rps / y.rps);
    }
    ratios.sort((p, q) => p - q);
    const mid = ratios[Math.floor(ratios.length / 2)]!;
    log(`inspector retention ${key}: median round ${(100 * mid).toFixed(0)}%, pooled ${((100 * a) / b).toFixed(0)}%`);
    rows.push(
      `| ${targets[0]!.name} | ${(100 * mid).toFixed(0)}% | ${((100 * a) / b).toFixed(0)}% | ${(100 - (100 * a) / b).toFixed(0)}% |`,
    );
  }
  full.stop();
  one.stop();
  return [
    "Keeping the entries (CONTRACT §11: the last 10,000 requests, bodies cut at 4 KiB): a sandbox with that ring against one started with a ring of 1, 16 alternating 1 s rounds per route after 2 s of warm-up each. This includes what the GC spends on entries that live long enough to be promoted, which the loop above does not see; this machine's noise on such a comparison is about ±3%.",
    '',
    '| route | 10,000 kept ÷ 1 kept (median round) | pooled | cost of keeping them |',
    '|---|---|---|---|',
    ...rows,
  ];
}

async function memory(out: Results) {
  const receiver = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.end('ok'));
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
  const rows: string[] = [];
  const mib = (b: number) => `${Math.round(b / 2 ** 20)} MiB`;
  const runs: Array<{ label: string; n: number; target?: number; webhookUrl?: string; env: Record<string, string> }> = [
    { label: `${ORDERS.toLocaleString('en')} orders, no webhook URL`, n: ORDERS, target: TARGETS.bytesPerOrder, env: {} },
    {
      label: `${WEBHOOK_ORDERS.toLocaleString('en')} orders, every event delivered`,
      n: WEBHOOK_ORDERS,
      target: TARGETS.bytesPerOrderWebhooks,
      webhookUrl: hookUrl,
      env: {},
    },
    {
      label: `${MILLION.toLocaleString('en')} orders, no webhook URL, --max-orders ${MILLION}`,
      n: MILLION,
      target: undefined,
      env: { BENCH_MAX_ORDERS: String(MILLION) },
    },
  ];
  for (const run of runs) {
    const server = await startServer('sandbox', { control: true, env: run.env });
    const before = await server.ask<{ heapUsed: number; arrayBuffers: number; heapLimit: number }>('heap');
    let fill: any;
    let after: { heapUsed: number; arrayBuffers: number; heapLimit: number } | undefined;
    let failure: string | undefined;
    try {
      fill = await server.ask('fill', { n: run.n, webhookUrl: run.webhookUrl });
      after = await server.ask('heap');
    } catch (error) {
      failure = (error as Error).message.split('\n')[0];
    }
    server.stop();
    await server.exited;
    if (!after) {
      rows.push(`| ${run.label} | did not finish: ${failure} | | | | |`);
      out.summary.push({
        target: `heap per stored order, ${run.label}`,
        figure: `did not finish: ${failure}`,
        goal: run.target === undefined ? 'fits the default heap' : `≤ ${run.target} B`,
        met: false,
      });
      log(`memory ${run.label}: ${failure}`);
      continue;
    }
    // Heap and array buffers together (settled orders' slabs are off the heap, decision 020).
    const perOrder = Math.round((after.heapUsed + after.arrayBuffers - before.heapUsed - before.arrayBuffers) / run.n);
    const buffersPerOrder = Math.round((after.arrayBuffers - before.arrayBuffers) / run.n);
    const ok = run.target === undefined ? fill.kept === run.n && after.heapUsed < after.heapLimit : perOrder <= run.target;
    if (run.webhookUrl) {
      out.memory.webhooks = perOrder;
      // The store issue (decision 028): the default --max-orders with every event delivered, as
      // plain records, in the default heap with a 2× margin (this run's bytes per order × 200,000).
      const atDefault = perOrder * TARGETS.defaultMaxOrders;
      out.store.push(
        {
          target: 'heap per stored order (reported)',
          figure: `${perOrder} B with every event delivered${out.memory.plain === undefined ? '' : `, ${out.memory.plain} B with no webhook URL`}`,
          goal: 'reported',
          met: true,
        },
        {
          target: `${TARGETS.defaultMaxOrders.toLocaleString('en')} orders (the default \`--max-orders\`), every event delivered, kept as plain records`,
          figure: `${mib(atDefault)} (${perOrder} B × ${TARGETS.defaultMaxOrders.toLocaleString('en')}) of the default ${mib(after.heapLimit)}: a ${(after.heapLimit / atDefault).toFixed(1)}× margin`,
          goal: `≥ ${TARGETS.heapMargin}× margin (decision 028)`,
          met: after.heapLimit >= TARGETS.heapMargin * atDefault,
        },
      );
    } else if (run.target !== undefined) out.memory.plain = perOrder;
    else out.memory.million = ok;
    out.summary.push(
      run.target === undefined
        ? {
            target: `${run.label}: fits the default heap`,
            figure: `${mib(after.heapUsed)} of ${mib(after.heapLimit)}, and ${mib(after.arrayBuffers)} of array buffers (${perOrder} B per order in all)`,
            goal: 'below the limit, every order kept',
            met: ok,
          }
        : {
            target: `heap per stored order, ${run.label}`,
            figure: `${perOrder} B (of it ${buffersPerOrder} B in array buffers)`,
            goal: `≤ ${run.target} B`,
            met: ok,
          },
    );
    const statuses = Object.entries(fill.statuses as Record<string, number>)
      .map(([s, c]) => `${c} ${s}`)
      .join(', ');
    const deliveries = run.webhookUrl ? `; ${fill.delivered} of ${fill.deliveries} deliveries succeeded` : '';
    rows.push(
      `| ${run.label} | **${perOrder}** (${buffersPerOrder} in array buffers) | ${run.target === undefined ? `fits the default heap (${mib(after.heapLimit)})` : `≤ ${run.target}`} | ${verdict(ok)} | ${mib(after.heapUsed)} of ${mib(after.heapLimit)}, array buffers ${mib(after.arrayBuffers)} | ${statuses}${deliveries}; ${fill.pendingTimers} timers pending; filled in ${fill.seconds} s |`,
    );
    log(`memory ${run.label}: ${perOrder} B/order, heap ${mib(after.heapUsed)} of ${mib(after.heapLimit)}, ${JSON.stringify(fill)}`);
  }
  receiver.close();
  return [
    '## Orders in memory, in a running sandbox',
    '',
    'Each line is a fresh sandbox process (the bench server: HTTP listening, inspector, dashboard feed, manual clock) started with `--expose-gc` and an IPC channel (bench only). ' +
      "Heap used and array buffers (off the heap: settled orders' slabs, decision 020) after two forced GCs are read before and after the orders are added; the difference of their sum over the orders is the cost per order. " +
      'Orders (a third each of onramp, offramp with the account lookup, swap) are created in the server process through the order service, each body parsed from its own JSON text with its own customer reference (so no string is shared that a request would not share), paid in and taken to `completed` on the manual clock. ' +
      'Webhooks: a partner subscribed to every event with its URL on a receiver in the bench process; each batch of 500 orders waits for its deliveries (delivery log and attempts are kept).',
    '',
    '| run | bytes per order (heap and array buffers) | target | verdict | heap after GC | orders, deliveries, time |',
    '|---|---|---|---|---|---|',
    ...rows,
  ];
}

async function timers() {
  const t = await runNode(['--import', 'tsx', 'bench/timers.ts']);
  return [
    '## Virtual clock: cost per fired timer of one advance',
    '',
    '| due timers | ns per timer |',
    '|---|---|',
    ...Object.entries(t.nsPerTimer as Record<string, number>).map(([n, ns]) => `| ${Number(n).toLocaleString('en')} | ${ns} |`),
    '',
    `100k vs 1k: ${t.ratio100kTo1k}× (target ≤ 2×: ${verdict(t.ratio100kTo1k <= 2)}).`,
  ];
}

async function webhooks() {
  const w = await benchWebhooks();
  return [
    '## Webhook deliveries',
    '',
    `${w.orders} orders, ${w.concurrency} at a time, each emitting five events to a receiver on 127.0.0.1 (same process): ` +
      `**${w.deliveriesPerSecond} deliveries/s** (${w.succeeded} of ${w.deliveries} succeeded). ` +
      `Added latency from state change to the request reaching the receiver (wall): p50 ${w.latencyMs.p50} ms, p99 ${w.latencyMs.p99} ms, max ${w.latencyMs.max} ms.`,
  ];
}

async function scenarios() {
  const s = await runNode(['--import', 'tsx', 'bench/scenarios.ts', '1000', '16']);
  return [
    '## Scenario runner',
    '',
    `The library (${s.library.scenarios} scenarios, ${s.library.passed} passed) in process: **${s.library.ms} ms** wall (target < 10 s: ${verdict(s.library.ms < 10_000)}).`,
    `${s.generated.scenarios} generated happy-path scenarios (a third of each type; ${s.generated.passed} passed), ${s.generated.concurrency} at a time in process: ` +
      `${s.generated.seconds} s, **${s.generated.ordersPerSecond} orders/s** end to end (target ≥ 200: ${verdict(s.generated.ordersPerSecond >= 200)}).`,
  ];
}

/**
 * Start-up (issue 21): in-process `startSandbox()` + `close()` (CONTRACT §14), and the compiled
 * CLI from its start to the first request it answers.
 */
async function startup(ctx: Ctx, out: Results) {
  const st = await runNode(['--import', 'tsx', 'bench/startup.ts', '50', '5']);
  const cli = await cliStartup(ctx, CLI_STARTS);
  out.summary.push(
    {
      target: 'in-process startSandbox() + close(), median of 50 warm',
      figure: `${st.medianMs} ms (the first in a process ${st.firstMs} ms)`,
      goal: `≤ ${TARGETS.startCloseMs} ms`,
      met: st.medianMs <= TARGETS.startCloseMs,
    },
    {
      target: `compiled CLI, start to first answered request, median of ${CLI_STARTS}`,
      figure: `${cli.medianMs} ms (max ${cli.maxMs} ms)`,
      goal: `≤ ${TARGETS.cliFirstAnswerMs} ms`,
      met: cli.medianMs <= TARGETS.cliFirstAnswerMs,
    },
  );
  return [
    '## Start-up',
    '',
    `In process: \`await startSandbox()\` then \`await close()\` (manual clock, port 0), in a fresh process: **median ${st.medianMs} ms** over ${st.runs} runs after ${st.warmup} warm-up runs ` +
      `(p90 ${st.p90Ms} ms, max ${st.maxMs} ms; target ≤ ${TARGETS.startCloseMs} ms: ${verdict(st.medianMs <= TARGETS.startCloseMs)}). The first one in a process, before the JIT has warmed up, took ${st.firstMs} ms: ` +
      'what a test file that starts its own pays once (vitest reloads the modules for each file).',
    '',
    `The compiled CLI (tsup with tsup.config.ts into tmp/bench-dist, as \`npx ramp-sandbox\` runs it): \`node tmp/bench-dist/cli/bin.js serve ${cliFlags(1_000_000).join(' ')}\` spawned, its \`listening on\` line awaited, then one signed GET /v1/networks; the time from the spawn to that answer, ${CLI_STARTS} starts one after the other: ` +
      `**median ${cli.medianMs} ms** (min ${cli.minMs}, max ${cli.maxMs} ms; target ≤ ${TARGETS.cliFirstAnswerMs} ms: ${verdict(cli.medianMs <= TARGETS.cliFirstAnswerMs)}). Node's own start is in it, as it is for a user.`,
  ];
}

const CLI_STARTS = env('BENCH_CLI_STARTS', 10);

/** Spawn of the compiled CLI to its first answered request (signed GET /v1/networks), `n` times. */
async function cliStartup(ctx: Ctx, n: number) {
  const bin = await buildPackage();
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const started = performance.now();
    const server = await spawnServer('compiled CLI', [bin, 'serve', ...cliFlags(1_000_000)]);
    await fetchJson(ctx, server.base, 'GET', '/v1/networks');
    times.push(performance.now() - started);
    await server.stop();
  }
  times.sort((a, b) => a - b);
  const r = (x: number) => Math.round(x);
  log(`compiled CLI start to first answer: ${times.map(r).join(' ')} ms`);
  return { medianMs: r(times[Math.floor(times.length / 2)]!), minMs: r(times[0]!), maxMs: r(times[times.length - 1]!) };
}

/** Objects and bytes per stored order by kind, from two heap snapshots (bench/heap.ts --objects). */
async function objects() {
  const n = env('BENCH_OBJECT_ORDERS', 10_000);
  const h = await runNode(['--expose-gc', '--import', 'tsx', 'bench/heap.ts', '--orders', String(n), '--objects', '--json-objects']);
  const rows = (h.objects as Array<{ type: string; name: string; perOrder: number; bytesPerOrder: number }>).slice(0, 20);
  return [
    '## Objects per stored order',
    '',
    `bench/heap.ts --objects: one process, a listening sandbox filled with ${n.toLocaleString('en')} completed orders through the order service (as the memory section), a heap snapshot before and after; ` +
      `the difference per order by V8 node type and constructor (plain objects by their properties; numbers are boxed doubles). **${h.objectsPerOrder} objects, ${h.bytesPerOrder} B per order** (heap after GC).`,
    '',
    '| objects per order | bytes per order | kind |',
    '|---|---|---|',
    ...rows.map((o) => `| ${o.perOrder} | ${o.bytesPerOrder} | ${o.type} ${o.name.replace(/\|/g, '\\|')} |`),
  ];
}

/** Issue 22's figures (bench/reliability.ts): memory, state size and time, advance stalls. */
async function reliability(out: Results) {
  const r = await runNode(['--expose-gc', '--import', 'tsx', 'bench/reliability.ts']);
  const { bigBodies: b, state: s, advance: a } = r;
  const ok = (cond: boolean) => verdict(cond);
  const label = `a state of ${s.orders.toLocaleString('en')} completed orders`;
  out.store.push(
    {
      target: `${label}: saved (POST /sandbox/state/save)`,
      figure: `${s.saveS} s (${s.mib} MiB)`,
      goal: `≤ ${TARGETS.stateSaveS} s`,
      met: s.bytes > 0 && s.saveS <= TARGETS.stateSaveS,
    },
    {
      target: `${label}: restored (a sandbox started with \`--state\`)`,
      figure: `${s.restoreS} s, ${s.restoredOrders.toLocaleString('en')} orders back`,
      goal: `≤ ${TARGETS.stateRestoreS} s`,
      met: s.restoredOrders === s.orders && s.restoreS <= TARGETS.stateRestoreS,
    },
    {
      target: `${label}: peak heap of the restore`,
      figure: `${s.peakOverRestored}× the restored sandbox's own ${s.restoredHeapMiB} MiB`,
      goal: `≤ ${TARGETS.restorePeakFactor}×`,
      met: s.peakOverRestored <= TARGETS.restorePeakFactor,
    },
  );
  return [
    '## Reliability: memory held, state size, advance stalls',
    '',
    'In-process sandboxes on 127.0.0.1 (bench/reliability.ts, `--expose-gc`): the state is filled and saved in one process, which exits, and restored in a new one, as after a restart; /health is asked from a third.',
    '',
    '| what | figure | bound | verdict |',
    '|---|---|---|---|',
    `| heap after GC once ${b.requests.toLocaleString('en')} unauthenticated ${b.bodyMiB} MiB POSTs went through the inspector | grew ${b.grownMiB} MiB (${b.heapBeforeMiB} → ${b.heapAfterMiB} MiB) | near the excerpts kept (${b.excerptsMiB} MiB of 4 KiB bodies), far below the ${b.requests} MiB sent | ${ok(b.grownMiB <= 4 * b.excerptsMiB + 16)} |`,
    `| state save of ${s.orders.toLocaleString('en')} completed orders (POST /sandbox/state/save, streamed in slices) | ${s.mib} MiB (${s.bytes.toLocaleString('en')} bytes) in ${s.saveS} s | ≤ 3 s (store issue item 7), whatever its size | ${ok(s.bytes > 0 && s.saveS <= 3)} |`,
    `| GET /health asked one at a time during that save (by another process) | ${s.healthDuringSave.answered.toLocaleString('en')} answered, p99 ${s.healthDuringSave.p99Ms} ms, slowest ${s.healthDuringSave.maxMs} ms; longest event-loop stall ${s.longestStallDuringSaveMs} ms | within 100 ms (reliability issue, CONTRACT §9) | ${ok(s.healthDuringSave.maxMs <= 100)} |`,
    `| its restore: a sandbox started with \`--state\` that file in a new process (read line by line, validated, restored: decision 029) | ${s.restoreS} s (${s.restoreCpuS} s of CPU), ${s.restoredOrders.toLocaleString('en')} orders back | every order back, ≤ 5 s (store issue item 7) | ${ok(s.restoredOrders === s.orders && s.restoreS <= 5)} |`,
    `| heap during that restore | peak ${s.peakRestoreHeapMiB} MiB over the heap before, ${s.peakOverRestored}× the restored sandbox's own ${s.restoredHeapMiB} MiB (${s.heapPerOrderB.toLocaleString('en')} B per stored order); longest event-loop stall ${s.longestStallDuringRestoreMs} ms | peak ≤ 2× the restored heap (store issue item 7) | ${ok(s.peakOverRestored <= 2)} |`,
    `| longest event-loop stall during an advance of ${a.timersFired.toLocaleString('en')} timers (${a.orders.toLocaleString('en')} paid orders, ${a.advanceS} s in all) | ${a.longestStallMs} ms (p99 ${a.p99StallMs} ms) | yields at least every 50 ms | ${ok(a.longestStallMs <= 100)} |`,
    `| a GET /health made during that advance | answered in ${a.requestDuringAdvanceMs} ms (HTTP ${a.requestStatus}) | within 100 ms (CONTRACT §9) | ${ok(a.requestDuringAdvanceMs <= 100)} |`,
  ];
}

function log(line: string) {
  process.stdout.write(`${line}\n`);
}

async function main() {
  const ctx = await prepare();
  const out: Results = { throughput: {}, memory: {}, summary: [], store: [] };
  const sections: Array<[Section, () => Promise<string[]>]> = [
    ['throughput', () => throughput(ctx, out)],
    ['create-run', () => createRun(ctx, out)],
    ['stored-orders', () => storedOrders(ctx, out)],
    ['inspector', () => inspector(ctx, out)],
    ['profile', () => profile(ctx)],
    ['memory', () => memory(out)],
    ['objects', objects],
    ['timers', timers],
    ['webhooks', webhooks],
    ['scenarios', scenarios],
    ['startup', () => startup(ctx, out)],
    ['reliability', () => reliability(out)],
  ];
  const body: string[] = [];
  for (const [name, run] of sections) {
    if (!wanted(name)) continue;
    log(`-- ${name}`);
    body.push(...(await run()), '');
  }
  const header = [
    '# Bench results',
    '',
    `Run ${new Date().toISOString()} on ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}${only ? ` (sections: ${only.join(', ')})` : ''}.`,
    "Throughput, the create run and create p99 against stored orders: each server alone on one core, wrk on another (`taskset`), a load invalid when wrk's core was saturated, the server short of its core or a response not 2xx, the throughput run also when bare node:http is not clearly ahead of bare Koa (bench/throughput.ts). " +
      'The other sections load the sandbox with autocannon in the bench process, unpinned, on the shared cores: absolute numbers move with the machine, ratios measured in the same run much less.',
    `The sandbox runs with logs at \`warn\`, the manual clock and the rate limit lifted (it would otherwise answer 429)${SANDBOX_NODE_FLAGS.length ? `, and with the V8 flags ${SANDBOX_NODE_FLAGS.join(' ')} (BENCH_SANDBOX_NODE_FLAGS)` : ''}.`,
    '',
  ];
  const table = (rows: Results['summary']) => [
    '| target | figure | goal | verdict |',
    '|---|---|---|---|',
    ...rows.map((t) => `| ${t.target} | ${t.figure} | ${t.goal} | ${t.met === undefined ? 'no verdict' : verdict(t.met)} |`),
    '',
  ];
  const store = out.store.length
    ? [
        "## The store issue's targets",
        '',
        'The store issue\'s "done when" (issue 38) with the figures this run measured (details in the sections below).',
        '',
        ...table(out.store),
      ]
    : [];
  const summary = out.summary.length
    ? [
        "## Issue 21's targets",
        '',
        'Each target with the figure this run measured (details in the sections below). "no verdict": the load was invalid (bench/throughput.ts), so no figure is claimed.',
        '',
        ...table(out.summary),
      ]
    : [];
  const report = [...header, ...store, ...summary, ...body].join('\n');
  if (only) {
    log(`\n${report}`);
    return;
  }
  mkdirSync(`${root}bench/results`, { recursive: true });
  writeFileSync(`${root}bench/results/latest.md`, report);
  log('wrote bench/results/latest.md');
}

main()
  .catch((error) => {
    process.stderr.write(`${(error as Error).stack}\n`);
    process.exitCode = 1;
  })
  .finally(() => {
    for (const c of children) c.kill();
    removeScripts();
  });
