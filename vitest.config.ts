import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/helpers/global-setup.ts'],
    pool: 'forks',
    // Files run in parallel (each has its own database). vitest's default on 2 cores is 1 worker;
    // on PostgreSQL a file mostly waits for the server, so more workers than cores pay off.
    maxWorkers: process.env.DATABASE_URL ? 4 : 2,
    testTimeout: 60_000,
    hookTimeout: 120_000,
    env: { NODE_ENV: 'test' },
  },
});
