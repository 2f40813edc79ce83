import type Router from '@koa/router';
import type { Layer } from '@koa/router';
import type { Middleware, Next } from 'koa';

/**
 * @koa/router's dispatch, found faster (docs/decisions/001-route-index.md). The router tests
 * every layer's regexp on every request and composes the matched layers' middleware anew
 * with koa-compose; on a signed GET that is a few µs of the request. This index groups the
 * router's own layers by method and first two path segments, so a request tests only the few
 * layers of its group, with the layers' own regexps, and runs their own middleware (`layer.stack`)
 * in a row: nothing is registered twice, the router stays the one route table.
 *
 * The answer is the router's: the layers matching the path and method run in registration order,
 * each with its params (decoded, merged over the previous layer's), and `next` of the last one is
 * the downstream `next`. Whatever the index cannot answer exactly goes to the router itself: a
 * path under a `router.use()` prefix (/sandbox), a group it has no entry for (unknown paths, a
 * prefix not in lower case) and a path no layer of its group matches (404 and 405).
 * `route-index.test.ts` checks it answers as the router on generated requests.
 */
export function indexedDispatch(router: Router): Middleware {
  const dispatch = router.routes() as unknown as Middleware;
  let index: Index | undefined;
  return (ctx, next) => {
    // Built at the first request: every route has been registered by then.
    index ??= buildIndex(router);
    const path = ctx.path;
    for (const use of index.uses) if (use.regexp.test(path)) return dispatch(ctx, next);
    const group = index.groups.get(ctx.method)?.get(prefixOf(path));
    if (group !== undefined) {
      for (let i = 0; i < group.length; i++) {
        const match = group[i]!.regexp.exec(path);
        if (match !== null) return runLayer(ctx, path, group, i, match, next);
      }
    }
    return dispatch(ctx, next);
  };
}

interface Index {
  /** `router.use()` layers: a path one of them matches goes to the router. */
  uses: Layer[];
  /** Method → first two segments (lower case) → candidate layers in registration order. */
  groups: Map<string, Map<string, Layer[]>>;
}

type Ctx = Parameters<Middleware>[0];

/** Runs `group[i]` (its path matched as `match`), then the next matching layers of the group, then `next`. */
function runLayer(ctx: Ctx, path: string, group: readonly Layer[], i: number, match: RegExpExecArray, next: Next): unknown {
  const layer = group[i]!;
  ctx.params = paramsOf(layer, match, ctx.params as Record<string, string> | undefined);
  // Unnamed, passed straight on: tsx compiles with esbuild's keepNames, which gives a named
  // closure a defineProperty call every time one is made (here: every request).
  return runStack(ctx, layer.stack as Middleware[], 0, (): Promise<void> => {
    for (let j = i + 1; j < group.length; j++) {
      const further = group[j]!.regexp.exec(path);
      if (further !== null) return runLayer(ctx, path, group, j, further, next) as Promise<void>;
    }
    return next();
  });
}

/** `stack[at]`, whose `next` is the rest of the stack, then `after`. */
function runStack(ctx: Ctx, stack: readonly Middleware[], at: number, after: Next): unknown {
  const mw = stack[at];
  if (mw === undefined) return after();
  return mw(ctx, at + 1 < stack.length ? () => runStack(ctx, stack, at + 1, after) as Promise<void> : after);
}

function buildIndex(router: Router): Index {
  const uses: Layer[] = [];
  const keyed = new Map<string, Map<string, Array<{ layer: Layer; order: number }>>>();
  const anyPrefix = new Map<string, Array<{ layer: Layer; order: number }>>();
  router.stack.forEach((layer, order) => {
    if (layer.methods.length === 0) {
      uses.push(layer);
      return;
    }
    const entry = { layer, order };
    const prefix = typeof layer.path === 'string' ? prefixOf(layer.path) : '';
    // A param or pattern in the first two segments: the layer is a candidate in every group.
    const literal = prefix !== '' && !/[:*?(){}\\[\]+]/.test(prefix);
    for (const method of layer.methods) {
      if (literal) {
        const byPrefix = keyed.get(method) ?? new Map<string, Array<{ layer: Layer; order: number }>>();
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
  const groups = new Map<string, Map<string, Layer[]>>();
  for (const [method, byPrefix] of keyed) {
    const extra = anyPrefix.get(method) ?? [];
    const lists = new Map<string, Layer[]>();
    for (const [prefix, list] of byPrefix) lists.set(prefix, [...list, ...extra].sort((a, b) => a.order - b.order).map((e) => e.layer));
    groups.set(method, lists);
  }
  return { uses, groups };
}

/** The layer's params from its regexp's match over `existing`, as `Layer#params` makes them (decoded, empty ones left out). */
function paramsOf(layer: Layer, match: RegExpExecArray, existing: Record<string, string> | undefined): Record<string, string> {
  const params: Record<string, string> = existing === undefined ? {} : { ...existing };
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
