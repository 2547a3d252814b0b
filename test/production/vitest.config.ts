import { defineConfig } from 'vitest/config';

// The production-topology suite: several nodes, a pooler, a balancer and database failover, with real haproxy,
// pgbouncer, patroni and etcd on loopback. Slow and PostgreSQL-only, so it is its own command
// (`npm run test:production`), run by CI after the two functional suites and never by `npm test`.
export default defineConfig({
  test: {
    include: ['test/production/**/*.test.ts'],
    globalSetup: ['test/helpers/global-setup.ts'],
    pool: 'forks',
    // One file at a time: each starts its own cluster of processes on the two shared cores.
    maxWorkers: 1,
    testTimeout: 300_000,
    hookTimeout: 300_000,
    teardownTimeout: 60_000,
  },
});
