import { startTestPostgres } from './postgres.js';

let stop: (() => Promise<void>) | undefined;

/** Vitest global setup: one Postgres for the run; each test file creates its own database on it. */
export async function setup(): Promise<void> {
  ({ stop } = await startTestPostgres());
}

export async function teardown(): Promise<void> {
  await stop?.();
}
