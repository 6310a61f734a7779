import { defineConfig } from 'vitest/config';

/**
 * One suite, two backends (issue 4): every test file runs on SQLite with in-memory rate-limit
 * counters, and again on PostgreSQL with counters in Redis when TEST_DATABASE_URL and
 * TEST_REDIS_URL name a server of each (test/helpers/test-backend.ts gives every app its own
 * schema and key prefix). Without them the second run is skipped, and says so.
 */
const postgres = process.env.TEST_DATABASE_URL && process.env.TEST_REDIS_URL;
if (!postgres) {
  console.warn(
    '\n[scoreboard] PostgreSQL + Redis suite skipped: set TEST_DATABASE_URL (e.g. postgres://postgres@127.0.0.1:5432/test) ' +
      'and TEST_REDIS_URL (e.g. redis://127.0.0.1:6379) to run it too. Running the SQLite suite only.\n',
  );
}

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    setupFiles: ['test/helpers/drop-idle-schemas.ts'],
    // Each test file builds its own app on its own store, so files run in parallel safely. Vitest's
    // default (one worker fewer than the cores) is a single worker on a 2-core machine, and the files
    // mostly wait on PostgreSQL, Redis, sockets and timers: three at once keep both cores busy.
    maxWorkers: 3,
    // A worker runs its files one after another in one module graph, instead of a new process per
    // file: importing Fastify, Kysely and the app again for each of ~200 files cost about a third of
    // the run. The files share no state but what they build themselves (buildTestApp), and the
    // helpers' per-process caches are keyed so that sharing them is exact.
    isolate: false,
    // A timeout tells a hung test from a slow one, nothing more: no test asserts the machine's speed.
    // On a 2-core laptop busy with other work, a test that takes 10 s on a quiet machine has taken
    // 130 s beside the heaviest files, so the bound is generous. Waits inside a test have their own,
    // shorter hang bound (test/helpers/eventually.ts), so that a hang names what never came.
    testTimeout: 300_000,
    // CI runs the suite on a 2-core machine, twice per Node version, with the heavy files (9 MiB
    // uploads, Chromium, real processes) side by side: a test there can miss its timeout for want of
    // CPU alone, and one such miss failed a whole run. A test is tried once more on CI; one that
    // fails for a reason fails twice, and Vitest's report names every test that needed the retry.
    retry: process.env.CI ? 1 : 0,
    hookTimeout: 300_000,
    projects: [
      { extends: true, test: { name: 'sqlite', env: { TEST_BACKEND: 'sqlite' } } },
      ...(postgres
        ? [
            {
              extends: true as const,
              test: {
                name: 'postgres',
                env: { TEST_BACKEND: 'postgres' },
                // Configuration parsing and .env reading do not touch a database: once is enough. Nor do
                // the dashboard's own logic, its serving and its browser tests, which use the API alike on
                // both, nor the /docs page's browser test.
                exclude: ['test/config/**', 'test/cli/dotenv.test.ts', 'test/web/**', 'test/openapi/docs-browser.test.ts'],
              },
            },
          ]
        : []),
    ],
  },
});
