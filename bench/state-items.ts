/**
 * Decision 029's harness: what validating a state's orders one line at a time costs, three ways,
 * on the orders of a saved state file (one item a line: any save since decision 029). Each way
 * runs in a fresh process (so one's heap does not slow the next) over the same lines, keeping
 * every order as a restore does: JSON.parse alone; JSON.parse and zod's parse of the order's
 * schema as it is; JSON.parse and zod's parse of the schema compiled (`compiledOf`, decision 022:
 * what a restore does). Then what a more compact JSON of the same orders would buy (store issue
 * item 7, decision 029's "not done"): JSON.parse alone of each order with its timeline as
 * `[group, event, details, at - created_at]` tuples (`parse-tuples`: fewer keys, small numbers),
 * and JSON.stringify of every order kept, as a save writes it, in both forms (`stringify`,
 * `stringify-tuples`). And the floors of any layout, before validation: each order as one flat JSON
 * array of its leaves, parsed and built back by an object literal made for its shape
 * (`parse-flat`), and the same orders built from leaves already parsed (`build`: making the plain
 * records alone, their strings aside). And what a store that kept orders other than as plain
 * records would still pay, validating each order as a restore must: zod's compiled parse with only
 * each order's place in the file's bytes kept (`zod-offsets`: a store that kept the document's
 * bytes and parsed an order at each read), and with each order kept but its timeline as bytes of its
 * own (`zod-timeline-bytes`: a codec of the timeline alone). Prints one JSON line: ms, CPU ms, GCs
 * and heap kept per way.
 *
 * Usage: node --expose-gc --import tsx bench/state-items.ts FILE [--orders N]
 *   (FILE: e.g. the `--state` file of a sandbox filled by bench/fill.ts and saved)
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { GCProfiler } from 'node:v8';
import { STATE_ITEM_SCHEMAS } from '../src/sandbox/state/state.schema';
import { compiledOf } from '../src/shared/validation';

const { values: flags, positionals } = parseArgs({
  allowPositionals: true,
  options: { orders: { type: 'string', default: '50000' }, way: { type: 'string' } },
});
const file = positionals[0];
if (!file) throw new Error('usage: bench/state-items.ts FILE [--orders N]');
const n = Number(flags.orders);
const WAYS = [
  'parse',
  'zod',
  'zod-compiled',
  'zod-offsets',
  'zod-timeline-bytes',
  'parse-tuples',
  'parse-flat',
  'build',
  'stringify',
  'stringify-tuples',
] as const;

/**
 * An order's leaves (every string, number, boolean and null, depth first) and the code that
 * builds the order back from them as one object literal: `leaves[0]` is unused, so the first
 * leaf is `a[1]`. Orders of the same shape (the same keys and array lengths) share the code.
 */
function flat(value: unknown, leaves: unknown[] = [0], at = { n: 1 }): { leaves: unknown[]; code: string } {
  if (value === null || typeof value !== 'object') {
    leaves.push(value);
    return { leaves, code: `a[${at.n++}]` };
  }
  const code = Array.isArray(value)
    ? `[${value.map((v) => flat(v, leaves, at).code).join(',')}]`
    : `{${Object.entries(value)
        .map(([k, v]) => `${JSON.stringify(k)}:${flat(v, leaves, at).code}`)
        .join(',')}}`;
  return { leaves, code };
}
const builders = new Map<string, (a: unknown[]) => unknown>();
/** The order's leaves, its shape's builder first among them (as an index into `shapes`). */
function flatOrder(order: unknown, shapes: Array<(a: unknown[]) => unknown>): unknown[] {
  const { leaves, code } = flat(order);
  let build = builders.get(code);
  if (!build) {
    build = new Function('a', `return ${code}`) as (a: unknown[]) => unknown;
    builders.set(code, build);
    shapes.push(build);
  }
  leaves[0] = shapes.indexOf(build);
  return leaves;
}

/** An order's JSON with its timeline as tuples, its instants from the order's creation. */
function tuples(order: { created_at: number; timeline: Array<{ group: string; event: string; details: unknown; at: number }> }) {
  return { ...order, timeline: order.timeline.map((e) => [e.group, e.event, e.details, e.at - order.created_at]) };
}

