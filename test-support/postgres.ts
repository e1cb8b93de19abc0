import { execFileSync } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startEmbeddedPostgres } from '../server/src/db/embedded.js';

/** The environment variable through which test processes learn where they may create and drop databases. */
export const ADMIN_URL_ENV = 'BASALT_TEST_ADMIN_URL';

/**
 * `npm test` never touches DATABASE_URL or DATA_DIR: it uses TEST_DATABASE_URL when set, else its own embedded
 * PostgreSQL in a temporary folder on a free port, removed by `stop()`. Sets ADMIN_URL_ENV for worker processes.
 */
export async function startTestPostgres(): Promise<{ adminUrl: string; stop(): Promise<void> }> {
  const given = process.env.TEST_DATABASE_URL;
  if (given) {
    process.env[ADMIN_URL_ENV] = given;
    return { adminUrl: given, stop: async () => {} };
  }
  // /tmp is reachable by the postgres OS user, which runs the embedded server when tests run as root.
  const tempDir = await fs.mkdtemp(path.join(os.tmpdir(), 'basalt-test-pg-'));
  await fs.chmod(tempDir, 0o755);
  const embedded = await startEmbeddedPostgres(path.join(tempDir, 'postgres'));
  process.env[ADMIN_URL_ENV] = embedded.url;
  return {
    adminUrl: embedded.url,
    async stop() {
      await embedded.stop();
      await fs.rm(tempDir, { recursive: true, force: true });
    },
  };
}

export function testAdminUrl(): string {
  const url = process.env[ADMIN_URL_ENV];
  if (!url) throw new Error(`${ADMIN_URL_ENV} is not set: run tests through vitest or playwright, whose global setup sets it`);
  return url;
}

/** The OS user PostgreSQL and PgBouncer run as when the tests run as root (both refuse root); undefined otherwise. */
export function postgresOsUser(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
  const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
  return { uid, gid };
}
