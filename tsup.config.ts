import { cpSync } from 'node:fs';
import { defineConfig } from 'tsup';

/**
 * `npm run build` (run by `npm pack` / `npm publish` through prepack): dist/ for the tarball.
 * Bundled because the sources use extensionless imports (STYLE: moduleResolution Bundler),
 * which Node's ESM loader cannot follow in plain tsc output; esbuild is what tsx runs anyway.
 * Dependencies stay external (tsup's default), so dist/ holds only our code, but for faker:
 * its package entry imports every one of its ~70 locales, about a third of the compiled CLI's
 * start (issue 21: start to first answered request), where the sandbox uses four; bundled,
 * esbuild keeps only those (faker declares itself free of side effects). The dependency stays
 * declared (the sources run through tsx import it as it is).
 */
export default defineConfig({
  entry: { index: 'src/index.ts', 'cli/bin': 'src/cli/bin.ts' },
  format: 'esm',
  platform: 'node',
  target: 'node20',
  outDir: 'dist',
  clean: true,
  splitting: true,
  noExternal: ['@faker-js/faker'],
  // Keep `node:fs` as written: Node 20 has every builtin under node:, and tsup's default strips it.
  removeNodeProtocol: false,
  // One rolled-up index.d.ts: it resolves under every moduleResolution a user's project may use.
  dts: { entry: { index: 'src/index.ts' } },
  // The dashboard's browser modules are served as files, not bundled into the server code.
  onSuccess: async () => {
    // Not types.ts: it holds the UI's JSDoc types (type-checking only, never served).
    cpSync('src/dashboard/ui', 'dist/dashboard/ui', { recursive: true, filter: (path) => !path.endsWith('.ts') });
  },
});
