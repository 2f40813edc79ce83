import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * docs/architecture.md: the rooms of src/ and the one direction imports may point. A room may
 * import only rooms below it in ROOMS (and itself); no file cycles, no room cycles; at most 12
 * rooms, none holding a single source file, and `index.ts` the only file at the root.
 * Type-only imports count too: a type from above is still knowledge of what is above.
 */
const SRC = join(import.meta.dirname, '../../src');

/** Lowest first: each room may import the rooms before it. */
const ROOMS = [
  'shared',
  'clock',
  'reference',
  'auth',
  'orders',
  'webhooks',
  'dashboard',
  'http',
  'sandbox',
  'client',
  'scenario-runner',
  'cli',
];

const IMPORT =
  /^\s*(?:import|export)\s+(?:type\s+)?(?:[^'";]*?\bfrom\s+)?['"](\.{1,2}\/[^'"]+)['"]|\bimport\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/gm;
const stripComments = (text: string) => text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:])\/\/.*$/gm, '$1');

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return /\.(?:ts|js)$/.test(name) && !name.endsWith('.test.ts') ? [path] : [];
  });
}

/** path under src/ → the paths under src/ it imports. */
function importGraph(files: Map<string, string>): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const [rel, text] of files) {
    const targets: string[] = [];
    for (const m of stripComments(text).matchAll(IMPORT)) {
      const base = join(dirname(rel), m[1] ?? m[2]!)
        .split('\\')
        .join('/')
        .replace(/\.(?:ts|js)$/, '');
      const target = [`${base}.ts`, `${base}.js`, `${base}/index.ts`].find((c) => files.has(c));
      if (target) targets.push(target);
    }
    graph.set(rel, targets);
  }
  return graph;
}

const roomOf = (rel: string) => (rel.includes('/') ? rel.split('/')[0]! : '(root)');

/**
 * The dashboard's browser UI is a program of its own, served as files and imported by no server
 * code: it takes its types (only types, in ui/types.ts) from the control client above it.
 */
const browserTypes = (from: string, to: string) => from.startsWith('dashboard/ui/') && roomOf(to) === 'client';

/** Imports from a room to one above it (or to a folder not in ROOMS). */
function upwardImports(graph: Map<string, string[]>): string[] {
  const found: string[] = [];
  for (const [from, targets] of graph) {
    const a = roomOf(from);
    if (a === '(root)') continue; // index.ts, the package surface, may name anything
    for (const to of targets) {
      if (browserTypes(from, to)) continue;
      const ia = ROOMS.indexOf(a);
      const ib = ROOMS.indexOf(roomOf(to));
      if (ia < 0 || ib < 0 || ib > ia) found.push(`${from} -> ${to}`);
    }
  }
  return found;
}

/** Every cycle, as its sorted members (strongly connected components of more than one node, or a self-import). */
function cycles(graph: Map<string, string[]>): string[] {
  let next = 0;
  const stack: string[] = [];
  const onStack = new Set<string>();
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const out: string[] = [];
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1 || (graph.get(v) ?? []).includes(v)) out.push(component.sort().join(' '));
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return out.sort();
}

/** The room graph: room → the other rooms it imports. */
function roomGraph(graph: Map<string, string[]>): Map<string, string[]> {
  const rooms = new Map<string, Set<string>>();
  for (const [from, targets] of graph) {
    const a = roomOf(from);
    if (a === '(root)') continue;
    const set = rooms.get(a) ?? new Set<string>();
    for (const to of targets) if (roomOf(to) !== a && roomOf(to) !== '(root)' && !browserTypes(from, to)) set.add(roomOf(to));
    rooms.set(a, set);
  }
  return new Map([...rooms].map(([k, v]) => [k, [...v]]));
}

/**
 * The folder graph at one depth: each file stands for its folder `depth` segments down (a file
 * higher up stands for itself), and an edge joins two of them when a file of one imports a file
 * of the other. Depth 1 is the room graph; depth 2 finds a cycle between `orders/store` and a file
 * of `orders`, or between two folders of `http`, that no single file cycle shows.
 */
