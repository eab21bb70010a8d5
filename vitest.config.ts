import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    reporters: ['default', './test/reporters/summary.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // The end-to-end files mostly wait on child processes and the simulator's clock: run three at once.
    maxWorkers: 3,
  },
});
