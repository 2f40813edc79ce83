/**
 * Where the create tail comes from (issue 21; docs/decisions/012): the 30 s create run of
 * `npm run bench` (bench/throughput.ts, same pinning, wrk and validity checks), in arms that
 * change only what the sandbox process keeps:
 * - `grows`: the store as the bench has it (every order stays: the manual clock moves nothing);
 * - `small`: the store reset every second (POST /sandbox/reset's work), so it stays at a few
 *   thousand orders;
 * - `small+records`: the same, the order records each reset drops kept in an array (the orders'
 *   own objects, without the store's maps, indexes and the clock's timers);
 * - `small+text`: the same, each created order's answer kept as `JSON.stringify` of its body
 *   (one string per order, about the bytes of the store);
 * - `small+copy`: the same, kept as a `structuredClone` of the body. The body is the answer's
 *   JSON text, so both keep one flat string per order, copied two ways.
 * Rounds interleave the arms (each round starts with the next). Printed: p50, p99, p99.9 and
 * max of each run, the heap after it, and the GC pauses node reported during it.
 *
 * Usage: npx tsx bench/tail.ts [--rounds 3] [--seconds 30] [--arms grows,small,...]
 */
import { parseArgs } from 'node:util';
import { prepare, spawnServer, root, type Server } from './harness';
import { ensureTools, removeScripts, runWrk, type Wrk } from './throughput';

const { values: flags } = parseArgs({
  options: {
    rounds: { type: 'string', default: '3' },
    seconds: { type: 'string', default: '30' },
    arms: { type: 'string', default: 'grows,small,small+records,small+text,small+copy' },
  },
});
const ROUNDS = Number(flags.rounds);
const SECONDS = Number(flags.seconds);
const ARMS = flags.arms.split(',');
const RETAIN: Record<string, string | undefined> = {
  grows: undefined,
  small: undefined,
  'small+records': 'records',
  'small+text': 'text',
  'small+copy': 'copy',
};
for (const arm of ARMS) if (!(arm in RETAIN)) throw new Error(`unknown arm ${arm}: ${Object.keys(RETAIN).join(', ')}`);

ensureTools();
const ctx = await prepare();
const fmt = (x: number) => (x >= 100 ? x.toFixed(0) : x.toFixed(1));
type Gc = Record<string, { count: number; ms: number; maxMs: number }>;
const rows: string[] = [];

async function run(arm: string): Promise<{ l: Wrk; orders: number; heap: number; gc: Gc }> {
  const retain = RETAIN[arm];
  const sandbox: Server = await spawnServer(`sandbox (${arm})`, ['--import', 'tsx', `${root}bench/servers.ts`, 'sandbox'], {
    cpu: 0,
    control: true,
    env: { BENCH_MAX_ORDERS: '10000000', ...(retain ? { BENCH_RETAIN: retain } : {}) },
  });
  try {
    const url = `${sandbox.base}/v1/orders`;
    const req = () => ({ method: 'POST', headers: ctx.signed('POST', '/v1/orders', ctx.offrampBody), body: ctx.offrampBody });
    await runWrk(url, req(), 4);
    await sandbox.ask('reset');
    await sandbox.ask('gc-pauses');
    const resets = arm === 'grows' ? undefined : setInterval(() => void sandbox.ask('reset'), 1000);
    const l = await runWrk(url, req(), SECONDS, sandbox.pid);
    clearInterval(resets);
    const gc = await sandbox.ask<Gc>('gc-pauses');
    const st = await sandbox.ask<{ orders: number; heapUsed: number }>('stored');
    return { l, orders: st.orders, heap: st.heapUsed, gc };
  } finally {
    await sandbox.stop();
  }
}

try {
  console.log(
    `| round | arm | req/s | p50 ms | p99 ms | p99.9 ms | max ms | orders in the store after | heap MiB after | scavenges: n, total ms, max ms | mark-compacts: n, max ms | valid |`,
  );
  console.log('|---|---|---|---|---|---|---|---|---|---|---|---|');
  for (let round = 0; round < ROUNDS; round++) {
    for (let i = 0; i < ARMS.length; i++) {
      const arm = ARMS[(round + i) % ARMS.length]!;
      const { l, orders, heap, gc } = await run(arm);
      const valid = l.non2xx + l.errors === 0 && l.wrkCore < 95 && l.serverCpu >= 90;
      const s = gc.scavenge ?? { count: 0, ms: 0, maxMs: 0 };
      const m = gc['mark-compact'] ?? { count: 0, ms: 0, maxMs: 0 };
      const row = `| ${round + 1} | ${arm} | ${Math.round(l.rps)} | ${fmt(l.p50)} | ${fmt(l.p99)} | ${fmt(l.p999)} | ${fmt(l.max)} | ${orders.toLocaleString('en')} | ${Math.round(heap / 2 ** 20)} | ${s.count}, ${Math.round(s.ms)}, ${fmt(s.maxMs)} | ${m.count}, ${fmt(m.maxMs)} | ${valid ? 'yes' : `no (server ${Math.round(l.serverCpu)}%, wrk core ${Math.round(l.wrkCore)}%, ${l.non2xx + l.errors} failed)`} |`;
      rows.push(row);
      console.log(row);
    }
  }
} finally {
  removeScripts();
}