if (!flags.way) {
  const results: Record<string, unknown> = {};
  for (const way of WAYS) {
    const out = execFileSync(
      process.execPath,
      ['--expose-gc', '--import', 'tsx', new URL(import.meta.url).pathname, file, '--orders', String(n), '--way', way],
      { encoding: 'utf8', maxBuffer: 1 << 20 },
    );
    results[way] = JSON.parse(out.trim().split('\n').at(-1)!);
  }
  process.stdout.write(`${JSON.stringify({ file, orders: n, ...results })}\n`);
} else {
  // The orders' lines (a line holds one order, with a comma after it but the last).
  const lines: Buffer[] = [];
  const text = readFileSync(file);
  let start = 0;
  let inOrders = false;
  while (start < text.length && lines.length < n) {
    let end = text.indexOf(0x0a, start);
    if (end < 0) end = text.length;
    const line = text.subarray(start, end);
    if (inOrders && line[0] === 0x5d) break;
    if (inOrders) lines.push(line.at(-1) === 0x2c ? line.subarray(0, -1) : line);
    if (line.toString('latin1', Math.max(0, line.length - 10)).endsWith('"orders":[')) inOrders = true;
    start = end + 1;
  }
  if (lines.length === 0) throw new Error(`${file}: no orders one a line (a save made before decision 029?)`);
  if (flags.way === 'parse-tuples')
    for (let i = 0; i < lines.length; i++) lines[i] = Buffer.from(JSON.stringify(tuples(JSON.parse(lines[i]!.toString('utf8')))));
  // The floors of any layout, before validation: each order as one flat JSON array of its leaves,
  // parsed and built back by code made for its shape (`parse-flat`: no keys to read, every object
  // made by a literal); and the same orders built from leaves already parsed (`build`: what
  // making the plain records alone costs, their strings aside).
  const shapes: Array<(a: unknown[]) => unknown> = [];
  const leaves: unknown[][] = [];
  if (flags.way === 'parse-flat' || flags.way === 'build')
    for (let i = 0; i < lines.length; i++) {
      const flatLeaves = flatOrder(JSON.parse(lines[i]!.toString('utf8')), shapes);
      if (flags.way === 'build') leaves.push(flatLeaves);
      else lines[i] = Buffer.from(JSON.stringify(flatLeaves));
    }
  if (flags.way === 'build') lines.length = 0;
  // The save's ways: every order kept first (as the store keeps them), then only the writing is timed.
  const orders = flags.way?.startsWith('stringify') ? lines.map((l) => JSON.parse(l.toString('utf8'))) : [];
  if (flags.way === 'stringify-tuples') for (let i = 0; i < orders.length; i++) orders[i] = tuples(orders[i]);
  const schema = STATE_ITEM_SCHEMAS.orders;
  const zod = flags.way === 'zod' ? schema : compiledOf(schema);
  if (lines.length > 0 && flags.way !== 'parse-flat') zod.safeParse(JSON.parse(lines[0]!.toString('utf8'))); // compiled before the clock starts
  const gc = (globalThis as { gc?: () => void }).gc!;
  gc();
  const before = process.memoryUsage().heapUsed;
  const kept: unknown[] = [];
  let refused = 0;
  const profiler = new GCProfiler();
  profiler.start();
  const cpu = process.cpuUsage();
  const t = performance.now();
  let written = 0;
  for (const order of orders) written += JSON.stringify(order).length;
  if (orders.length > 0) lines.length = 0;
  for (const a of leaves) kept.push(shapes[a[0] as number]!(a));
  for (const line of lines) {
    const item = JSON.parse(line.toString('utf8'));
    if (flags.way === 'parse-flat') kept.push(shapes[item[0]]!(item));
    else if (flags.way === 'parse' || flags.way === 'parse-tuples') kept.push(item);
    else {
      const parsed = zod.safeParse(item);
      if (!parsed.success) refused++;
      if (flags.way === 'zod-offsets') kept.push(line.byteOffset);
      else if (flags.way === 'zod-timeline-bytes') {
        // The timeline's text (between its key and the next field's, `status`) kept as bytes of its own.
        const from = line.indexOf('"timeline":') + '"timeline":'.length;
        const to = line.indexOf(',"status":', from);
        if (from < '"timeline":'.length || to < 0) refused++;
        else kept.push({ ...parsed.data, timeline: Buffer.from(line.subarray(from, to)) });
      } else kept.push(parsed.data);
    }
  }
  const ms = performance.now() - t;
  const used = process.cpuUsage(cpu);
  const gcs = profiler.stop()?.statistics ?? [];
  gc();
  const heap = process.memoryUsage().heapUsed - before;
  process.stdout.write(
    `${JSON.stringify({ lines: kept.length || orders.length, ...(orders.length ? { bytes: written } : {}), refused, ms: Math.round(ms), cpuMs: Math.round((used.user + used.system) / 1000), gcs: gcs.length, gcMs: Math.round(gcs.reduce((s, g) => s + g.cost, 0) / 1000), ...(kept.length ? { heapKeptMiB: Math.round(heap / 2 ** 20), bytesPerOrder: Math.round(heap / kept.length) } : {}) })}\n`,
  );
}
