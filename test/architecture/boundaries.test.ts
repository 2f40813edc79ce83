import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * STYLE "Layout": dependencies point inward, so the core stays pure. Domain folders never
 * import a transport (koa, @koa/router, node:http(s)) or `process`, and only clock/ reads time
 * or sets host timers; everything else gets time from the injected Clock.
 */
const SRC = join(import.meta.dirname, '../../src');
const DOMAIN = ['shared', 'clock', 'reference', 'orders', 'auth'];
const TRANSPORT = /^\s*import\b[^;]*\bfrom\s+['"](?:koa|@koa\/router|(?:node:)?https?|(?:node:)?process)['"]/m;
const PROCESS = /\bprocess\.(?:env|argv|exit|on|once|stdout|stderr|hrtime)\b/;
const TIME = /\bDate\.now\(\)|\bnew Date\(\s*\)|\bperformance\.now\(\)|\bset(?:Timeout|Interval|Immediate)\(/;

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return name.endsWith('.ts') && !name.endsWith('.test.ts') ? [path] : [];
  });
}

/** Lines of code without comments (a comment may mention Date.now()). */
const code = (text: string) => text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:])\/\/.*$/gm, '$1');

/** What is wrong with each (path under src/, text) pair; empty when nothing is. */
function violations(files: Array<[string, string]>): string[] {
  const found: string[] = [];
  for (const [rel, raw] of files) {
    const folder = rel.split(/[\\/]/)[0]!;
    if (!DOMAIN.includes(folder)) continue;
    const text = code(raw);
    if (TRANSPORT.test(text)) found.push(`${rel}: imports a transport (koa, @koa/router, node:http(s)) or process`);
    if (PROCESS.test(text)) found.push(`${rel}: reads process`);
    if (folder !== 'clock' && TIME.test(text)) found.push(`${rel}: reads time or sets a host timer outside clock/`);
  }
  return found;
}

describe('module boundaries (STYLE: domain folders are pure)', () => {
  it('has no domain file that imports a transport or process, or reads time outside clock/', () => {
    const files = sources(SRC).map((f): [string, string] => [relative(SRC, f), readFileSync(f, 'utf8')]);
    expect(files.length).toBeGreaterThan(30);
    expect(violations(files)).toEqual([]);
  });

  it('catches each kind of violation, and only in domain folders (the check is not a no-op)', () => {
    expect(
      violations([
        ['orders/a.ts', "import Koa from 'koa';"],
        ['orders/b.ts', "import { request } from 'node:http';"],
        ['auth/c.ts', "import Router from '@koa/router';"],
        ['shared/d.ts', 'const port = process.env.PORT;'],
        ['reference/e.ts', 'const now = Date.now();'],
        ['orders/f.ts', 'setTimeout(() => {}, 10);'],
        ['orders/g.ts', 'const d = new Date();'],
      ]),
    ).toHaveLength(7);
    expect(
      violations([
        ['clock/x.ts', 'const now = Date.now();'],
        ['http/y.ts', "import Koa from 'koa';"],
        ['orders/z.ts', '// Date.now() is not used here\nconst d = new Date(ms);'],
      ]),
    ).toEqual([]);
  });
});

/**
 * Issue 9: the scenario runner is a client of the HTTP API. Nothing under scenario-runner/ may
 * import sandbox/sandbox.ts, directly or through another module (type-only imports are erased, so they
 * do not count); whoever runs scenarios hands it a sandbox URL or a starter.
 */
