import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'test/**/*.test.tsx'],
    pool: 'forks',
    // Runs every file with a temp and a home folder of its own, and fails the run if either is
    // not empty at the end (test/leftovers.global.ts).
    globalSetup: ['test/leftovers.global.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
