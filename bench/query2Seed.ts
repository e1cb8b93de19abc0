import type pg from 'pg';
import { onServer } from './processes.js';
import { call } from './seed.js';
import { BARE, type BenchProject } from './scenarios.js';
import { BATCHES, CONTACTS, EVENTS, query2Sizes, STATUSES, type Query2Project } from './query2Scenarios.js';

/**
 * AG1, BU1 and U1's tables (issue 30), made through the admin API as a developer would (Basalt's triggers, owner
 * index; the index AG1 asks for on status, U1's unique email), then filled by SQL: INSERT ... SELECT generate_series
 * in statements of 100,000 rows, as the growth part's seeds do (the count triggers fold each statement's rows; a
 * statement's change-log row, were capture on, would hold all of them). The baseline's copies in `bare` (same columns,
 * keys, unique constraints and indexes, no trigger) get the same rows, their indexes built after the rows.
 * - events: status (10 values, `status-00`..`status-09`), score (0..999), public-read;
 * - batches: the member's rows, score unique (0..rows-1), label; owner-scoped;
 * - contacts: the member's rows, email unique (`contact-0000000@bench.test`...), name, score; owner-scoped.
 */

const CHUNK = 100_000;
const text = (name: string) => ({ name, type: 'text', nullable: false });
const integer = (name: string) => ({ name, type: 'integer', nullable: false });
const owner = { name: 'user_id', type: 'text' };

async function fill(client: pg.Client, rows: number, insert: (from: number, to: number) => Promise<unknown>): Promise<void> {
  for (let from = 0; from < rows; from += CHUNK) await insert(from, Math.min(rows, from + CHUNK) - 1);
}

/**
 * The baseline's copy of a table just filled: the same columns and defaults, the rows, then the same keys, unique
 * constraints and indexes built after them (seed.ts copyToBare drops and remakes plain indexes only; a unique
 * constraint's index cannot be dropped alone).
 */
async function mirror(client: pg.Client, table: string, ownerColumn: boolean): Promise<void> {
  const bare = `${BARE}.${table}`;
  await client.query(`DROP TABLE IF EXISTS ${bare}`);
  await client.query(`CREATE TABLE ${bare} (LIKE public.${table} INCLUDING DEFAULTS INCLUDING CONSTRAINTS)`);
  await client.query(`INSERT INTO ${bare} SELECT * FROM public.${table}`);
  const keys = await client.query<{ name: string; definition: string }>(
    `SELECT conname AS name, pg_get_constraintdef(oid) AS definition FROM pg_constraint WHERE conrelid = $1::regclass AND contype IN ('p', 'u') ORDER BY contype`,
    [`public.${table}`],
  );
  for (const key of keys.rows) await client.query(`ALTER TABLE ${bare} ADD CONSTRAINT ${JSON.stringify(key.name)} ${key.definition}`);
  const indexes = await client.query<{ definition: string }>(
    `SELECT pg_get_indexdef(x.indexrelid) AS definition FROM pg_index x
      WHERE x.indrelid = $1::regclass AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = x.indexrelid)`,
    [`public.${table}`],
  );
  for (const index of indexes.rows) await client.query(index.definition.replace(/^CREATE (UNIQUE )?INDEX (\S+) ON public\./, `CREATE $1INDEX $2 ON ${BARE}.`));
  if (ownerColumn) await client.query(`ALTER TABLE ${bare} ADD FOREIGN KEY (user_id) REFERENCES public.users (id) ON DELETE CASCADE`);
  await client.query(`VACUUM ANALYZE ${bare}`);
}

export async function seedQuery2(basaltUrl: string, databaseUrl: string, project: BenchProject, smoke: boolean): Promise<void> {
  const sizes = query2Sizes(smoke);
  const token = project.ownerToken;
  await call(basaltUrl, 'POST', '/admin/tables', { name: EVENTS, policy: 'public-read', columns: [text('status'), integer('score')] }, token);
  await call(basaltUrl, 'POST', '/admin/tables', { name: BATCHES, policy: 'owner-scoped', columns: [owner, integer('score'), text('label')] }, token);
  const email = { ...text('email'), unique: true };
  await call(basaltUrl, 'POST', '/admin/tables', { name: CONTACTS, policy: 'owner-scoped', columns: [owner, email, text('name'), integer('score')] }, token);
  await onServer(databaseUrl, async (client) => {
    await fill(client, sizes.events, (from, to) =>
      client.query(
        `INSERT INTO ${EVENTS} (id, status, score) SELECT substr(md5('event-' || i), 1, 22), 'status-' || lpad((i % ${STATUSES})::text, 2, '0'), i % 1000
           FROM generate_series($1::int, $2::int) AS i`,
        [from, to],
      ),
    );
    await fill(client, sizes.batches, (from, to) =>
      client.query(
        `INSERT INTO ${BATCHES} (id, user_id, score, label) SELECT substr(md5('batch-' || i), 1, 22), $3, i, 'label' FROM generate_series($1::int, $2::int) AS i`,
        [from, to, project.member.id],
      ),
    );
    await fill(client, sizes.contacts, (from, to) =>
      client.query(
        `INSERT INTO ${CONTACTS} (id, user_id, email, name, score)
         SELECT substr(md5('contact-' || i), 1, 22), $3, 'contact-' || lpad(i::text, 7, '0') || '@bench.test', 'Contact ' || i, i % 1000
           FROM generate_series($1::int, $2::int) AS i`,
        [from, to, project.member.id],
      ),
    );
  });
  // The indexes a developer would add for these requests, built after the rows as a bulk load would.
  await call(basaltUrl, 'POST', `/admin/tables/${EVENTS}/indexes`, { columns: ['status'] }, token);
  await call(basaltUrl, 'POST', `/admin/tables/${BATCHES}/indexes`, { columns: ['score'] }, token);
  await onServer(databaseUrl, async (client) => {
    await client.query(`VACUUM ANALYZE ${EVENTS}, ${BATCHES}, ${CONTACTS}`);
    await mirror(client, EVENTS, false);
    await mirror(client, BATCHES, true);
    await mirror(client, CONTACTS, true);
    const groups = await client.query<{ status: string; count: number; avg: number }>(
      `SELECT status, count(*)::int AS count, avg(score)::float8 AS avg FROM ${EVENTS} GROUP BY status ORDER BY status`,
    );
    const query2: Query2Project = { groups: groups.rows, ...sizes };
    project.query2 = query2;
  });
}
