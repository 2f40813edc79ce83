/**
 * What a full GC costs beside a million settled orders, by the shape the store keeps them in
 * (docs/decisions/020-settled-state-in-slabs.md, "What is left"). Synthetic records, so that
 * each shape is built in seconds rather than by a 3-minute fill; the first shape is today's
 * (decision 020) and its full GC matches the one measured on real orders (~270–290 ms, against
 * 286 ms).
 *
 *   taskset -c 0 node --single-threaded-gc --expose-gc --import tsx bench/gc-shapes.ts [count]
 *
 * Each shape is built in a fresh child process (one heap each, nothing left over from the last),
 * then three full GCs are forced and timed; the report is their median and the heap used after.
 * Every shape keeps the same ~1.1 KB of bytes per record in 64 KB `ArrayBuffer` slabs, an index
 * from reference to record and an owner's list in creation order, as `OrderStore` does.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const SHAPES = {
  today: "the store's order (18 fields), its reference, a Buffer view of its bytes (decision 020)",
  'no-view': 'the same order, its slab location a small integer instead of a view',
  'two-fields': 'an object of two fields (reference, location) and its reference',
  'string-keys': 'no object per order: reference → location in a Map (one string per order)',
  'hash-keys': 'no heap object per order: a 31-bit hash of the reference → location (Smis only)',
} as const;
type Shape = keyof typeof SHAPES;

const BYTES = 1100;
const SLAB = 64 * 1024;

/** One shape, in this process: builds `count` records, then times three forced full GCs. */
function measure(shape: Shape, count: number): { gcMs: number[]; heapMiB: number } {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('run with node --expose-gc');
  const index = new Map<string | number, unknown>();
  const owner: unknown[] = [];
  const slabs: ArrayBuffer[] = [];
  let slab = new ArrayBuffer(SLAB);
  let used = 0;
  const put = (): Buffer => {
    if (used + BYTES > SLAB) {
      slabs.push(slab);
      slab = new ArrayBuffer(SLAB);
      used = 0;
    }
    const view = Buffer.from(slab, used, BYTES);
    used += BYTES;
    view[0] = 1;
    return view;
  };
  const NONE: never[] = [];
  class Order {
    type = 'offramp';
    env = 'sandbox';
    clientId = 'demo';
    metadata = null;
    status = 'completed';
    version = 7;
    timers = NONE;
    a = null;
    b = 0;
    c = null;
    d = null;
    e = null;
    f = null;
    g = null;
    h = null;
    i = 0;
    constructor(
      readonly reference: string,
      readonly packedState: Buffer | number,
    ) {}
  }
  for (let i = 0; i < count; i++) {
    const reference = `ORD${(36 ** 8 + i * 7919).toString(36).toUpperCase()}ABCD`.slice(0, 16);
    let record: unknown;
    if (shape === 'today') record = new Order(reference, put());
    else {
      put();
      if (shape === 'no-view') record = new Order(reference, i);
      else if (shape === 'two-fields') record = { reference, location: i };
      else record = i;
    }
    index.set(shape === 'hash-keys' ? hash31(reference) : reference, record);
    owner.push(record);
  }
  slabs.push(slab);
  const gcMs: number[] = [];
  for (let k = 0; k < 3; k++) {
    const t = performance.now();
    gc();
    gcMs.push(performance.now() - t);
  }
  const heapMiB = process.memoryUsage().heapUsed / 2 ** 20;
  // Alive to the end: the GCs above had all of it to walk.
  if (index.size + owner.length + slabs.length === 0) console.log('empty');
  return { gcMs, heapMiB };
}

/** FNV-1a, folded into a positive Smi. */
function hash31(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return (h >>> 1) & 0x3fffffff;
}

const [, , arg, child] = process.argv;
const count = Number(arg ?? 1_000_000);
if (child) {
  process.stdout.write(JSON.stringify(measure(child as Shape, count)));
} else {
  const self = fileURLToPath(import.meta.url);
  console.log(
    `Full GC beside ${count.toLocaleString('en')} settled orders, by shape (median of three forced full GCs; each shape in a fresh process; node ${process.version}, flags: ${process.execArgv.join(' ')})\n`,
  );
  console.log('| shape | what a settled order is on the heap | full GC ms | heap used MiB |');
  console.log('|---|---|---:|---:|');
  for (const shape of Object.keys(SHAPES) as Shape[]) {
    const r = spawnSync(process.execPath, [...process.execArgv, self, String(count), shape], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    if (r.status !== 0) throw new Error(`${shape}: exited ${r.status}`);
    const m = JSON.parse(r.stdout) as { gcMs: number[]; heapMiB: number };
    const median = [...m.gcMs].sort((a, b) => a - b)[1]!;
    console.log(`| ${shape} | ${SHAPES[shape]} | ${median.toFixed(0)} | ${m.heapMiB.toFixed(0)} |`);
  }
}
