import { cpSync, readFileSync } from 'node:fs';
import { defineConfig, type Options } from 'tsup';
import type { Plugin } from 'esbuild';

/**
 * `npm run build` (run by `npm pack` / `npm publish` through prepack): dist/ for the tarball,
 * in two builds. Bundled because the sources use extensionless imports (STYLE: moduleResolution
 * Bundler), which Node's ESM loader cannot follow in plain tsc output; esbuild is what tsx runs
 * anyway. Every dependency stays declared in package.json (the sources run through tsx import
 * them as they are).
 */
const common: Options = {
  format: 'esm',
  platform: 'node',
  target: 'node20',
  splitting: true,
  // Keep `node:fs` as written: Node 20 has every builtin under node:, and tsup's default strips it.
  removeNodeProtocol: false,
};

/**
 * The library (`import { startSandbox } from 'ramp-sandbox'`): dependencies stay external, so a
 * user's project shares its koa, zod and xstate with ours; but faker: its package entry imports
 * every one of its ~70 locales where the sandbox uses four, and bundled esbuild keeps only those
 * (faker declares itself free of side effects; decision 011).
 */
export const library: Options = {
  ...common,
  entry: { index: 'src/index.ts' },
  outDir: 'dist',
  noExternal: ['@faker-js/faker'],
  // One rolled-up index.d.ts: it resolves under every moduleResolution a user's project may use.
  dts: { entry: { index: 'src/index.ts' } },
  // The dashboard's browser modules are served as files, not bundled into the server code.
  onSuccess: async () => {
    // Not types.ts: it holds the UI's JSDoc types (type-checking only, never served).
    cpSync('src/dashboard/ui', 'dist/dashboard/ui', { recursive: true, filter: (path) => !path.endsWith('.ts') });
  },
};

/**
 * `ramp-sandbox/testcontainers` (CONTRACT §20): a build of its own, so only who imports it loads
 * testcontainers (an optional peer dependency, external as every peer is), and its declarations
 * are one rolled-up file too (in the library's build, the two entries would share a chunk of them).
 */
export const testcontainers: Options = {
  ...common,
  entry: { testcontainers: 'src/client/testcontainers.ts' },
  outDir: 'dist',
  dts: { entry: { testcontainers: 'src/client/testcontainers.ts' } },
};

/**
 * The `ramp-sandbox` command: its dependencies bundled with it (decision 013), so a start reads
 * a few files instead of ~450 (module resolution, package.json reads, one compile per file) and
 * esbuild drops what the sandbox never imports (zod's locales, faker's). Kept external: pino
 * (its transports load files of its own by path in worker threads) and the MCP SDK (an optional
 * peer dependency, loaded only by `ramp-sandbox mcp`). The CommonJS dependencies bundled into
 * ESM call `require` for node builtins, so each chunk gets one from `createRequire`.
 */
export const cli: Options = {
  ...common,
  entry: { bin: 'src/cli/bin.ts' },
  outDir: 'dist/cli',
  noExternal: [/^(?!pino(\/|$)|@modelcontextprotocol\/|iconv-lite(\/|$)|mime-db(\/|$))/],
  banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
  esbuildPlugins: [oneCopyPerVersion()],
};

/**
 * npm installs one version of a package once per place it cannot share: koa's mime-types 3 takes
 * the top of node_modules, so co-body's, koa-bodyparser's and accepts' mime-types 2.1.35 (and
 * their mime-db, whose 200 KB table each copy indexes at load) are three copies. Bundled, each
 * would load on start; here a package's file is resolved to the first copy of the same name and
 * version met, as `npm dedupe` would lay them out if it could.
 */
function oneCopyPerVersion(): Plugin {
  return {
    name: 'one-copy-per-version',
    setup(build) {
      const first = new Map<string, string>();
      build.onResolve({ filter: /^[^./]/ }, async (args) => {
        if (args.pluginData === 'resolving' || args.path.startsWith('node:')) return undefined;
        const found = await build.resolve(args.path, {
          kind: args.kind,
          importer: args.importer,
          resolveDir: args.resolveDir,
          pluginData: 'resolving',
        });
        const at = found.path.lastIndexOf('/node_modules/');
        if (found.errors.length > 0 || found.external || at < 0) return undefined;
        const rest = found.path.slice(at + '/node_modules/'.length).split('/');
        const name = rest[0]!.startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0]!;
        const root = found.path.slice(0, at + '/node_modules/'.length + name.length);
        const { version } = JSON.parse(readFileSync(`${root}/package.json`, 'utf8')) as { version: string };
        const key = `${name}@${version}${found.path.slice(root.length)}`;
        if (!first.has(key)) first.set(key, found.path);
        return { path: first.get(key)!, sideEffects: found.sideEffects };
      });
    },
  };
}

// dist/ is emptied by the build script first: the builds writing into it must not clean it.
// The container image (Dockerfile) runs only the command and the dashboard's files: with
// RAMP_SANDBOX_BUILD=image, no declarations and no testcontainers entry (the declarations' type
// checks took most of the image's build time, for files the image never holds).
export default defineConfig(
  process.env.RAMP_SANDBOX_BUILD === 'image' ? [{ ...library, dts: false }, cli] : [library, testcontainers, cli],
);
