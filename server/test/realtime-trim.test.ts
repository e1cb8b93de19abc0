import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../../test-support/wait.js';
import { ChangeTrimmer, RETENTION_MS, VACUUM_AFTER_ROWS } from '../src/realtime/trim.js';
import { createTable, signUp, startHarness, type Account, type Harness } from './harness.js';

/**
 * The change log keeps changes for RETENTION_MS (docs/realtime.md): they go whether or not any process has a stream
 * open (a table stays captured for a while after its last subscriber left), and the log is vacuumed after enough went.
 */

let h: Harness;
let owner: Account;
let sql: pg.Client;

beforeAll(async () => {
  h = await startHarness();
  owner = await signUp(h);
  sql = await h.sql();
  await createTable(h, owner, { name: 'notes', policy: 'public-read', columns: [{ name: 'title', type: 'text' }] });
  // Captured as a stream that has closed leaves it (tracking/capture.ts): logged, with no stream open.
  await h.services.capture.want(['notes']);
});
afterAll(() => h?.close());

const logged = async () => Number((await sql.query(`SELECT count(*) AS n FROM _basalt_changes WHERE table_name = 'notes'`)).rows[0].n);
const trimmedTo = async () => BigInt((await sql.query(`SELECT xid::text AS xid FROM _basalt_changes_trimmed`)).rows[0].xid);
const ageAll = (ms: number) => sql.query(`UPDATE _basalt_changes SET at = at - make_interval(secs => $1::double precision)`, [ms / 1000]);

describe('the change log', () => {
  it('loses changes past the retention on a timer while no stream is open, keeping the recent ones', async () => {
    expect(h.services.hub.size).toBe(0);
    await h.request().post('/api/notes').set(owner.auth).send([{ title: 'a' }, { title: 'b' }]).expect(201);
    await h.request().post('/api/notes').set(owner.auth).send({ title: 'c' }).expect(201);
    expect(await logged()).toBe(2);
    await ageAll(RETENTION_MS + 60_000);
    await h.request().post('/api/notes').set(owner.auth).send({ title: 'recent' }).expect(201);
    const before = await trimmedTo();
    const trimmer = new ChangeTrimmer(h.services.pool);
    trimmer.start(50);
    try {
      await eventually(async () => expect(await logged()).toBe(1));
    } finally {
      await trimmer.stop();
    }
    const [recent] = (await sql.query(`SELECT record->0->>'title' AS title FROM _basalt_changes WHERE table_name = 'notes'`)).rows;
    expect(recent.title).toBe('recent');
    // A resume from before the trimmed changes is told to start over.
    expect(await trimmedTo()).toBeGreaterThan(before);
  });

  it('is trimmed by one process at a time', async () => {
    await ageAll(RETENTION_MS + 60_000);
    await sql.query('BEGIN');
    await sql.query(`SELECT pg_advisory_xact_lock(hashtext('basalt changes trim'))`);
    await h.services.trimmer.run();
    expect(await logged()).toBe(1);
    await sql.query('COMMIT');
    await h.services.trimmer.run();
    expect(await logged()).toBe(0);
  });

  it('is vacuumed once enough changes went (autovacuum may be off)', async () => {
    const vacuums = async () => Number((await sql.query(`SELECT vacuum_count + autovacuum_count AS n FROM pg_stat_user_tables WHERE relname = '_basalt_changes'`)).rows[0].n);
    // A trimmer of its own: it counts the rows it deleted from nought.
    const trimmer = new ChangeTrimmer(h.services.pool);
    const start = await vacuums();
    // One log row per statement: VACUUM_AFTER_ROWS statements' worth, old enough to go.
    await sql.query(
      `INSERT INTO _basalt_changes (table_name, op, record, at) SELECT 'notes', 'i', '[]', now() - interval '1 day' FROM generate_series(1, ${VACUUM_AFTER_ROWS - 1})`,
    );
    await trimmer.run();
    expect(await logged()).toBe(0);
    expect(await vacuums()).toBe(start);
    await h.request().post('/api/notes').set(owner.auth).send({ title: 'one more' }).expect(201);
    await ageAll(RETENTION_MS + 60_000);
    await trimmer.run();
    await eventually(async () => expect(await vacuums()).toBe(start + 1));
    // (n_dead_tup is no witness: the deleting backend may report its dead rows after the VACUUM reported none.)
  });
});
