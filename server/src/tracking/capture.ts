import type { Knex } from 'knex';
import { quote } from '../db/identifiers.js';
import type { SchemaCache } from '../db/schemaCache.js';
import { notifySchemaChange } from '../db/notifications.js';
import { CAPTURE_TRIGGER_NAMES } from '../db/triggerNames.js';
import { ApiError } from '../errors.js';
import { TRACKING_LOCK, lockForTriggerChange } from './place.js';
import { captureTriggers, switchCapture } from './triggers.js';

/**
 * Capture on demand: a table's changes are logged for realtime only while somebody streams it, so a table nobody
 * streams pays nothing for realtime on its writes (the log row with every row's JSON was about half of what a
 * one-row insert cost Postgres beyond the insert itself, measured).
 *
 * - A stream opens only once its tables are captured (`want`): the capture triggers are switched on with ALTER TABLE,
 *   which waits for the writes under way, so every write after it is logged and every write before it has ended (the
 *   hub's reading starts after both).
 * - `_basalt_streamed.until`: while a process has subscribers it keeps their tables' `until` ahead (`keep`, every
 *   minute); capture stays on until `keepMs` (longer than the change log's retention) after the last one left, so a
 *   client that reconnects within the retention resumes with nothing lost. Then any process switches it off
 *   (`expire`, every minute).
 * - `since`: the transaction that switched capture on. Changes before it may be missing (capture was off), so a
 *   resume from an earlier event is answered with `reset` (realtime/hub.ts).
 */

/** A busy table (each try waits up to LOCK_TIMEOUT) or a schema row other DDL holds is tried again, pausing 50 ms, 100 ms, ... */
const SWITCH_ATTEMPTS = 6;
const EXPIRE_EVERY_MS = 60_000;

