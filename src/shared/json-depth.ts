/** CONTRACT §9: how deep a request body may nest (objects and arrays, the body itself is level 1). */
export const MAX_JSON_DEPTH = 64;

/** A state document (CONTRACT §13): orders' metadata has 64 levels of its own, a few levels down. */
export const STATE_DEPTH = MAX_JSON_DEPTH + 8;

/**
 * The top-level field under which `value` nests deeper than `max` levels (`'body'` when the
 * body itself is an array too deep), or undefined when it is within the limit; of several, the
 * last. Every body of every request is checked, so the walk allocates nothing per node; it
 * stops one level past `max`, so a body nested 100,000 levels deep costs 65 frames at most.
 * @example tooDeepField({ metadata: { a: { a: 1 } } }, 2) // 'metadata'
 */
export function tooDeepField(value: unknown, max = MAX_JSON_DEPTH): string | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  if (Array.isArray(value)) return nestsBeyond(value, 1, max) ? 'body' : undefined;
  const keys = Object.keys(value);
  for (let i = keys.length - 1; i >= 0; i--) {
    if (nestsBeyond((value as Record<string, unknown>)[keys[i]!], 2, max)) return keys[i];
  }
  return undefined;
}

/** Whether `node`, at `depth`, is an object or array at a depth past `max` or holds one. */
function nestsBeyond(node: unknown, depth: number, max: number): boolean {
  if (typeof node !== 'object' || node === null) return false;
  if (depth > max) return true;
  if (Array.isArray(node)) {
    for (let i = 0; i < node.length; i++) if (nestsBeyond(node[i], depth + 1, max)) return true;
    return false;
  }
  for (const key in node) {
    if (Object.hasOwn(node, key) && nestsBeyond((node as Record<string, unknown>)[key], depth + 1, max)) return true;
  }
  return false;
}

/**
 * `tooDeepField` for a value whose shape a schema fixes but in some places (`paths`, each a list
 * of keys, `'*'` for every key or item): only there may it nest without bound, so only there is
 * it walked (a state's 200,000 orders, about 150 nodes each, are checked in a few dozen ms
 * instead of half a second). A value nested deep anywhere else fails its schema anyway (for a
 * `max` above the schema's own depth, as the state's 72 levels are above an order's 4).
 * @example tooDeepAlong({ a: { b: [[[1]]] } }, [['a', 'b']], 3) // 'a'
 */
export function tooDeepAlong(value: unknown, paths: ReadonlyArray<readonly string[]>, max: number): string | undefined {
  for (const path of paths) if (deepAlong(value, path, 0, 1, max)) return path[0];
  return undefined;
}

function deepAlong(node: unknown, path: readonly string[], at: number, depth: number, max: number): boolean {
  if (at === path.length) return nestsBeyond(node, depth, max);
  if (typeof node !== 'object' || node === null) return false;
  const key = path[at]!;
  if (key !== '*') return Object.hasOwn(node, key) && deepAlong((node as Record<string, unknown>)[key], path, at + 1, depth + 1, max);
  if (Array.isArray(node)) {
    for (let i = 0; i < node.length; i++) if (deepAlong(node[i], path, at + 1, depth + 1, max)) return true;
    return false;
  }
  for (const k in node) {
    if (Object.hasOwn(node, k) && deepAlong((node as Record<string, unknown>)[k], path, at + 1, depth + 1, max)) return true;
  }
  return false;
}
