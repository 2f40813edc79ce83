import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Where the package's own files are: `fixtures/`, `scenarios/` and `package.json`.
 *
 * The code runs from `src/<folder>/x.ts` under tsx and from `dist/x.js` or `dist/cli/x.js`
 * (esbuild chunks) in an installed tarball, so no fixed `../..` fits both: walk up from this
 * module to the nearest `package.json` named ramp-sandbox. Never the current directory: a user
 * running `npx ramp-sandbox` from their own project gets the shipped fixtures, not theirs.
 * A leaf module (node builtins only, no `process`), so domain folders may import it.
 */
export const PACKAGE_ROOT: string = findPackageRoot(dirname(fileURLToPath(import.meta.url)));

/** The package's version, from its package.json. */
export const PACKAGE_VERSION: string = readPackageJson(PACKAGE_ROOT).version;

/** `packagePath('fixtures')`: an absolute path inside the package root. */
export function packagePath(...parts: string[]): string {
  return join(PACKAGE_ROOT, ...parts);
}

/** The nearest directory at or above `from` whose package.json is ramp-sandbox's. */
export function findPackageRoot(from: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    const file = join(dir, 'package.json');
    if (existsSync(file) && readPackageJson(dir).name === 'ramp-sandbox') return dir;
    if (dirname(dir) === dir) throw new Error(`ramp-sandbox: no package.json named ramp-sandbox at or above ${from}`);
  }
}

function readPackageJson(dir: string): { name?: string; version: string } {
  return JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: string; version: string };
}
