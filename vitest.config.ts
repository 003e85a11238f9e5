import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: {
    // the workspace package's sources, as the type checker sees them, so tests never run a stale build
    alias: { '@fisk-ai/app': fileURLToPath(new URL('./packages/app/src/index.ts', import.meta.url)) },
  },
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts', 'packages/*/src/**/*.test.ts', 'packages/*/test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Real child processes and nats-servers: keep the pool small on a 2-core machine.
    pool: 'forks',
    maxWorkers: 2,
  },
});
