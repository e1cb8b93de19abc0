import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../../test-support/wait.js';
import { AuthSweeper, VACUUM_AFTER_ROWS } from '../src/auth/sweep.js';
import { signUp, startHarness, type Account, type Harness } from './harness.js';

/**
 * What can never be used again goes (docs/operations.md, "Housekeeping"): limit windows that ended, sessions whose
 * refresh token expired, reset tokens past their hour; live ones stay, one process sweeps at a time, and the swept
 * tables are vacuumed after enough rows went (autovacuum may be off).
 */

let h: Harness;
let owner: Account;
let sql: pg.Client;

beforeAll(async () => {
  h = await startHarness();
  owner = await signUp(h);
  sql = await h.sql();
});
afterAll(() => h?.close());

const count = async (table: string, where = 'true') => Number((await sql.query(`SELECT count(*) AS n FROM ${table} WHERE ${where}`)).rows[0].n);
const sessionOf = async (userId: string) => (await sql.query(`SELECT id FROM sessions WHERE user_id = $1`, [userId])).rows.map((row) => row.id as string);
const expireSessionsOf = (userId: string) => sql.query(`UPDATE sessions SET expires_at = now() - interval '1 second' WHERE user_id = $1`, [userId]);
const refresh = (token: string) => h.request().post('/auth/refresh').send({ refreshToken: token });
const resetLink = async (userId: string) => (await h.request().post(`/admin/users/${userId}/reset-link`).set(owner.auth).expect(201)).body.data.token as string;

describe('the auth sweep', () => {
  it('deletes expired sessions, ended limit windows and expired reset tokens on a timer, and keeps live ones', async () => {
    const gone = await signUp(h);
    const kept = await signUp(h);
    await expireSessionsOf(gone.id);
    expect((await refresh(gone.refreshToken)).status).toBe(401);
    await resetLink(gone.id);
    await sql.query(`UPDATE _basalt_reset_tokens SET expires_at = now() - interval '1 second' WHERE user_id = $1`, [gone.id]);
    const liveReset = await resetLink(kept.id);
    await sql.query(`INSERT INTO _basalt_limits (key, hits, window_end) VALUES ('ended', 3, now() - interval '1 second'), ('open', 3, now() + interval '1 hour')`);

    const sweeper = new AuthSweeper(h.services.knex);
    sweeper.start(50);
    try {
      await eventually(async () => expect(await sessionOf(gone.id)).toEqual([]));
    } finally {
      await sweeper.stop();
    }
    expect(await count('_basalt_reset_tokens', `user_id = '${gone.id}'`)).toBe(0);
    expect(await count('_basalt_limits', `key = 'ended'`)).toBe(0);
    // The live ones are untouched and still work.
    expect(await count('_basalt_limits', `key = 'open'`)).toBe(1);
    expect(await sessionOf(kept.id)).toHaveLength(1);
    expect((await refresh(kept.refreshToken)).status).toBe(200);
    expect((await h.request().post('/auth/reset').send({ token: liveReset, newPassword: 'a new password' })).status).toBe(200);
    // The swept session's token stays refused, as it was before the row went.
    expect((await refresh(gone.refreshToken)).status).toBe(401);
    await sql.query(`DELETE FROM _basalt_limits WHERE key = 'open'`);
  });

  it('sweeps in one process at a time, and reports what it deleted', async () => {
    const user = await signUp(h);
    await expireSessionsOf(user.id);
    await sql.query('BEGIN');
    await sql.query(`SELECT pg_advisory_xact_lock(hashtext('basalt auth sweep'))`);
    await h.services.sweeper.run();
    expect(h.services.sweeper.last).toEqual({ limits: 0, sessions: 0, resets: 0, mails: 0 });
    expect(await sessionOf(user.id)).toHaveLength(1);
    await sql.query('COMMIT');
    await h.services.sweeper.run();
    expect(h.services.sweeper.last).toEqual({ limits: 0, sessions: 1, resets: 0, mails: 0 });
    expect(await sessionOf(user.id)).toEqual([]);
  });

  it('vacuums the swept tables once enough rows went', async () => {
    const vacuums = async () =>
      Number((await sql.query(`SELECT sum(vacuum_count + autovacuum_count) AS n FROM pg_stat_user_tables WHERE relname IN ('_basalt_limits', 'sessions', '_basalt_reset_tokens')`)).rows[0].n);
    // A sweeper of its own: it counts the rows it deleted from nought.
    const sweeper = new AuthSweeper(h.services.knex);
    const start = await vacuums();
    await sql.query(`INSERT INTO _basalt_limits (key, hits, window_end) SELECT 'w' || i, 1, now() - interval '1 minute' FROM generate_series(1, ${VACUUM_AFTER_ROWS - 1}) i`);
    await sweeper.run();
    expect(sweeper.last.limits).toBe(VACUUM_AFTER_ROWS - 1);
    expect(await vacuums()).toBe(start);
    const user = await signUp(h);
    await expireSessionsOf(user.id);
    await sweeper.run();
    // The three tables, one VACUUM each (statistics arrive a moment later).
    await eventually(async () => expect(await vacuums()).toBe(start + 3));
    // (n_dead_tup is no witness: the deleting backend may report its dead rows after the VACUUM reported none.)
  });
});