const VALUE_IMPORT =
  /^\s*(?:import|export)\s+(?!type\b)(?:[^'";]*?\bfrom\s+)?['"](\.{1,2}\/[^'"]+)['"]|\bimport\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/gm;

/** The files (paths under src/) that `from` reaches through value imports. */
function reachable(files: Map<string, string>, from: string[]): Set<string> {
  const seen = new Set<string>();
  const queue = [...from];
  while (queue.length > 0) {
    const rel = queue.pop()!;
    if (seen.has(rel)) continue;
    seen.add(rel);
    for (const m of code(files.get(rel) ?? '').matchAll(VALUE_IMPORT)) {
      const base = join(dirname(rel), m[1] ?? m[2]!).replace(/\.(?:ts|js)$/, '');
      const target = [`${base}.ts`, join(base, 'index.ts')].find((c) => files.has(c));
      if (target) queue.push(target);
    }
  }
  return seen;
}

/** The chains by which scenario-runner/ files reach sandbox/sandbox.ts; empty when none does. */
function runnerImportsMain(files: Map<string, string>): string[] {
  const runner = [...files.keys()].filter((f) => f.startsWith('scenario-runner/'));
  return runner.filter((f) => reachable(files, [f]).has('sandbox/sandbox.ts'));
}

describe('the scenario runner is an HTTP client (issue 9)', () => {
  it('has no file under scenario-runner/ that imports the composition root (sandbox/sandbox.ts), directly or indirectly', () => {
    const files = new Map(sources(SRC).map((f): [string, string] => [relative(SRC, f).split('\\').join('/'), readFileSync(f, 'utf8')]));
    expect([...files.keys()].filter((f) => f.startsWith('scenario-runner/')).length).toBeGreaterThan(10);
    expect(runnerImportsMain(files)).toEqual([]);
  });

  it('catches a direct import, one through another module, and a dynamic one, but not a type-only import', () => {
    const main = ['sandbox/sandbox.ts', 'export const startSandbox = 1;'];
    expect(
      runnerImportsMain(
        new Map([main as [string, string], ['scenario-runner/a.ts', "import { startSandbox } from '../sandbox/sandbox';"]]),
      ),
    ).toEqual(['scenario-runner/a.ts']);
    expect(
      runnerImportsMain(
        new Map([
          main as [string, string],
          ['index.ts', "export { startSandbox } from './sandbox/sandbox';"],
          ['scenario-runner/steps/b.ts', "import { startSandbox } from '../../index';"],
        ]),
      ),
    ).toEqual(['scenario-runner/steps/b.ts']);
    expect(
      runnerImportsMain(new Map([main as [string, string], ['scenario-runner/c.ts', "const m = await import('../sandbox/sandbox');"]])),
    ).toEqual(['scenario-runner/c.ts']);
    expect(
      runnerImportsMain(
        new Map([main as [string, string], ['scenario-runner/d.ts', "import type { Sandbox } from '../sandbox/sandbox';"]]),
      ),
    ).toEqual([]);
  });
});

/**
 * Store issue item 5: @koa/router is used through its documented surface only (its verbs,
 * `routes()`, `ctx.params`, `ctx.matched` and a matched layer's `methods`), never its insides:
 * the router's `match()` (marked private) and `stack`, a layer's `stack`, `regexp`, `params()`
 * or `paramNames`, its underscored fields. Decision 001's index read them, so a release of the
 * router could change what the sandbox answers (page 001, superseded).
 */
const ROUTER_INSIDES = /\.(?:match\(|stack\b|regexp\b|paramNames\b|params\(|opts\b|_[A-Za-z]\w*)/g;
const USES_ROUTER = /^\s*import\b[^;]*\bfrom\s+['"]@koa\/router['"]/m;

/** The insides of @koa/router that each (path, text) pair reaches for, in files that import it. */
function routerInsides(files: Array<[string, string]>): string[] {
  return files
    .filter(([, raw]) => USES_ROUTER.test(raw))
    .flatMap(([rel, raw]) => [...code(raw).matchAll(ROUTER_INSIDES)].map((m) => `${rel}: ${m[0]}`));
}

describe('routing through public APIs only (store issue item 5)', () => {
  it('has no file that imports @koa/router and reaches into its insides', () => {
    const files = sources(SRC).map((f): [string, string] => [relative(SRC, f), readFileSync(f, 'utf8')]);
    expect(files.filter(([, raw]) => USES_ROUTER.test(raw)).length).toBeGreaterThan(0);
    expect(routerInsides(files)).toEqual([]);
  });

  it('catches each inside it names, and only in files that import the router (the check is not a no-op)', () => {
    const router = "import type Router from '@koa/router';\n";
    expect(
      routerInsides([
        ['http/a.ts', `${router}router.match(path, 'GET');`],
        ['http/b.ts', `${router}for (const layer of router.stack) run(layer.stack, layer.regexp);`],
        ['http/c.ts', `${router}const names = layer.paramNames; layer.params(path, captures); ctx._matchedRoute;`],
        [
          'http/d.ts',
          "import Router, { type RouterContext } from '@koa/router';\nfor (const layer of ctx.matched ?? []) allow(layer.methods); router.routes();",
        ],
        ['http/e.ts', 'faults.match(request); error.stack;'],
      ]),
    ).toEqual([
      'http/a.ts: .match(',
      'http/b.ts: .stack',
      'http/b.ts: .stack',
      'http/b.ts: .regexp',
      'http/c.ts: .paramNames',
      'http/c.ts: .params(',
      'http/c.ts: ._matchedRoute',
    ]);
  });
});
