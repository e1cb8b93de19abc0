import { defineConfig } from '@playwright/test';

/** Browser tests: the client library across tabs (client/browser) and the console end to end (e2e/). */
export default defineConfig({
  testMatch: ['e2e/**/*.spec.ts', 'client/browser/**/*.spec.ts'],
  globalSetup: './test-support/playwrightGlobalSetup.ts',
  workers: 1,
  timeout: 60_000,
  reporter: [['list']],
  use: {
    headless: true,
    launchOptions: {
      // Debian's chromium: no browser downloads on these machines.
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
    },
  },
});