function folderGraph(graph: Map<string, string[]>, depth: number): Map<string, string[]> {
  const unitOf = (rel: string) => {
    const parts = rel.split('/');
    return parts.length > depth ? parts.slice(0, depth).join('/') : rel;
  };
  const units = new Map<string, Set<string>>();
  for (const [from, targets] of graph) {
    if (roomOf(from) === '(root)') continue;
    const a = unitOf(from);
    const set = units.get(a) ?? new Set<string>();
    for (const to of targets) if (unitOf(to) !== a && roomOf(to) !== '(root)' && !browserTypes(from, to)) set.add(unitOf(to));
    units.set(a, set);
  }
  return new Map([...units].map(([k, v]) => [k, [...v]]));
}

/**
 * Imports of a folder's insides from outside it, where the folder keeps a door (`index.ts`)
 * that the rest must use: `orders/store/` (docs/decisions/028-plain-order-store.md) keeps how
 * orders are kept to itself; `orders/model/` (what an order is, store issue) is used through
 * its index too.
 */
const DOORS = ['orders/store', 'orders/model'];
function throughTheWall(graph: Map<string, string[]>): string[] {
  const found: string[] = [];
  for (const [from, targets] of graph) {
    for (const to of targets) {
      const door = DOORS.find((d) => to.startsWith(`${d}/`) && !from.startsWith(`${d}/`));
      if (door !== undefined && to !== `${door}/index.ts`) found.push(`${from} -> ${to}`);
    }
  }
  return found;
}

/**
 * The graph of folders, each folder standing for its own files only (not its sub-folders'): an
 * edge joins two folders when a file directly in one imports a file directly in the other. A
 * cycle here is a loop between a folder's own files and one of its sub-folders (`http` ↔
 * `http/middleware` when `middleware/inspect.ts` imported the request log that `http/app.ts`
 * sat beside), which the depth graphs above do not see: there each loose file stands alone.
 */
function ownFilesGraph(graph: Map<string, string[]>): Map<string, string[]> {
  const folders = new Map<string, Set<string>>();
  for (const [from, targets] of graph) {
    if (roomOf(from) === '(root)') continue;
    const a = dirname(from);
    const set = folders.get(a) ?? new Set<string>();
    for (const to of targets) if (dirname(to) !== a && roomOf(to) !== '(root)' && !browserTypes(from, to)) set.add(dirname(to));
    folders.set(a, set);
  }
  return new Map([...folders].map(([k, v]) => [k, [...v]]));
}

const maxDepth = (graph: Map<string, string[]>) => Math.max(...[...graph.keys()].map((k) => k.split('/').length));

const load = () => new Map(sources(SRC).map((f): [string, string] => [relative(SRC, f).split('\\').join('/'), readFileSync(f, 'utf8')]));

