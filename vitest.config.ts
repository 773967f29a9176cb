// Three test projects, run together by `npm test`:
// - unit: the pure engine layers (runtime, model, FEEL, DMN, timers, limits).
//   No service, no database, no network: seconds, and a good first run for
//   anyone changing the engine core (`npm run test:unit`).
// - integration: everything that opens a store, queues or a server, against
//   PGlite and the in-process queues, or real Postgres and Redis when
//   DATABASE_URL and REDIS_URL are set (`npm run test:integration`).
// - harness: the load-test and fuzz harnesses checking themselves on small
//   runs (`npm run test:harness`).
import { configDefaults, defineConfig } from 'vitest/config';

const UNIT = ['engine/runtime', 'engine/model', 'engine/feel', 'engine/dmn', 'engine/timer', 'engine/cmmn']
  .map((dir) => `${dir}/**/*.test.ts`)
  .concat('engine/*.test.ts');

export default defineConfig({
  test: {
    testTimeout: 30_000,
    // PGlite's first start (initdb) takes several seconds on a 2-core machine.
    hookTimeout: 60_000,
    pool: 'forks',
    projects: [
      { extends: true, test: { name: 'unit', include: UNIT } },
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['engine/**/*.test.ts', 'api/**/*.test.ts', 'operator/**/*.test.ts', 'cli/**/*.test.ts', 'test/**/*.test.ts'],
          exclude: [...configDefaults.exclude, ...UNIT],
        },
      },
      { extends: true, test: { name: 'harness', include: ['loadtest/**/*.test.ts'] } },
    ],
  },
});
