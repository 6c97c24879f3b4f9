import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// Tests run against the workspace packages' sources, so a change in one package is seen by the
// tests of another without a rebuild.
const source = (path: string) => fileURLToPath(new URL(path, import.meta.url));

export const workspaceAlias = {
  '@vss/schema': source('./packages/schema/src/index.ts'),
  '@vss/core/testing': source('./packages/core/src/testing/index.ts'),
  '@vss/core': source('./packages/core/src/index.ts'),
  '@vss/client': source('./packages/client/src/index.ts'),
};

/** Every package's test configuration: sources of its workspace dependencies, generous timeouts for real processes. */
export const packageTestConfig = defineConfig({
  resolve: { alias: workspaceAlias },
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
