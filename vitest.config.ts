import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    pool: 'forks',
    // Each worker process runs its files one after another with the module cache kept (each file
    // still gets its own database and app): a fresh process per file cost ~4.7 s of CPU per file
    // (process start, importing the app and its dependencies), 40% of the PGlite suite's CPU.
    // A file that changes process-wide state puts it back (test/foundation/dates.test.ts: TZ).
    isolate: false,
    // Files run in parallel (each has its own database). vitest's default on 2 cores is 1 worker;
    // on PostgreSQL a file mostly waits for the server, so more workers than cores pay off.
    maxWorkers: process.env.DATABASE_URL ? 4 : 2,
    testTimeout: 60_000,
    hookTimeout: 120_000,
    env: { NODE_ENV: 'test' },
    // `npm test` runs both; `npx vitest run test/unit/lock.test.ts` starts only the project a file
    // belongs to, so a unit test file runs in seconds, without the migrated template database.
    projects: [
      { extends: true, test: { name: 'unit', include: ['test/unit/**/*.test.ts'] } },
      {
        extends: true,
        test: {
          name: 'db',
          include: ['test/**/*.test.ts'],
          exclude: ['test/unit/**'],
          // Migrates a template database once per run; each file copies it (test/helpers/db.ts).
          globalSetup: ['test/helpers/global-setup.ts'],
        },
      },
    ],
  },
});
