import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['engine/**/*.test.ts', 'api/**/*.test.ts', 'operator/**/*.test.ts', 'cli/**/*.test.ts', 'test/**/*.test.ts', 'loadtest/**/*.test.ts'],
    testTimeout: 30_000,
    // PGlite's first start (initdb) takes several seconds on a 2-core machine.
    hookTimeout: 60_000,
    pool: 'forks',
  },
});