describe('the rooms of src/ (docs/architecture.md)', () => {
  it('has at most 12 rooms, all on the map, none holding a single source file, and index.ts alone at the root', () => {
    const rooms = readdirSync(SRC).filter((n) => statSync(join(SRC, n)).isDirectory());
    expect(rooms.length).toBeLessThanOrEqual(12);
    expect(rooms.filter((r) => !ROOMS.includes(r))).toEqual([]);
    const folders = (dir: string): string[] =>
      readdirSync(dir)
        .filter((n) => statSync(join(dir, n)).isDirectory())
        .flatMap((n) => [join(dir, n), ...folders(join(dir, n))]);
    const lonely = folders(SRC).filter((d) => readdirSync(d).filter((n) => /\.(?:ts|js)$/.test(n) && !n.endsWith('.test.ts')).length === 1);
    expect(lonely.map((d) => relative(SRC, d))).toEqual([]);
    expect(readdirSync(SRC).filter((n) => statSync(join(SRC, n)).isFile() && !n.endsWith('.test.ts'))).toEqual(['index.ts']);
  });

  it('has no upward import, no file cycle and no room cycle', () => {
    const graph = importGraph(load());
    expect(graph.size).toBeGreaterThan(100);
    expect(upwardImports(graph)).toEqual([]);
    expect(cycles(graph)).toEqual([]);
    expect(cycles(roomGraph(graph))).toEqual([]);
  });

  it('has no folder or sub-folder cycle at any depth, type-only imports included', () => {
    const graph = importGraph(load());
    for (let depth = 1; depth <= maxDepth(graph); depth++) expect(cycles(folderGraph(graph, depth)), `depth ${depth}`).toEqual([]);
  });

  it("has no loop between a folder's own files and its sub-folders, type-only imports included", () => {
    const graph = importGraph(load());
    expect(cycles(ownFilesGraph(graph))).toEqual([]);
  });

  it('lets nothing outside orders/store/ or orders/model/ import their insides, only their index', () => {
    const graph = importGraph(load());
    for (const door of DOORS) expect([...graph.keys()].filter((k) => k.startsWith(`${door}/`)).length, door).toBeGreaterThan(1);
    expect(throughTheWall(graph)).toEqual([]);
  });

  it("catches a planted sub-folder cycle and an import through the store's wall (the checks are not no-ops)", () => {
    const graph = importGraph(
      new Map([
        ['orders/store/index.ts', "export type { S } from './types';"],
        ['orders/store/types.ts', 'export type S = 1;'],
        ['orders/store/plain.ts', "import type { R } from '../records';"],
        ['orders/records.ts', "import type { S } from './store';"],
        ['orders/intake.ts', "import { s } from './store/plain';"],
        ['http/control/a.ts', "import { b } from '../routes/b';"],
        ['http/routes/b.ts', 'export const b = 1;'],
        ['http/routes/c.ts', "import type { A } from '../control/a';"],
      ]),
    );
    expect(cycles(graph)).toEqual([]);
    expect(cycles(folderGraph(graph, 2))).toEqual(['http/control http/routes', 'orders/records.ts orders/store']);
    expect(throughTheWall(graph)).toEqual(['orders/intake.ts -> orders/store/plain.ts']);
  });

  it("catches a planted loop between a folder's own files and a sub-folder, which no depth graph shows", () => {
    const graph = importGraph(
      new Map([
        ['http/app.ts', "import { e } from './middleware/errors';"],
        ['http/middleware/errors.ts', 'export const e = 1;'],
        ['http/middleware/inspect.ts', "import type { L } from '../request-log';"],
        ['http/request-log.ts', 'export type L = 1;'],
        ['http/routes/a.ts', "import { e } from '../middleware/errors';"],
      ]),
    );
    expect(cycles(graph)).toEqual([]);
    for (let depth = 1; depth <= maxDepth(graph); depth++) expect(cycles(folderGraph(graph, depth)), `depth ${depth}`).toEqual([]);
    expect(cycles(ownFilesGraph(graph))).toEqual(['http http/middleware']);
  });

  it('catches a planted upward import, file cycles and a room cycle (the check is not a no-op)', () => {
    const graph = importGraph(
      new Map([
        ['orders/a.ts', "import { x } from '../http/b';"],
        ['http/b.ts', "import type { y } from '../orders/a';"],
        ['shared/c.ts', "export { z } from './d';"],
        ['shared/d.ts', "const m = await import('./c');"],
        ['clock/e.ts', "import { q } from '../shared/c'; // import { r } from '../cli/x'"],
        ['dashboard/ui/t.ts', "import type { C } from '../../client/k';"],
        ['dashboard/live.ts', "import type { C } from '../client/k';"],
        ['client/k.ts', 'export type C = 1;'],
      ]),
    );
    expect(upwardImports(graph)).toEqual(['orders/a.ts -> http/b.ts', 'dashboard/live.ts -> client/k.ts']);
    expect(cycles(graph)).toEqual(['http/b.ts orders/a.ts', 'shared/c.ts shared/d.ts']);
    expect(cycles(roomGraph(graph))).toEqual(['http orders']);
  });
});
