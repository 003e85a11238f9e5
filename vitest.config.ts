import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Real child processes and nats-servers: keep the pool small on a 2-core machine.
    pool: 'forks',
    maxWorkers: 2,
  },
});
