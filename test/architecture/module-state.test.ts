import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * Store issue item 3: nothing belongs to the process that belongs to one sandbox. Module-level
 * state is for true constants: no top-level `let`/`var` anywhere in src/; a top-level
 * `Map`/`Set`/`WeakMap` is either typed read-only (`ReadonlySet`, `ReadonlyMap`: a constant) or
 * memoises a pure function of constant inputs whose value is the same for every sandbox of the
 * process (listed here, each with why).
 */
const SRC = join(import.meta.dirname, '../../src');

const MEMOS: Record<string, string> = {
  'shared/documented.ts DOCUMENTED': 'schema → its documented form; schemas are module constants',
  'shared/validation.ts compiled': 'schema → its compiled form (decision 022); a pure function of the schema',
  'orders/order.lifecycle.ts machineCache': 'a machine per (type, timings): machines are data, their effects run per sandbox',
  'orders/lifecycle-graph.ts graphs': 'the graph drawn from a machine definition; read-only',
  'http/api/openapi.ts BUILT': 'the OpenAPI document per fingerprint of what it was made from; callers get a copy',
  'http/api/openapi.ts ENVELOPES': 'schema → its envelope schema; a pure function of the schema',
  'reference/fixtures.loader.ts loaded': 'fixture files by path and stamp; the fixtures are deep-frozen',
  'webhooks/delivery.schemas.ts PAYLOADS': 'event → its body schema; a pure function of the event name',
  'http/api/openapi.ts SCHEMA_IDS': 'schema → a number naming it in a fingerprint; a pure function of the schema',
};

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return name.endsWith('.ts') && !name.endsWith('.test.ts') ? [path] : [];
  });
}

/** What is module-level and mutable in each (path under src/, text) pair, as `path name`. */
function moduleState(files: Array<[string, string]>): { lets: string[]; collections: string[] } {
  const lets: string[] = [];
  const collections: string[] = [];
  for (const [rel, text] of files) {
    for (const m of text.matchAll(/^(?:export\s+)?(?:let|var)\s+([A-Za-z_$][\w$]*)/gm)) lets.push(`${rel} ${m[1]}`);
    for (const m of text.matchAll(/^(?:export\s+)?const\s+([A-Za-z_$][\w$]*)\s*(:[^=]+)?=\s*new\s+(?:Map|Set|WeakMap|WeakSet)\b/gm)) {
      if (/^:\s*Readonly(?:Set|Map)</.test(m[2] ?? '')) continue;
      collections.push(`${rel} ${m[1]}`);
    }
  }
  return { lets, collections };
}

describe('module-level state', () => {
  const files = sources(SRC).map((path): [string, string] => [relative(SRC, path).split('\\').join('/'), readFileSync(path, 'utf8')]);

  it('has no top-level let or var in src/', () => {
    expect(moduleState(files).lets).toEqual([]);
  });

  it('has top-level collections only for the listed memos of constants', () => {
    const unlisted = moduleState(files).collections.filter((entry) => !(entry in MEMOS));
    expect(unlisted).toEqual([]);
  });

  it('lists no memo that is gone (the list stays true)', () => {
    const found = new Set(moduleState(files).collections);
    expect(Object.keys(MEMOS).filter((entry) => !found.has(entry))).toEqual([]);
  });

  it('would catch a planted top-level let, or an unlisted cache', () => {
    const planted = moduleState([
      ['clock/x.ts', 'let last = 0;\nexport function f() { return last++; }'],
      ['auth/y.ts', "const cache = new Map<string, number>();\nconst KINDS: ReadonlySet<string> = new Set(['a']);"],
      ['auth/z.ts', 'function g() {\n  let local = 1;\n  const m = new Map();\n  return local + m.size;\n}'],
    ]);
    expect(planted.lets).toEqual(['clock/x.ts last']);
    expect(planted.collections).toEqual(['auth/y.ts cache']);
  });
});
