/**
 * CPU profile of a running process through node:inspector, summarised by self time: the top
 * functions, and the share of each area (our modules by folder, dependencies by package, Node
 * internals, GC, idle).
 */
import { Session } from 'node:inspector/promises';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
  children?: number[];
}

export interface ProfileSummary {
  samples: number;
  ms: number;
  /** Share of samples per area, percent, largest first. */
  areas: Array<{ area: string; pct: number }>;
  /** Top functions by self time, percent. */
  top: Array<{ fn: string; at: string; area: string; pct: number }>;
  /** Our functions (src/) by inclusive time (self and callees), percent. */
  inclusive: Array<{ fn: string; at: string; area: string; pct: number }>;
}

export async function startProfile(intervalUs = 200): Promise<() => Promise<ProfileSummary>> {
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: intervalUs });
  await session.post('Profiler.start');
  return async () => {
    const { profile } = (await session.post('Profiler.stop')) as unknown as {
      profile: { nodes: ProfileNode[]; startTime: number; endTime: number };
    };
    session.disconnect();
    return summarise(profile);
  };
}

const root = new URL('..', import.meta.url).href;

/** Where a frame's code lives: src/<folder>, a package, node internals, or a VM bucket. */
export function areaOf(url: string, fn: string): string {
  if (!url) {
    if (fn === '(idle)') return 'idle';
    if (fn === '(garbage collector)') return 'GC';
    if (fn === '(program)') return 'V8/native (program)';
    return 'native';
  }
  if (url.startsWith('node:')) return `node:${url.slice(5).split('/')[0]}`;
  const local = url.startsWith(root) ? url.slice(root.length) : url;
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(local);
  if (pkg) return pkg[1]!;
  const src = /^src\/([^/]+)/.exec(local);
  if (src) return `src/${src[1]}`;
  return local.split('/').slice(0, 2).join('/');
}

export function summarise(profile: { nodes: ProfileNode[]; startTime: number; endTime: number }, topN = 12): ProfileSummary {
  const byFn = new Map<string, { fn: string; at: string; area: string; hits: number }>();
  const byArea = new Map<string, number>();
  let samples = 0;
  for (const node of profile.nodes) {
    const hits = node.hitCount ?? 0;
    if (hits === 0) continue;
    samples += hits;
    const { functionName, url, lineNumber } = node.callFrame;
    const fn = functionName || '(anonymous)';
    const area = areaOf(url, fn);
    const file = url.startsWith(root) ? url.slice(root.length) : url.replace(/^.*node_modules\//, '');
    // tsx-compiled sources report generated lines: name the file alone for ours
    const at = !url ? '' : file.startsWith('src/') ? file : `${file}:${lineNumber + 1}`;
    const key = `${fn}|${at}`;
    const entry = byFn.get(key) ?? { fn, at, area, hits: 0 };
    entry.hits += hits;
    byFn.set(key, entry);
    byArea.set(area, (byArea.get(area) ?? 0) + hits);
  }
  const pct = (hits: number) => Math.round((1000 * hits) / samples) / 10;
  // Inclusive time of our functions: each sample counts once per function on its stack.
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const inclusive = new Map<string, { fn: string; at: string; area: string; hits: number }>();
  const keyOf = (n: ProfileNode) => {
    const { functionName, url } = n.callFrame;
    const file = url.startsWith(root) ? url.slice(root.length) : '';
    return file.startsWith('src/') && functionName ? { fn: functionName, at: file, area: areaOf(url, functionName) } : undefined;
  };
  const walk = (id: number, onStack: Set<string>): number => {
    const node = byId.get(id)!;
    let total = node.hitCount ?? 0;
    const k = keyOf(node);
    const key = k && `${k.fn}|${k.at}`;
    const fresh = key !== undefined && !onStack.has(key);
    if (fresh) onStack.add(key);
    for (const child of node.children ?? []) total += walk(child, onStack);
    if (fresh) {
      onStack.delete(key);
      const entry = inclusive.get(key) ?? { ...k!, hits: 0 };
      entry.hits += total;
      inclusive.set(key, entry);
    }
    return total;
  };
  walk(profile.nodes[0]!.id, new Set());
  return {
    samples,
    ms: Math.round((profile.endTime - profile.startTime) / 1000),
    areas: [...byArea].sort((a, b) => b[1] - a[1]).map(([area, hits]) => ({ area, pct: pct(hits) })),
    top: [...byFn.values()]
      .sort((a, b) => b.hits - a.hits)
      .slice(0, topN)
      .map((e) => ({ fn: e.fn, at: e.at, area: e.area, pct: pct(e.hits) })),
    inclusive: [...inclusive.values()]
      .sort((a, b) => b.hits - a.hits)
      .slice(0, Math.max(25, topN))
      .map((e) => ({ fn: e.fn, at: e.at, area: e.area, pct: pct(e.hits) })),
  };
}
