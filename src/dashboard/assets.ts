import { packagePath } from '../shared/package-root';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/** Where the dashboard's assets are served from (CONTRACT §15: every asset local, no CDN). */
export const ASSET_PREFIX = '/sandbox/dashboard/assets';

/**
 * The browser builds of the UI libraries, served from node_modules as they are installed:
 * the page's import map points the bare names (`preact`, `preact/hooks`, `htm`) here.
 */
const VENDOR: Record<string, { specifier: string; sibling?: string; imports: string }> = {
  'preact.js': { specifier: 'preact', imports: 'preact' },
  'preact-hooks.js': { specifier: 'preact/hooks', imports: 'preact/hooks' },
  // htm exports its CommonJS build to require(); its ES module build sits beside it.
  'htm.js': { specifier: 'htm', sibling: 'htm.module.js', imports: 'htm' },
};

const TYPES: Record<string, string> = {
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
  svg: 'image/svg+xml; charset=utf-8',
  // The README, linked from the page's "Get started": shown as text, never downloaded.
  md: 'text/plain; charset=utf-8',
};

/** The media types of the assets, for the OpenAPI document. */
export const ASSET_MEDIA = ['text/javascript', 'text/css', 'image/svg+xml', 'text/plain'] as const;

/** An asset's name: the UI's files (`app.js`, `style.css`, `favicon.svg`) and the package's README. */
export const ASSET_NAME = /^(?:[\w-]+\.(?:js|css|svg)|README\.md)$/;

export interface Asset {
  type: string;
  body: string;
  /** A strong validator of the body (`"<sha1 base64url>"`), for If-None-Match. */
  etag: string;
}

/**
 * Where to look for the UI's own modules, first choice first. They live in `ui/` beside this
 * file; the build copies them to dist/dashboard/ui (tsup.config.ts). The sandbox serves the UI
 * of the code it runs: run from the source tree (tsx, `npm start`, the tests), src/ first, even
 * when a dist/ built earlier sits beside it; run compiled, dist/ first.
 */
export function uiDirCandidates(moduleUrl: string): string[] {
  const source = packagePath('src/dashboard/ui');
  const compiled = packagePath('dist/dashboard/ui');
  return /\.[cm]?ts$/.test(new URL(moduleUrl).pathname) ? [source, compiled] : [compiled, source];
}

function uiDir(): string {
  const candidates = uiDirCandidates(import.meta.url);
  return candidates.find((dir) => existsSync(join(dir, 'app.js'))) ?? candidates[0]!;
}

/** Resolves asset names to files once, reads each on first use and keeps it. */
export function createAssetStore() {
  const files = new Map<string, string>();
  const cache = new Map<string, Asset>();
  let resolved = false;

  function resolveAll() {
    if (resolved) return;
    const require = createRequire(import.meta.url);
    for (const [name, { specifier, sibling }] of Object.entries(VENDOR)) {
      const main = require.resolve(specifier);
      files.set(name, sibling ? join(dirname(main), sibling) : main);
    }
    const dir = uiDir();
    if (existsSync(dir)) {
      for (const name of readdirSync(dir)) if (name !== 'README.md' && ASSET_NAME.test(name)) files.set(name, join(dir, name));
    }
    const readme = packagePath('README.md');
    if (existsSync(readme)) files.set('README.md', readme);
    resolved = true;
  }

  return {
    /** The import map of the page: bare module names to asset URLs. */
    importMap(): Record<string, string> {
      return Object.fromEntries(Object.entries(VENDOR).map(([name, v]) => [v.imports, `${ASSET_PREFIX}/${name}`]));
    },
    /** One asset by name, or undefined when there is no such asset. */
    async get(name: string): Promise<Asset | undefined> {
      const hit = cache.get(name);
      if (hit) return hit;
      resolveAll();
      const path = files.get(name);
      if (!path) return undefined;
      const ext = name.slice(name.lastIndexOf('.') + 1);
      // Source maps are not served: drop the comment that would make the browser ask for one.
      const body = (await readFile(path, 'utf8')).replace(/\n\/\/# sourceMappingURL=\S+\s*$/, '\n');
      const etag = `"${createHash('sha1').update(body).digest('base64url')}"`;
      const asset = { type: TYPES[ext] ?? 'application/octet-stream', body, etag };
      cache.set(name, asset);
      return asset;
    },
  };
}
export type AssetStore = ReturnType<typeof createAssetStore>;
