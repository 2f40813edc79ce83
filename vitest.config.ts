import { fileURLToPath } from 'node:url';
import { configDefaults, defineConfig } from 'vitest/config';

/**
 * Test levels, one vitest project each (`npm run test:<level>` runs one; `npm test` typechecks,
 * then runs them all in one `vitest run`):
 *   unit     src/**: the code beside its tests, no server; and test/architecture (reads src/).
 *   http     the real app in process on an ephemeral port: test/http, test/scenarios,
 *            test/inprocess.test.ts, and examples/**, which use the package as a partner does.
 *   cli      test/cli but the package test: the entry points as child processes (tsx).
 *   browser  test/browser: the dashboard in Chromium (test/support/browser.ts finds one, or
 *            unpacks the one npm installed).
 *   package  test/cli/package.test.ts: `npm pack`, install the tarball, run it with plain Node.
 *   container  test/container: the image built from the working tree, run by docker or podman
 *            (CONTRACT §20). Not part of `npm test`, which needs only Node: it needs a container
 *            engine, or root and apt to install one (test/container/setup-engine.sh); `.ci/run`
 *            runs it after `npm test` (`npm run test:container`).
 * Each project extends this root config (the alias and the timeouts below).
 */
const PACKAGE_TEST = 'test/cli/package.test.ts';

export default defineConfig({
  // examples/ import the package by name, as a partner's project does: here it is src/ (tsconfig
  // maps it the same way for tsc).
  // Exact names: 'ramp-sandbox' as a prefix would rewrite 'ramp-sandbox/testcontainers' too.
  resolve: {
    alias: [
      { find: /^ramp-sandbox$/, replacement: fileURLToPath(new URL('./src/index.ts', import.meta.url)) },
      { find: /^ramp-sandbox\/testcontainers$/, replacement: fileURLToPath(new URL('./src/client/testcontainers.ts', import.meta.url)) },
    ],
  },
  test: {
    environment: 'node',
    testTimeout: 20_000,
    hookTimeout: 20_000,
    projects: [
      { extends: true, test: { name: 'unit', include: ['src/**/*.test.ts', 'test/architecture/**/*.test.ts'] } },
      {
        extends: true,
        test: {
          name: 'http',
          include: ['test/http/**/*.test.ts', 'test/scenarios/**/*.test.ts', 'test/inprocess.test.ts', 'examples/**/*.test.ts'],
        },
      },
      { extends: true, test: { name: 'cli', include: ['test/cli/**/*.test.ts'], exclude: [...configDefaults.exclude, PACKAGE_TEST] } },
      { extends: true, test: { name: 'browser', include: ['test/browser/**/*.test.ts'] } },
      { extends: true, test: { name: 'package', include: [PACKAGE_TEST] } },
      // One image build serves every file: they run one after another (the build is the slow part).
      {
        extends: true,
        test: {
          name: 'container',
          include: ['test/container/**/*.test.ts'],
          globalSetup: ['test/container/global-setup.ts'],
          fileParallelism: false,
          testTimeout: 120_000,
          hookTimeout: 600_000,
        },
      },
    ],
  },
});
