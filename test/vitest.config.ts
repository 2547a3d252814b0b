import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The production-topology suite is its own command (test/production/vitest.config.ts).
    exclude: ['test/production/**', '**/node_modules/**'],
    globalSetup: ['test/helpers/global-setup.ts'],
    pool: 'forks',
    // Two cores: each worker holds its own embedded database (~350 MB) or PostgreSQL database.
    maxWorkers: 2,
    // Generous: tests spawn processes and browsers on two shared cores; a hang still fails.
    testTimeout: 90_000,
    hookTimeout: 90_000,
    teardownTimeout: 30_000,
  },
});