export class CaptureSwitch {
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly knex: Knex,
    private readonly cache: SchemaCache,
    private readonly keepMs: number,
    private readonly onError: (error: unknown) => void = () => undefined,
  ) {}

  /** Before a stream of these tables opens: captured from now on (503 when a table's writes hold its lock too long). */
  async want(tables: readonly string[]): Promise<void> {
    await this.extend(tables);
    const off = tables.filter((table) => this.cache.served(table)?.capturing !== true);
    if (off.length === 0) return;
    for (const table of off) await this.switchOn(table);
    await this.cache.reload();
  }

  /**
   * Webhooks' tables (issue 29): captured for as long as some enabled webhook names them (`until` infinity), the set
   * replaced as a whole; `'*'` holds every table, those made later too (the row `''`: tracking/triggers.ts,
   * captureIfAllHeld). A table no longer held keeps its capture as long as a stream's would (`keepMs`).
   */
  async hold(tables: readonly string[] | '*'): Promise<void> {
    const all = tables === '*';
    const named = all ? this.cache.servedTables().map((table) => table.name) : [...tables];
    await this.knex.transaction(async (trx) => {
      await trx.raw(
        `UPDATE _basalt_streamed SET until = now() + make_interval(secs => ?) WHERE until = 'infinity' AND table_name <> '' AND NOT (table_name = ANY(?))`,
        [this.keepMs / 1000, named],
      );
      if (!all) await trx.raw(`DELETE FROM _basalt_streamed WHERE table_name = ''`);
      await trx.raw(
        `INSERT INTO _basalt_streamed (table_name, until) SELECT unnest(?::text[]), 'infinity'
         ON CONFLICT (table_name) DO UPDATE SET until = 'infinity'`,
        [all ? [...named, ''] : named],
      );
    });
    const off = named.filter((table) => this.cache.served(table)?.capturing !== true);
    for (const table of off) await this.switchOn(table);
    if (off.length > 0) await this.cache.reload();
  }

  /** While subscribers stay: their tables stay captured (and one found off, by psql or an expiry race, goes on again). */
  async keep(tables: readonly string[]): Promise<void> {
    await this.want(tables).catch(this.onError);
  }

  /** The transaction from which every one of these tables has been captured without a break (0 when unknown). */
  async since(tables: readonly string[]): Promise<bigint> {
    const result = await this.knex.raw<{ rows: Array<{ since: string | null }> }>(`SELECT max(since)::text AS since FROM _basalt_streamed WHERE table_name = ANY(?)`, [[...tables]]);
    return BigInt(result.rows[0]?.since ?? '0');
  }

  /** Capture off for every table nobody kept; answers how many. */
  async expire(): Promise<number> {
    const expired = await this.knex.raw<{ rows: Array<{ table_name: string }> }>(`SELECT table_name FROM _basalt_streamed WHERE until < now()`);
    let switched = 0;
    for (const { table_name: table } of expired.rows) {
      try {
        if (await this.switchOff(table)) switched++;
      } catch (error) {
        const code = (error as { code?: string }).code;
        // 42P01: the table went; its row goes too. 55P03: its writes held the lock: tried again next minute.
        if (code === '42P01') await this.knex.raw(`DELETE FROM _basalt_streamed WHERE table_name = ?`, [table]);
        else if (code !== '55P03' && code !== '42501') throw error;
      }
    }
    if (switched > 0) await this.cache.reload();
    return switched;
  }

  start(intervalMs = EXPIRE_EVERY_MS): void {
    this.timer ??= setInterval(() => void this.expire().catch(this.onError), intervalMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  private async extend(tables: readonly string[]): Promise<void> {
    await this.knex.raw(
      `INSERT INTO _basalt_streamed (table_name, until) SELECT unnest(?::text[]), now() + make_interval(secs => ?)
       ON CONFLICT (table_name) DO UPDATE SET until = greatest(_basalt_streamed.until, excluded.until)`,
      [[...tables], this.keepMs / 1000],
    );
  }

  private async switchOn(table: string): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        await this.knex.transaction(async (trx) => {
          await trx.raw(TRACKING_LOCK);
          const state = await trx.raw<{ rows: Array<{ name: string; enabled: boolean }> }>(
            `SELECT tgname AS name, tgenabled <> 'D' AS enabled FROM pg_trigger WHERE tgrelid = ?::regclass AND tgname = ANY(?)`,
            [quote(table), [...CAPTURE_TRIGGER_NAMES]],
          );
          if (state.rows.length === CAPTURE_TRIGGER_NAMES.length && state.rows.every((row) => row.enabled)) return;
          await lockForTriggerChange(trx, table, state.rows.length !== CAPTURE_TRIGGER_NAMES.length ? 'ACCESS EXCLUSIVE' : 'SHARE ROW EXCLUSIVE');
          // A table whose triggers are not placed yet (made with psql a moment ago) gets its capture triggers here.
          if (state.rows.length !== CAPTURE_TRIGGER_NAMES.length) {
            for (const name of CAPTURE_TRIGGER_NAMES) await trx.raw(`DROP TRIGGER IF EXISTS ${name} ON ${quote(table)}`);
            for (const statement of captureTriggers(table)) await trx.raw(statement);
          }
          for (const statement of switchCapture(table, true)) await trx.raw(statement);
          await trx.raw(`UPDATE _basalt_streamed SET since = pg_current_xact_id() WHERE table_name = ?`, [table]);
          await notifySchemaChange(trx);
        });
        return;
      } catch (error) {
        const code = (error as { code?: string }).code;
        // Another role's table: it streams without capture (its description says why), as before. 42P01: it went.
        if (code === '42501' || code === '42P01') return;
        if (code !== '55P03') throw error;
        if (attempt === SWITCH_ATTEMPTS) {
          throw new ApiError('UNAVAILABLE', `${table} is being written too busily to start streaming it; try again shortly`, { retryAfter: 1 });
        }
        // A refusal of the schema row (some DDL committing) is over in moments: a short pause, not a busy loop.
        await new Promise((resolve) => setTimeout(resolve, 50 * attempt));
      }
    }
  }

  private async switchOff(table: string): Promise<boolean> {
    return this.knex.transaction(async (trx) => {
      await trx.raw(TRACKING_LOCK);
      // Kept meanwhile by a process with a new subscriber: stays on.
      const gone = await trx.raw<{ rows: unknown[] }>(`DELETE FROM _basalt_streamed WHERE table_name = ? AND until < now() RETURNING 1`, [table]);
      if (gone.rows.length === 0) return false;
      await lockForTriggerChange(trx, table, 'SHARE ROW EXCLUSIVE');
      const present = await trx.raw<{ rows: unknown[] }>(`SELECT 1 FROM pg_trigger WHERE tgrelid = ?::regclass AND tgname = ANY(?) AND tgenabled <> 'D'`, [quote(table), [...CAPTURE_TRIGGER_NAMES]]);
      if (present.rows.length === 0) return false;
      for (const statement of switchCapture(table, false)) await trx.raw(statement);
      await notifySchemaChange(trx);
      return true;
    });
  }
}
