/**
 * Interleaved A/B of sandbox checkouts on one of issue 21's routes, by the throughput section's
 * method (bench/throughput.ts): each server alone on CPU 0 (`taskset`), wrk on CPU 1, bare Koa 3
 * measured in the same run as the scale, rounds interleaved so that drift of the shared machine
 * falls on every server alike. A change to the request path is kept when it moves the ratio to
 * bare Koa by more than the rounds' spread (docs/decisions/002-hmac.md has an example).
 *
 * Usage: npx tsx bench/ab.ts [--route networks|order|create] [--rounds 10] [--seconds 2] DIR[+NODE_FLAG...]...
 * where each DIR is a checkout with its node_modules (e.g. `git worktree add ../before HEAD~1`
 * and `cp -a node_modules ../before/`), started as `npm start` starts it (tsx, src/cli/serve.ts).
 * Node flags joined to a DIR with `+` start that server with them: `. .+--max-semi-space-size=64`
 * measures one checkout with and without the flag.
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { children, cliFlags, fetchJson, prepare, routesOf, spawnServer, type Server } from './harness';

const { values: flags, positionals: dirs } = parseArgs({
  allowPositionals: true,
  options: {
    route: { type: 'string', default: 'networks' },
    rounds: { type: 'string', default: '10' },
    seconds: { type: 'string', default: '2' },
  },
});
const key = flags.route as 'networks' | 'order' | 'create';
if (!['networks', 'order', 'create'].includes(key)) throw new Error(`--route: networks, order or create, not ${key}`);
if (dirs.length === 0) throw new Error('name at least one checkout to measure');
const ROUNDS = Number(flags.rounds);
const SECONDS = Number(flags.seconds);

const ctx = await prepare();
const servers: Array<{ name: string; server: Server; path: string }> = [];
try {
  for (const spec of dirs) {
    const [dir = '', ...nodeFlags] = spec.split('+');
    const root = resolve(dir);
    const server = await spawnServer(
      spec,
      [...nodeFlags, '--import', `${root}/node_modules/tsx/dist/loader.mjs`, `${root}/src/cli/serve.ts`, ...cliFlags(10_000_000)],
      { cpu: 0 },
    );
    servers.push({ name: spec, server, path: '' });
  }
  let bodies = '';
  for (const s of servers) {
    const { created, orderPath } = await routesOf(ctx, s.server.base);
    s.path = key === 'networks' ? '/v1/networks' : key === 'create' ? '/v1/orders' : orderPath;
    bodies ||= JSON.stringify({
      networks: await fetchJson(ctx, s.server.base, 'GET', '/v1/networks'),
      order: await fetchJson(ctx, s.server.base, 'GET', orderPath),
      created,
    });
  }
  const koa = await spawnServer('bare Koa', ['--import', 'tsx', 'bench/servers.ts', 'bare'], { cpu: 0, bare: true, stdin: bodies });
  servers.push({ name: 'bare Koa', server: koa, path: servers[0]!.path });

  const method = key === 'create' ? 'POST' : 'GET';
  const body = key === 'create' ? ctx.offrampBody : undefined;
  /** One wrk load on `s`, signed now (a signature stays valid 300 s); its req/s. Any non-2xx fails the run. */
  const load = (s: (typeof servers)[number], seconds: number): number => {
    const headers = { ...ctx.signed(method, s.path, body), ...(body ? { 'content-type': 'application/json' } : {}) };
    const script = `/tmp/bench-ab-${process.pid}.lua`;
    writeFileSync(
      script,
      [
        `wrk.method = "${method}"`,
        ...(body ? [`wrk.body = ${JSON.stringify(body)}`] : []),
        ...Object.entries(headers).map(([k, v]) => `wrk.headers[${JSON.stringify(k)}] = ${JSON.stringify(v)}`),
      ].join('\n'),
    );
    const out = execFileSync('taskset', ['-c', '1', 'wrk', '-t1', '-c50', `-d${seconds}s`, '-s', script, `${s.server.base}${s.path}`], {
      encoding: 'utf8',
    });
    if (/Non-2xx|Socket errors/.test(out)) throw new Error(`${s.name}: not every answer was 2xx:\n${out}`);
    return Number(/Requests\/sec:\s+([\d.]+)/.exec(out)![1]);
  };
  for (const s of servers) load(s, 4);
  const rps = new Map<string, number[]>(servers.map((s) => [s.name, []]));
  for (let round = 0; round < ROUNDS; round++) {
    for (let i = 0; i < servers.length; i++) {
      const s = servers[(i + round) % servers.length]!;
      rps.get(s.name)!.push(load(s, SECONDS));
    }
  }
  const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
  const koaRps = rps.get('bare Koa')!;
  console.log(`${method} ${key}: ${ROUNDS} interleaved rounds of ${SECONDS} s per server, wrk on CPU 1, each server alone on CPU 0`);
  console.log('| server | req/s (pooled) | ÷ bare Koa, pooled | ÷ bare Koa, rounds (lowest / median / highest) |');
  console.log('|---|---|---|---|');
  for (const s of servers) {
    const mine = rps.get(s.name)!;
    const ratios = mine.map((v, i) => v / koaRps[i]!).sort((a, b) => a - b);
    const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
    console.log(
      `| ${s.name} | ${Math.round(sum(mine) / ROUNDS)} | ${pct(sum(mine) / sum(koaRps))} | ${pct(ratios[0]!)} / ${pct(ratios[ratios.length >> 1]!)} / ${pct(ratios.at(-1)!)} |`,
    );
  }
} finally {
  for (const s of servers) await s.server.stop();
  for (const child of children) child.kill();
}
