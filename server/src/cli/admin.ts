import path from 'node:path';
import { ApiError } from '../errors.js';
import { ConfigError, loadConfig } from '../config.js';
import { startEmbeddedPostgres } from '../db/embedded.js';
import { createKnex } from '../db/knex.js';
import { migrate } from '../db/migrate.js';
import { createResetLinkFor, resetPagePath } from '../auth/passwordChanges.js';

const USAGE = `usage: npm run admin -- reset-link <email>
  reset-link <email>   prints a single-use password reset link for that account, valid one hour
                       (for an owner locked out of their own account; reads the database directly)`;

/**
 * `npm run admin -- <command>`: tools for the one running the machine, with no token needed (DATABASE_URL, or the
 * embedded database, reused while the service runs).
 */
async function main(): Promise<void> {
  const [command, ...rest] = process.argv.slice(2);
  if (command === undefined || command === '--help' || command === '-h') {
    console.log(USAGE);
    return;
  }
  if (command !== 'reset-link' || rest.length !== 1 || !rest[0]!.includes('@')) throw new ConfigError(`unknown or incomplete command: ${[command, ...rest].join(' ')}\n${USAGE}`);
  const config = loadConfig();
  const embedded = config.databaseUrl ? undefined : await startEmbeddedPostgres(path.join(config.dataDir, 'postgres'), { reuseRunning: true });
  const knex = createKnex(config.databaseUrl ?? embedded!.url, { poolSize: 1 });
  try {
    await migrate(knex);
    const link = await createResetLinkFor(knex, rest[0]!);
    console.log(`Reset link for ${rest[0]!.trim().toLowerCase()} (single use, valid until ${link.expiresAt}):`);
    console.log(`  open  http://localhost:${config.port}${resetPagePath(link.token)}  (or the same path on your server's address)`);
    console.log(`  or    curl -X POST <server>/auth/reset -H 'content-type: application/json' -d '{"token":"${link.token}","newPassword":"..."}'`);
  } finally {
    await knex.destroy();
    await embedded?.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof ConfigError || error instanceof ApiError ? `admin: ${error.message}` : error);
  process.exitCode = 1;
});
