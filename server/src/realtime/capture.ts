import type { Knex } from 'knex';
import { quote } from '../db/identifiers.js';
import type { SchemaCache } from '../db/schemaCache.js';
import { notifySchemaChange } from '../db/notifications.js';
import { InstallLoop } from '../db/installLoop.js';

/**
 * Puts the capture triggers (migration `changes`) on every served table that lacks them, after each schema load:
 * tables made with psql are covered as soon as the cache sees them.
 *
 * Installing triggers is DDL, which bumps the schema version and reloads every process; the next load sees the
 * triggers and installs nothing, so there is no loop. A table whose owner is another role may refuse (42501): that
 * is remembered and shown in the table's description instead of retried on every load.
 */
/** The statements that put the capture triggers on a table (the admin API runs them as it creates one). */
export const captureTriggers = (table: string) => {
  const name = quote(table);
  return [
    `CREATE TRIGGER _basalt_capture_i AFTER INSERT ON ${name} REFERENCING NEW TABLE AS _basalt_new FOR EACH STATEMENT EXECUTE FUNCTION _basalt_capture()`,
    `CREATE TRIGGER _basalt_capture_u AFTER UPDATE ON ${name} REFERENCING NEW TABLE AS _basalt_new FOR EACH STATEMENT EXECUTE FUNCTION _basalt_capture()`,
    `CREATE TRIGGER _basalt_capture_d AFTER DELETE ON ${name} REFERENCING OLD TABLE AS _basalt_old FOR EACH STATEMENT EXECUTE FUNCTION _basalt_capture()`,
    `CREATE TRIGGER _basalt_capture_t AFTER TRUNCATE ON ${name} FOR EACH STATEMENT EXECUTE FUNCTION _basalt_capture()`,
  ];
};

export class Capture extends InstallLoop {
  /** Tables that refused the triggers, with why (shown in their description). */
  private readonly refused = new Map<string, string>();

  constructor(
    private readonly knex: Knex,
    private readonly cache: SchemaCache,
    onError?: (error: unknown) => void,
  ) {
    super(onError);
  }

  /** Why a table's changes are not captured, or undefined when they are (or will be on the next load). */
  problem(table: string): string | undefined {
    return this.refused.get(table);
  }

  protected async install(): Promise<void> {
    const missing = this.cache.servedTables().filter((table) => !table.captured && !this.refused.has(table.name));
    let installed = false;
    for (const table of missing) {
      try {
        await this.knex.transaction(async (trx) => {
          // Processes loading the same schema install once: the first takes the lock, the others find the triggers.
          await trx.raw(`SELECT pg_advisory_xact_lock(hashtext('basalt capture'))`);
          const present = await trx.raw<{ rows: unknown[] }>(
            `SELECT 1 FROM pg_trigger WHERE tgrelid = ?::regclass AND tgname = '_basalt_capture_i'`,
            [quote(table.name)],
          );
          if (present.rows.length > 0) return;
          // CREATE TRIGGER waits for the writes under way and holds new ones back meanwhile: at most a second.
          await trx.raw(`SET LOCAL lock_timeout = '1s'`);
          for (const statement of captureTriggers(table.name)) await trx.raw(statement);
          await notifySchemaChange(trx);
          installed = true;
        });
      } catch (error) {
        const code = (error as { code?: string }).code;
        // 42501: not the table's owner; 42P01: dropped meanwhile; 42710: made by another process meanwhile.
        if (code === '42501') this.refused.set(table.name, 'the database role of the service does not own this table, so it cannot put the realtime triggers on it');
        // 55P03: long writes under way kept the lock: tried again shortly.
        else if (code === '55P03') this.retryLater();
        else if (code !== '42P01' && code !== '42710') throw error;
      }
    }
    if (installed) await this.cache.reload();
  }
}
