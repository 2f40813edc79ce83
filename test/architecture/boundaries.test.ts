import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * STYLE "Layout": dependencies point inward, so the core stays pure. Domain folders never
 * import a transport (koa, @koa/router, node:http(s)) or `process`, and only clock/ reads time
 * or sets host timers; everything else gets time from the injected Clock.
 */
const SRC = join(import.meta.dirname, '../../src');
const DOMAIN = ['shared', 'clock', 'reference', 'pricing', 'orders', 'auth'];
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
        ['pricing/b.ts', "import { request } from 'node:http';"],
        ['auth/c.ts', "import Router from '@koa/router';"],
        ['shared/d.ts', 'const port = process.env.PORT;'],
        ['reference/e.ts', 'const now = Date.now();'],
        ['orders/f.ts', 'setTimeout(() => {}, 10);'],
        ['orders/g.ts', 'const d = new Date();'],
      ]),
    ).toHaveLength(7);
    expect(violations([['clock/x.ts', 'const now = Date.now();'], ['http/y.ts', "import Koa from 'koa';"], ['orders/z.ts', '// Date.now() is not used here\nconst d = new Date(ms);']])).toEqual([]);
  });
});
