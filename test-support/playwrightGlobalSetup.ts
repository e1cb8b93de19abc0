import { startTestPostgres } from './postgres.js';

/** Playwright global setup: one Postgres for the run; the returned function is its teardown. */
export default async function globalSetup(): Promise<() => Promise<void>> {
  const { stop } = await startTestPostgres();
  return stop;
}
