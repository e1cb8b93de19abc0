import { startPgBouncer, POOLER_URL_ENV } from './pgbouncer.js';
import { startTestPostgres } from './postgres.js';

let stop: (() => Promise<void>) | undefined;
let stopPooler: (() => Promise<void>) | undefined;

/**
 * Vitest global setup: one Postgres for the run; each test file creates its own database on it. With
 * `TEST_THROUGH_POOLER=1` also one PgBouncer in transaction mode, through which every harness then talks
 * (`DATABASE_POOL_MODE=transaction`, LISTEN on the direct URL): the suites' acceptance behind a pooler.
 */
export async function setup(): Promise<void> {
  ({ stop } = await startTestPostgres());
  if (process.env.TEST_THROUGH_POOLER === '1') {
    const bouncer = await startPgBouncer();
    process.env[POOLER_URL_ENV] = bouncer.url('');
    stopPooler = () => bouncer.stop();
  }
}

export async function teardown(): Promise<void> {
  await stopPooler?.();
  await stop?.();
}
