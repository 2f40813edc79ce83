import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  // examples/ import the package by name, as a partner's project does: here it is src/ (tsconfig
  // maps it the same way for tsc).
  resolve: { alias: { 'ramp-sandbox': fileURLToPath(new URL('./src/index.ts', import.meta.url)) } },
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts', 'examples/**/*.test.ts'],
    environment: 'node',
    testTimeout: 20_000,
    hookTimeout: 20_000,
  },
});
