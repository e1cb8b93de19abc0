import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['{contract,server,client,console,test-support,bench}/**/*.test.ts'],
    exclude: ['**/node_modules/**', '**/dist/**'],
    globalSetup: ['./test-support/globalSetup.ts'],
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
