import { defineConfig } from 'vitest/config';

export default defineConfig({
  // Node loads graphql's CommonJS build for Pothos and Yoga; the tests must use that same instance, not the .mjs one.
  resolve: { alias: [{ find: /^graphql$/, replacement: 'graphql/index.js' }] },
  test: {
    globalSetup: ['test/support/globalSetup.ts'],
    testTimeout: 60_000,
    hookTimeout: 180_000,
    pool: 'forks',
    reporters: ['default'],
    projects: [
      // Two cores: two test files at a time, each with its own database.
      { extends: true, test: { name: 'suite', include: ['test/**/*.test.ts'], exclude: ['test/**/*.load.test.ts'], maxWorkers: 2, sequence: { groupOrder: 0 } } },
      // Files that measure latency under load run one at a time once the rest is done: a test file beside them would
      // take the CPU their figures are about.
      { extends: true, test: { name: 'load', include: ['test/**/*.load.test.ts'], maxWorkers: 1, sequence: { groupOrder: 1 } } },
    ],
  },
});
