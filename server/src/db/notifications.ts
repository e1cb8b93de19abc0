import { randomUUID } from 'node:crypto';
import pg from 'pg';
import type { Knex } from 'knex';

/** Every process listens here and reloads its schema cache when told. */
export const SCHEMA_CHANNEL = 'basalt';
export const RELOAD_SCHEMA = 'reload schema';

/**
 * Bumps the schema version and tells every process (this one included) to reload its schema cache. Inside a
 * transaction both take effect on commit, together with the change.
 */
export async function notifySchemaChange(db: Knex | Knex.Transaction): Promise<void> {
  await db.raw('UPDATE _basalt_schema SET version = version + 1');
  await db.raw('SELECT pg_notify(?, ?)', [SCHEMA_CHANNEL, RELOAD_SCHEMA]);
}

/** Payloads on the schema channel that only test the listening connection start with this. */
const CHECK = 'check ';

export interface SchemaListener {
  /**
   * Sends a test notification by `send` (through the database URL) and waits for it here, `waitMs` at a time,
   * `tries` times; throws naming DATABASE_LISTEN_URL when it never arrives (a LISTEN through a transaction pooler).
   */
  confirm(send: (payload: string) => Promise<void>, waitMs?: number, tries?: number): Promise<void>;
  close(): Promise<void>;
}

/**
 * A dedicated connection that LISTENs on the schema channel. When it drops it reconnects by itself, and after every
 * reconnect it asks for a full reload, since notifications sent while it was away are lost.
 */
export function listenForSchemaChanges(
  url: string,
  onChange: () => void,
  onError: (error: unknown) => void = () => undefined,
): Promise<SchemaListener> {
  let client: pg.Client | undefined;
  let closed = false;
  let retryTimer: NodeJS.Timeout | undefined;
  let delay = 250;
  const checks = new Map<string, () => void>();

  const connect = async (): Promise<void> => {
    const candidate = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000, keepAlive: true });
    candidate.on('notification', (message) => {
      if (message.channel !== SCHEMA_CHANNEL) return;
      if (message.payload?.startsWith(CHECK)) checks.get(message.payload)?.();
      else onChange();
    });
    candidate.on('error', (error) => {
      onError(error);
      scheduleReconnect(candidate);
    });
    candidate.on('end', () => scheduleReconnect(candidate));
    try {
      await candidate.connect();
      await candidate.query(`LISTEN ${SCHEMA_CHANNEL}`);
    } catch (error) {
      candidate.removeAllListeners('end');
      await candidate.end().catch(() => undefined);
      throw error;
    }
    client = candidate;
    delay = 250;
  };

  const scheduleReconnect = (failed: pg.Client) => {
    if (closed || client !== failed || retryTimer) return;
    client = undefined;
    failed.removeAllListeners('end');
    failed.end().catch(() => undefined);
    const attempt = () => {
      retryTimer = undefined;
      if (closed) return;
      connect().then(
        () => onChange(),
        (error: unknown) => {
          onError(error);
          delay = Math.min(delay * 2, 5_000);
          retryTimer = setTimeout(attempt, delay);
          retryTimer.unref();
        },
      );
    };
    retryTimer = setTimeout(attempt, delay);
    retryTimer.unref();
  };

  return connect().then(() => ({
    async confirm(send: (payload: string) => Promise<void>, waitMs = 5_000, tries = 3) {
      for (let attempt = 0; attempt < tries; attempt += 1) {
        const payload = `${CHECK}${randomUUID()}`;
        const arrived = new Promise<boolean>((resolve) => {
          const timer = setTimeout(() => resolve(false), waitMs);
          checks.set(payload, () => {
            clearTimeout(timer);
            resolve(true);
          });
        });
        await send(payload);
        const heard = await arrived;
        checks.delete(payload);
        if (heard) return;
      }
      throw new Error(
        `DATABASE_LISTEN_URL: a notification sent through DATABASE_URL did not arrive on the listening connection (${tries} tries of ${waitMs} ms). ` +
          'LISTEN needs a session connection to the primary: set DATABASE_LISTEN_URL to one (not through a transaction pooler).',
      );
    },
    async close() {
      closed = true;
      if (retryTimer) clearTimeout(retryTimer);
      const current = client;
      client = undefined;
      if (current) {
        current.removeAllListeners('end');
        await current.end().catch(() => undefined);
      }
    },
  }));
}

/**
 * Where the role may create event triggers, DDL from anywhere (psql, migrations) sends the same notification, so a
 * table created outside the service is served at once. Elsewhere `NOTIFY basalt, 'reload schema'` does it.
 */
export async function installDdlTrigger(knex: Knex): Promise<boolean> {
  try {
    await knex.transaction(async (trx) => {
      // Processes starting together would race on CREATE OR REPLACE ("tuple concurrently updated").
      await trx.raw(`SELECT pg_advisory_xact_lock(hashtext('basalt ddl trigger'))`);
      // SECURITY DEFINER: it runs for DDL by any role, and must not make a role without rights on `_basalt_schema`
      // fail its own CREATE TABLE; it runs as the role that installed it instead.
      await trx.raw(`
        CREATE OR REPLACE FUNCTION _basalt_notify_ddl() RETURNS event_trigger
        LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public AS $$
        BEGIN
          BEGIN
            UPDATE public._basalt_schema SET version = version + 1;
          EXCEPTION WHEN undefined_table THEN
            NULL; -- never let bookkeeping break somebody's DDL
          END;
          PERFORM pg_notify('${SCHEMA_CHANNEL}', '${RELOAD_SCHEMA}');
        END $$`);
      const existing = await trx.raw<{ rows: unknown[] }>(`SELECT 1 FROM pg_event_trigger WHERE evtname = '_basalt_ddl_notify'`);
      if (existing.rows.length === 0) {
        await trx.raw(`CREATE EVENT TRIGGER _basalt_ddl_notify ON ddl_command_end EXECUTE FUNCTION _basalt_notify_ddl()`);
      }
    });
    return true;
  } catch (error) {
    // 42501: the role may not create event triggers (not a superuser).
    if ((error as { code?: string }).code === '42501') return false;
    throw error;
  }
}
