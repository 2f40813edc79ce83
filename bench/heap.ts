/**
 * Heap per stored order, measured in one process (issue 21 part 2): a sandbox listening on
 * 127.0.0.1 (the bench server's configuration: manual clock, inspector, dashboard feed), filled
 * through the order service the /v1 route calls (bench/fill.ts: a third each of onramp, offramp
 * with the account lookup and swap, paid in and taken to a final status), heap used and array
 * buffers' bytes (settled orders' slabs, decision 020) after two forced GCs before and after. With `--webhooks`, the orders' partner is subscribed to every
 * event at a receiver in this process and every delivery is awaited (the delivery log is kept).
 * With `--objects`, two heap snapshots (before and after) are written and compared: objects and
 * bytes per order by V8 node type and constructor name.
 *
 * Usage: node --expose-gc --import tsx bench/heap.ts [--orders N] [--webhooks] [--objects [--json-objects]]
 * Prints one JSON line last (with the table of objects when --json-objects).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { getHeapStatistics, writeHeapSnapshot } from 'node:v8';
import { startServer } from '../src/sandbox/server';
import { fill } from './fill';

const { values: flags } = parseArgs({
  options: {
    orders: { type: 'string', default: '100000' },
    webhooks: { type: 'boolean', default: false },
    objects: { type: 'boolean', default: false },
    'json-objects': { type: 'boolean', default: false },
    'max-orders': { type: 'string' },
  },
});
const n = Number(flags.orders);
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with --expose-gc');

/** Heap used and array buffers' bytes (off the heap: settled orders' slabs, decision 020) after two full GCs. */
function heapAfterGc(): { heap: number; buffers: number } {
  gc!();
  gc!();
  const m = process.memoryUsage();
  return { heap: m.heapUsed, buffers: m.arrayBuffers };
}

const receiver = createServer((req, res) => {
  req.resume();
  req.on('end', () => res.end('ok'));
});
let hookUrl: string | undefined;
if (flags.webhooks) {
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
}

const running = await startServer({
  port: 0,
  clockMode: 'manual',
  clockStart: Date.UTC(2026, 0, 1),
  logLevel: 'warn',
  rateLimit: { capacity: 1e12, refillPerSecond: 1e12 },
  ...(flags['max-orders'] ? { maxOrders: Number(flags['max-orders']) } : {}),
});
// Warm the code paths (and any lazily built caches) with a few orders first, then drop them.
await fill(running, 300, hookUrl);
running.sandbox.reset();
const dir = flags.objects ? mkdtempSync(join(tmpdir(), 'ramp-heap-')) : undefined;
const before = heapAfterGc();
const snapBefore = dir && writeHeapSnapshot(join(dir, 'before.heapsnapshot'));
const filled = await fill(running, n, hookUrl);
const after = heapAfterGc();
const snapAfter = dir && writeHeapSnapshot(join(dir, 'after.heapsnapshot'));
let objects: Array<{ type: string; name: string; perOrder: number; bytesPerOrder: number }> | undefined;
let objectsPerOrder: number | undefined;
if (snapBefore && snapAfter) {
  const a = countNodes(snapBefore);
  const b = countNodes(snapAfter);
  const keys = new Set([...a.keys(), ...b.keys()]);
  objects = [];
  let total = 0;
  for (const key of keys) {
    const x = a.get(key) ?? { count: 0, bytes: 0 };
    const y = b.get(key) ?? { count: 0, bytes: 0 };
    const [type, name] = key.split('\u0000') as [string, string];
    const perOrder = (y.count - x.count) / n;
    total += perOrder;
    objects.push({
      type,
      name,
      perOrder: Math.round(perOrder * 100) / 100,
      bytesPerOrder: Math.round(((y.bytes - x.bytes) / n) * 10) / 10,
    });
  }
  objects = objects
    .filter((o) => Math.abs(o.perOrder) >= 0.05 || Math.abs(o.bytesPerOrder) >= 4)
    .sort((p, q) => q.bytesPerOrder - p.bytesPerOrder);
  objectsPerOrder = Math.round(total * 100) / 100;
  rmSync(dir!, { recursive: true, force: true });
}
await running.close();
receiver.close();
const result = {
  orders: n,
  webhooks: !!flags.webhooks,
  // Heap and array buffers together: what an order costs wherever its bytes are (decision 020).
  bytesPerOrder: Math.round((after.heap + after.buffers - before.heap - before.buffers) / n),
  heapPerOrder: Math.round((after.heap - before.heap) / n),
  buffersPerOrder: Math.round((after.buffers - before.buffers) / n),
  heapBeforeMiB: Math.round(before.heap / 2 ** 20),
  heapAfterMiB: Math.round(after.heap / 2 ** 20),
  buffersAfterMiB: Math.round(after.buffers / 2 ** 20),
  heapLimitMiB: Math.round(getHeapStatistics().heap_size_limit / 2 ** 20),
  fill: filled,
  objectsPerOrder,
  objects,
};
if (objects) {
  for (const o of objects.slice(0, 40))
    process.stderr.write(`${String(o.perOrder).padStart(7)} objs ${String(o.bytesPerOrder).padStart(8)} B  ${o.type} ${o.name}\n`);
}
process.stdout.write(`${JSON.stringify(flags['json-objects'] ? result : { ...result, objects: undefined })}\n`);

/** Objects and self bytes by (node type, name) in a heap snapshot file; strings grouped by type only. */
function countNodes(file: string): Map<string, { count: number; bytes: number }> {
  const snap = JSON.parse(readFileSync(file, 'utf8')) as {
    snapshot: { meta: { node_fields: string[]; node_types: [string[]]; edge_fields: string[]; edge_types: [string[]] } };
    nodes: number[];
    edges: number[];
    strings: string[];
  };
  const fields = snap.snapshot.meta.node_fields;
  const width = fields.length;
  const typeAt = fields.indexOf('type');
  const nameAt = fields.indexOf('name');
  const sizeAt = fields.indexOf('self_size');
  const types = snap.snapshot.meta.node_types[0];
  const edgeCountAt = fields.indexOf('edge_count');
  const edgeWidth = snap.snapshot.meta.edge_fields.length;
  const edgeTypes = snap.snapshot.meta.edge_types[0];
  const out = new Map<string, { count: number; bytes: number }>();
  let edge = 0;
  for (let i = 0; i < snap.nodes.length; i += width) {
    const type = types[snap.nodes[i + typeAt]!]!;
    const edges = snap.nodes[i + edgeCountAt]!;
    // Strings and numbers are named by their value: group them by type alone; a plain object by its properties.
    let name =
      type === 'string' ||
      type === 'concatenated string' ||
      type === 'sliced string' ||
      type === 'number' ||
      type === 'hidden' ||
      type === 'code'
        ? ''
        : snap.strings[snap.nodes[i + nameAt]!]!;
    if (type === 'object' && name === 'Object') {
      const props: string[] = [];
      for (let e = edge; e < edge + edges * edgeWidth; e += edgeWidth) {
        if (edgeTypes[snap.edges[e]!] === 'property') props.push(snap.strings[snap.edges[e + 1]!]!);
      }
      name = `{${props.slice(0, 6).join(',')}${props.length > 6 ? ',…' : ''}}`;
    }
    edge += edges * edgeWidth;
    const key = `${type}\u0000${name}`;
    const entry = out.get(key);
    const bytes = snap.nodes[i + sizeAt]!;
    if (entry) {
      entry.count++;
      entry.bytes += bytes;
    } else out.set(key, { count: 1, bytes });
  }
  return out;
}
