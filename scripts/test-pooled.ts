/**
 * `npm run test:pooled` (part of `npm test`): a representative subset of the HTTP suites again, every harness talking
 * through one real PgBouncer in transaction mode (TEST_THROUGH_POOLER=1: test-support/globalSetup.ts starts it;
 * DATABASE_POOL_MODE=transaction, LISTEN on the direct URL). Issue 25: records, realtime, auth, admin, and each later
 * issue's suite. Without a PgBouncer >= 1.21 on PATH (scripts/pgbouncer.sh builds one) it says so in one line.
 */
import { spawnSync } from 'node:child_process';
import { pgbouncerVersion } from '../test-support/pgbouncer.js';

export const POOLED_SUITES = [
  'server/test/records.test.ts',
  'server/test/realtime.test.ts',
  'server/test/auth.test.ts',
  'server/test/sessions.test.ts',
  'server/test/api-keys.test.ts',
  'server/test/admin.test.ts',
  'server/test/policies.test.ts',
  'server/test/query.test.ts',
  // Issue 24: access rules.
  'server/test/rules.test.ts',
  // Issue 28: files (uploads, downloads, the registry of objects; tus's leases and conditional offsets).
  'server/test/files/bytes.test.ts',
  'server/test/files/tus.test.ts',
  // Issue 29: webhooks (the enqueuer's position lock, the deliverer's leases in a transaction with SET LOCAL, batched
  // outcomes; the replay's position lock).
  'server/test/webhooks/delivery.test.ts',
  'server/test/webhooks/queue.test.ts',
  // Query language, part 2 (issue 30): changes by filter, upserts and aggregates are statements with CTEs, CSV rides on them.
  'server/test/query2/changes.test.ts',
  'server/test/query2/upsert.test.ts',
  'server/test/query2/aggregates.test.ts',
];

const available = pgbouncerVersion();
if (!available.ok) {
  console.log(`pooled suites did not run: ${available.reason}`);
  process.exit(0);
}
console.log(`pooled suites: ${POOLED_SUITES.length} files through PgBouncer ${available.version} in transaction mode`);
const result = spawnSync('npx', ['vitest', 'run', ...POOLED_SUITES], { stdio: 'inherit', env: { ...process.env, TEST_THROUGH_POOLER: '1' } });
process.exit(result.status ?? 1);
