import type Router from '@koa/router';
import type { Layer } from '@koa/router';
import type { Middleware } from 'koa';

/**
 * Dispatch through an index over @koa/router's own layers. The router tests every layer's
 * regexp on every request and composes the matched chain anew (a few µs of each signed GET).
 * The index groups the route layers by method and their first two path segments, so a request
 * tests only the few layers of its group, with the layers' own regexps and param parsing, and
 * runs the chain `Api.route` built once.
 *
 * The answer is the router's: the first layer (in registration order) that matches. Whatever
 * the index cannot answer exactly goes to the router as before: a path under a `router.use()`
 * prefix (/sandbox), a group it has no entry for (unknown paths, a prefix not in lower case,
 * 404 and 405), and a first match whose chain it does not hold (routes added to the router
 * directly, such as /openapi.json).
 */
export function indexedDispatch(router: Router, chains: ReadonlyMap<Layer, Middleware>): Middleware {
  const dispatch = router.routes() as unknown as Middleware;
  let index: Index | undefined;
  return (ctx, next) => {
    // Built at the first request: every route has been registered by then.
    index ??= buildIndex(router, chains);
    const path = ctx.path;
    for (const use of index.uses) if (use.regexp.test(path)) return dispatch(ctx, next);
    const group = index.groups.get(ctx.method)?.get(prefixOf(path));
    if (group) {
      for (const entry of group) {
        const match = entry.layer.regexp.exec(path);
        if (match === null) continue;
        if (!entry.chain) break;
        ctx.params = paramsOf(entry.layer, match);
        return entry.chain(ctx, next);
      }
    }
    return dispatch(ctx, next);
  };
}

interface Entry {
  layer: Layer;
  order: number;
  /** Undefined: a layer added to the router directly; the router dispatches it. */
  chain: Middleware | undefined;
}

interface Index {
  /** `router.use()` layers: a path one of them matches goes to the router. */
  uses: Layer[];
  /** Method → first two segments (lower case) → candidate layers in registration order. */
  groups: Map<string, Map<string, Entry[]>>;
}

function buildIndex(router: Router, chains: ReadonlyMap<Layer, Middleware>): Index {
  const uses: Layer[] = [];
  const keyed = new Map<string, Map<string, Entry[]>>();
  const anyPrefix = new Map<string, Entry[]>();
  router.stack.forEach((layer, order) => {
    if (layer.methods.length === 0) {
      uses.push(layer);
      return;
    }
    const entry: Entry = { layer, order, chain: chains.get(layer) };
    const prefix = typeof layer.path === 'string' ? prefixOf(layer.path) : '';
    // A param or pattern in the first two segments: the layer is a candidate in every group.
    const literal = prefix !== '' && !/[:*?(){}\\[\]+]/.test(prefix);
    for (const method of layer.methods) {
      if (literal) {
        const byPrefix = keyed.get(method) ?? new Map<string, Entry[]>();
        keyed.set(method, byPrefix);
        const list = byPrefix.get(prefix.toLowerCase()) ?? [];
        byPrefix.set(prefix.toLowerCase(), list);
        list.push(entry);
      } else {
        const list = anyPrefix.get(method) ?? [];
        anyPrefix.set(method, list);
        list.push(entry);
      }
    }
  });
  for (const [method, byPrefix] of keyed) {
    const extra = anyPrefix.get(method) ?? [];
    for (const [prefix, list] of byPrefix) byPrefix.set(prefix, [...list, ...extra].sort((a, b) => a.order - b.order));
  }
  return { uses, groups: keyed };
}

/** The layer's params from its regexp's match, as `Layer#params` makes them (decoded, empty ones left out). */
function paramsOf(layer: Layer, match: RegExpExecArray): Record<string, string> {
  const params: Record<string, string> = {};
  for (let i = 1; i < match.length; i++) {
    const name = layer.paramNames[i - 1]?.name;
    const value = match[i];
    if (name !== undefined && value) params[name] = value.includes('%') ? safeDecode(value) : value;
  }
  return params;
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** The path up to its third `/`: `/v1/orders/ORD1` → `/v1/orders`; `/v1/networks/` → `/v1/networks`. */
function prefixOf(path: string): string {
  const second = path.indexOf('/', 1);
  if (second < 0) return path;
  const third = path.indexOf('/', second + 1);
  return third < 0 ? path : path.slice(0, third);
}
